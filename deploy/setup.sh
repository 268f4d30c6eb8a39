#!/usr/bin/env bash
# Shared by serve.sh and test.sh: a virtualenv in .venv with the project installed (editable).
# Reinstalls only when pyproject.toml changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
stamp=".venv/.installed${extras:+-$extras}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/pip install --quiet --upgrade pip
  .venv/bin/pip install --quiet -e ".${extras:+[$extras]}"
  touch "$stamp"
fi
