#!/usr/bin/env bash
# The package as a user gets it: build the sdist and the wheel, check them with twine, install
# the wheel (with the server extra) into a fresh venv outside the source tree, and run the
# README's first Python example, `turngraph --help` and `turngraph serve` from there.
# Usage: scripts/check_wheel.sh [PYTHON]   (run by .ci/run after `make test`)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${1:-python3}
WORK=$(mktemp -d)
trap 'kill "${SERVER:-0}" 2>/dev/null || true; rm -rf "$WORK"' EXIT

"$PYTHON" -m venv "$WORK/tools"
"$WORK/tools/bin/pip" install -q build twine
"$WORK/tools/bin/python" -m build --outdir "$WORK/dist" . >/dev/null
"$WORK/tools/bin/twine" check --strict "$WORK"/dist/*
WHEEL=$(ls "$WORK"/dist/turngraph-*.whl)
echo "built $(basename "$WHEEL") and $(basename "$(ls "$WORK"/dist/turngraph-*.tar.gz)")"

"$PYTHON" -m venv "$WORK/user"
"$WORK/user/bin/pip" install -q "$WHEEL[server]"
mkdir "$WORK/elsewhere"
cd "$WORK/elsewhere"  # no source tree here: only the installed package can be imported

"$WORK/user/bin/turngraph" --help >/dev/null
"$WORK/user/bin/python" - <<'PY'
import turngraph, pathlib
print("installed turngraph", turngraph.__version__, "from", pathlib.Path(turngraph.__file__).parent)
PY
# The README's first Python example, as written there.
"$WORK/user/bin/python" - "$OLDPWD/README.md" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
first = re.search(r"## In Python\n\n```python\n(.*?)```", text, re.S).group(1)
exec(compile(first, "README.md (In Python)", "exec"), {})
print("the README's first example ran")
PY
PORT=$("$WORK/user/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$WORK/user/bin/turngraph" serve --db "$WORK/elsewhere/served.db" --port "$PORT" >"$WORK/serve.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 100); do
    if curl -fsS "http://127.0.0.1:$PORT/api/v1/health" >/dev/null 2>&1; then break; fi
    sleep 0.2
done
curl -fsS "http://127.0.0.1:$PORT/api/v1/health"
echo
kill -TERM "$SERVER"
wait "$SERVER"
echo "turngraph serve ran from the wheel and stopped cleanly"
