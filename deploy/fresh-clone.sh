#!/usr/bin/env bash
# The README's serve command as a newcomer meets it: a fresh clone of this commit (HEAD; what is
# not committed is not in it), ./deploy/serve.sh in it (a brand-new virtualenv, the project
# installed without extras and without pip's cache), then /healthz, the PWA on / and a new game
# must answer. The test suite installs its own extras, which could hide a missing runtime
# dependency; this cannot. Exits non-zero, with the server's log, when any answer is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
server=""
cleanup() {
  [ -z "$server" ] || { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT
echo "fresh clone: $(git rev-parse --short HEAD) into $work, serve.sh with a new virtualenv…"
git clone -q --no-hardlinks . "$work/bijse"
git -C "$work/bijse" checkout -q --detach "$(git rev-parse HEAD)"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$work/bijse" && PIP_NO_CACHE_DIR=1 exec ./deploy/serve.sh --port "$port" >"$work/serve.log" 2>&1) &
server=$!
if ! python3 - "$port" "$server" <<'PY'
import json, os, sys, time, urllib.request

port, pid = int(sys.argv[1]), int(sys.argv[2])
base = f"http://127.0.0.1:{port}"

def get(path: str, body: dict | None = None) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(base + path, data=data), timeout=10) as r:
        return r.status, r.read()

deadline = time.monotonic() + 300  # pip installs everything anew: allow for a slow registry
while True:
    try:
        status, body = get("/healthz")
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("fresh clone: /healthz never answered")
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            sys.exit("fresh clone: serve.sh exited before serving")
        time.sleep(0.5)
assert status == 200, f"/healthz answered {status}"
status, page = get("/")
assert status == 200 and b"<html" in page.lower(), f"/ answered {status}, not the PWA"
status, made = get("/api/games", {"ruleset": "card-duel", "name": "Fresh clone"})
game = json.loads(made)
assert status == 201 and game.get("game_id") and game.get("organizer_token"), made
print(f"fresh clone: /healthz 200, PWA on / ({len(page)} bytes), game {game['game_id']} created")
PY
then
  echo "fresh clone: FAILED; the server's output:" >&2
  cat "$work/serve.log" >&2
  exit 1
fi
