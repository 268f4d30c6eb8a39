#!/usr/bin/env bash
# Set everything up and run the server: SQLite file bijse.db, migrations applied, PWA on /.
# Any bijse serve option passes through, e.g. ./deploy/serve.sh --host 0.0.0.0 --port 8000
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/setup.sh
exec .venv/bin/bijse serve "$@"
