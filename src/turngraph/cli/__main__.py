"""``python -m turngraph.cli``: the ``turngraph`` command."""

from turngraph.cli import main

raise SystemExit(main())
