"""The ``turngraph`` command: ``main`` is the console script (``turngraph.cli:main``), and
``python -m turngraph.cli`` runs it too."""

from turngraph.cli.commands import main

__all__ = ["main"]
