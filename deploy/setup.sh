#!/usr/bin/env bash
# Shared by serve.sh and test.sh: a virtualenv in .venv with the project installed (editable),
# and its busiest modules compiled to C (server/__init__.py says which; again only once a source changed).
# Reinstalls only when pyproject.toml changed since the last install (one with extras counts).
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
stamp=".venv/.installed${extras:+-$extras}"
fresh() { [ -f "$1" ] && [ ! pyproject.toml -nt "$1" ]; }
# The project without extras is in every install: a fresh install with extras will do.
installed=""
if [ -z "$extras" ]; then for other in .venv/.installed-*; do fresh "$other" && installed=1; done; fi
if [ -z "$installed" ] && ! fresh "$stamp"; then
  .venv/bin/pip install --quiet --upgrade pip
  .venv/bin/pip install --quiet -e ".${extras:+[$extras]}"
  touch "$stamp"
fi
.venv/bin/python deploy/compile.py
