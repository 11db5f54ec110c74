#!/usr/bin/env bash
# What a new user waits for: `make run`'s setup (a fresh venv, runtime only), the server's
# start to its first answer, then what `make test` adds. Sizes are `du` of the venv.
# Usage: benchmarks/first_start.sh [VENV_DIR]   (default .venv-bench; removed first)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-.venv-bench}
db=$(mktemp -d)/first-start.db
port=${PORT:-8799}
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }

rm -rf "$venv"
echo "machine: $(uname -m), $(nproc) cores, $(python3 --version), load $(cut -d' ' -f1-3 /proc/loadavg)"
t=$(now)
make VENV="$venv" "$venv/.installed-runtime" >/dev/null
echo "make run setup (fresh venv, runtime only): $(since "$t") s, $(du -sm "$venv" | cut -f1) MB"
t=$(now)
"$venv/bin/turngraph" serve --db "$db" --port "$port" >/dev/null 2>&1 &
pid=$!
until curl -sf "http://127.0.0.1:$port/api/v1/health" >/dev/null; do sleep 0.1; done
echo "turngraph serve, start to first answer: $(since "$t") s"
kill "$pid"
wait "$pid" || true
t=$(now)
make VENV="$venv" "$venv/.installed" >/dev/null
echo "make test setup (adds the test tools): $(since "$t") s, $(du -sm "$venv" | cut -f1) MB in all"
"$venv/bin/python" -c "import importlib.util as u; print('torch installed:', u.find_spec('torch') is not None)"
rm -rf "$venv" "$(dirname "$db")"
