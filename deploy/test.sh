#!/usr/bin/env bash
# Set everything up and run the whole suite: lint, types, and every test, PostgreSQL and the
# browser included. Installs Chromium and PostgreSQL with apt where they are missing (as root).
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/setup.sh test

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# apt, waiting (up to 5 minutes) while another package manager run holds its lock: dpkg's lock
# through apt's own timeout, the package lists' lock by trying again.
APT_LOCK_WAIT_S=300
apt_run() {
  local deadline=$((SECONDS + APT_LOCK_WAIT_S)) out
  while true; do
    if out=$(DEBIAN_FRONTEND=noninteractive as_root apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT_S" "$@" 2>&1); then
      return 0
    fi
    if grep -qiE 'could not get lock|unable to lock|another process' <<<"$out" && [ "$SECONDS" -lt "$deadline" ]; then
      echo "  apt is busy (another package manager holds its lock): waiting…"
      sleep 3
      continue
    fi
    echo "$out" >&2
    return 1
  done
}
apt_updated=""
apt_install() {  # apt_install WHY PACKAGE…
  local why=$1; shift
  echo "installing $* with apt: $why"
  [ -n "$apt_updated" ] || { apt_run update -qq; apt_updated=1; }
  apt_run install -y -qq "$@" >/dev/null
}

# The browser: Debian's Chromium (Playwright's own download does not work everywhere).
export BIJSE_CHROMIUM="${BIJSE_CHROMIUM:-/usr/lib/chromium/chromium}"
[ -x "$BIJSE_CHROMIUM" ] || apt_install "the browser tests drive Debian's Chromium" chromium

# PostgreSQL: a real server; started (or installed) when it is not running.
if [ -z "${BIJSE_TEST_POSTGRES_URL:-}" ]; then
  if ! command -v pg_ctlcluster >/dev/null; then
    apt_install "the store tests run against a real PostgreSQL server" postgresql
  fi
  if ! pg_isready -q -h 127.0.0.1 -p 5432; then
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || as_root pg_ctlcluster "$version" main start
    for _ in $(seq 50); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.2; done
  fi
  export BIJSE_TEST_POSTGRES_URL="postgresql://postgres@127.0.0.1:5432/postgres"
  if ! psql "$BIJSE_TEST_POSTGRES_URL" -qAtc "select 1" >/dev/null 2>&1; then
    # A fresh Debian cluster asks for a password over TCP: give the postgres role one.
    as_root su postgres -c "psql -qc \"ALTER USER postgres PASSWORD 'bijse'\"" >/dev/null
    export BIJSE_TEST_POSTGRES_URL="postgresql://postgres:bijse@127.0.0.1:5432/postgres"
  fi
fi
export BIJSE_REQUIRE_POSTGRES=1 BIJSE_REQUIRE_BROWSER=1  # never skip these silently

.venv/bin/ruff check server migrations tests bench
.venv/bin/mypy
# The serve command as a newcomer meets it: a fresh clone, a new virtualenv, no test extras.
./deploy/fresh-clone.sh
exec .venv/bin/pytest "$@"
