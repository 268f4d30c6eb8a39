#!/usr/bin/env bash
# The field set-up (b): this laptop, on a hotspot or a LAN with no internet, serves the game over
# HTTPS from a certificate authority of its own. On a fresh Debian laptop it installs Caddy (and
# python3-venv) with apt, starts `bijse serve` on loopback and Caddy in front of it:
#   https://<address>/  the game (Caddy's internal CA issues and renews the certificate offline)
#   http://<address>/   the phones' first stop: the CA certificate, a QR, Android and iOS steps
# and prints the organizer's URL and a QR of the phones' page. Ctrl-C stops both.
#
#   ./deploy/field.sh [--name NAME]... [--http-port 80] [--https-port 443] [--port 8000]
#                     [--bind ADDR] [--state DIR] [--database-url URL]
#
# --name: an address or host name phones use (repeat it); default: this laptop's LAN IPv4
# addresses, then `hostname`.local and `hostname`. The first one goes into the invites.
# --state: the CA, the certificates, the Caddyfile, the phones' page and (by default) the SQLite
# database live here; default ~/.local/state/bijse-field. Keep it: phones trust its CA.
# --bind: the address Caddy listens on (default: every interface).
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/apt.sh

names=() http_port=80 https_port=443 port=8000 bind="" database=""
state="${XDG_STATE_HOME:-$HOME/.local/state}/bijse-field"
while [ $# -gt 0 ]; do
  case $1 in
    --name) names+=("$2"); shift 2 ;;
    --http-port) http_port=$2; shift 2 ;;
    --https-port) https_port=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --bind) bind=$2; shift 2 ;;
    --state) state=$2; shift 2 ;;
    --database-url) database=$2; shift 2 ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "field.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

# What a fresh Debian laptop lacks; nothing is installed when everything is there.
command -v caddy >/dev/null || apt_install "Caddy serves HTTPS and the phones' CA page" caddy
python3 -c 'import ensurepip' 2>/dev/null || apt_install "the server's virtualenv" python3-venv
# Debian's caddy package starts its own service on port 80: it would hold the port we need.
if [ "$http_port" = 80 ] && command -v systemctl >/dev/null && systemctl is-active --quiet caddy 2>/dev/null; then
  echo "stopping Debian's caddy service (it holds port 80; field.sh runs its own Caddy)"
  as_root systemctl disable --now caddy >/dev/null 2>&1 || as_root systemctl stop caddy
fi
./deploy/setup.sh

if [ ${#names[@]} -eq 0 ]; then
  for address in $(hostname -I 2>/dev/null || true); do
    case $address in *:* | 127.*) ;; *) names+=("$address") ;; esac
  done
  host=$(hostname)
  names+=("$host.local" "$host")
fi

suffix() { [ "$1" = "$2" ] && echo "" || echo ":$1"; }  # the port, unless it is the default
https_suffix=$(suffix "$https_port" 443) http_suffix=$(suffix "$http_port" 80)
host_of() { case $1 in *:*) echo "[$1]" ;; *) echo "$1" ;; esac; }
game_url="https://$(host_of "${names[0]}")$https_suffix"
page_url="http://$(host_of "${names[0]}")$http_suffix"
ca_name="Bij se field CA ($(hostname))"

mkdir -p "$state/www"
state=$(cd "$state" && pwd)
database=${database:-sqlite:///$state/bijse.db}
https_sites="" http_sites=""
for name in "${names[@]}"; do
  https_sites+="${https_sites:+, }https://$(host_of "$name")"
  http_sites+="${http_sites:+, }http://$(host_of "$name")"
done
bind_line=${bind:+bind $bind}
cat >"$state/Caddyfile" <<EOF
# Written by deploy/field.sh; it is rewritten on every start.
{
	admin off
	http_port $http_port
	https_port $https_port
	skip_install_trust
	pki {
		ca local {
			name "$ca_name"
			root_cn "$ca_name"
		}
	}
}

$https_sites {
	$bind_line
	tls internal
	reverse_proxy 127.0.0.1:$port
}

# Plain http on purpose: a phone cannot trust https before it has installed the CA.
$http_sites {
	$bind_line
	root * $state/www
	header /bijse-ca.crt Content-Type application/x-x509-ca-cert
	file_server
}
EOF

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 0' INT TERM

# Phones on the LAN reach the server: only the organizer's admin key creates games. It is kept
# in the state directory (readable by this user only) and handed to this laptop's browser in
# the organizer link's fragment, which no request carries.
admin_key_file="$state/admin-key"
[ -s "$admin_key_file" ] || (umask 077 && .venv/bin/python -c 'import secrets; print(secrets.token_urlsafe(24))' >"$admin_key_file")
BIJSE_ADMIN_TOKEN=$(cat "$admin_key_file") .venv/bin/bijse serve --host 127.0.0.1 --port "$port" \
  --public-url "$game_url" --database-url "$database" &
pids+=($!)
# Caddy keeps its CA and certificates under XDG_DATA_HOME: in the state directory, not $HOME.
caddy_env=(env XDG_DATA_HOME="$state/data" XDG_CONFIG_HOME="$state/config")
if [ "$(id -u)" != 0 ] && { [ "$http_port" -lt 1024 ] || [ "$https_port" -lt 1024 ]; }; then
  caddy_env=(sudo "${caddy_env[@]}")  # ports under 1024; Debian's caddy has no capability for them
fi
"${caddy_env[@]}" caddy run --config "$state/Caddyfile" --adapter caddyfile 2>"$state/caddy.log" &
pids+=($!)

root="$state/data/caddy/pki/authorities/local/root.crt"
for _ in $(seq 300); do
  [ -s "$root" ] && curl -fso /dev/null "http://127.0.0.1:$port/healthz" && break
  for pid in "${pids[@]}"; do
    kill -0 "$pid" 2>/dev/null || { echo "field.sh: a process exited; Caddy's log:" >&2; tail -n 20 "$state/caddy.log" >&2; exit 1; }
  done
  sleep 0.1
done
[ -s "$root" ] || { echo "field.sh: Caddy made no CA in 30 s; its log:" >&2; tail -n 20 "$state/caddy.log" >&2; exit 1; }
.venv/bin/python deploy/field_page.py page "$root" "$ca_name" "$state/www" "$page_url/" "$game_url"

echo
echo "Bij se is ready in the field (names: ${names[*]})."
echo "  Organizer, on this laptop:  $game_url/#/admin/$(cat "$admin_key_file")"
echo "  Phones, first the CA:       $page_url/   (the QR below; Android and iOS steps there)"
.venv/bin/python deploy/field_page.py qr "$page_url/"
echo "Ctrl-C stops the server and Caddy. State (keep it: phones trust its CA): $state"
wait -n "${pids[@]}"
