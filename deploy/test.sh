#!/usr/bin/env bash
# Set everything up and run the whole suite: lint, types, and every test, PostgreSQL and the
# browser included. Installs Chromium, PostgreSQL, Caddy, certutil, lego, pebble and dnsmasq with
# apt where they are missing (as root).
set -euo pipefail
cd "$(dirname "$0")/.."
# The serve command as a newcomer meets it (a fresh clone, a new virtualenv, no test extras),
# beside the set-up and the lint below: each compiles the server on one core of its own.
clone_log=$(mktemp)
./deploy/fresh-clone.sh >"$clone_log" 2>&1 &
clone=$!
./deploy/setup.sh test

. deploy/apt.sh  # as_root, apt_install

# The browser: Debian's Chromium (Playwright's own download does not work everywhere).
export BIJSE_CHROMIUM="${BIJSE_CHROMIUM:-/usr/lib/chromium/chromium}"
[ -x "$BIJSE_CHROMIUM" ] || apt_install "the browser tests drive Debian's Chromium" chromium
# HTTPS in the field: the tests run the real Caddy, and Chromium trusts their CA through NSS.
command -v caddy >/dev/null || apt_install "the field tests run the real reverse proxy" caddy
command -v certutil >/dev/null || apt_install "the browser trusts the tests' CA with certutil" libnss3-tools
# The field's named route: lego gets a certificate from pebble (a local ACME server) by DNS-01,
# and dnsmasq is the laptop's DNS.
field_tools=()
command -v lego >/dev/null || field_tools+=(lego)
command -v pebble >/dev/null && command -v pebble-challtestsrv >/dev/null || field_tools+=(pebble)
command -v dnsmasq >/dev/null || field_tools+=(dnsmasq-base)
[ ${#field_tools[@]} -eq 0 ] || apt_install "the field tests get a real certificate and run a real DNS" "${field_tools[@]}"

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
export BIJSE_REQUIRE_POSTGRES=1 BIJSE_REQUIRE_BROWSER=1 BIJSE_REQUIRE_CADDY=1  # never skip these silently

.venv/bin/ruff check server migrations tests bench deploy
.venv/bin/mypy
clone_status=0
wait "$clone" || clone_status=$?
cat "$clone_log"
rm -f "$clone_log"
[ "$clone_status" -eq 0 ] || exit "$clone_status"
exec .venv/bin/pytest "$@"
