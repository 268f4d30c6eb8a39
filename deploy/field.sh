#!/usr/bin/env bash
# The game in the field: this laptop serves it over HTTPS to phones on its hotspot (or a travel
# router), with no internet. Two routes:
#
# With a name (recommended): at home, with internet, get a publicly trusted certificate for it
# once (ACME DNS-01: no open port, no public address needed); in the forest, serve it. Phones
# scan their invite and are in: nothing to install, no setting to change.
#   ./deploy/field.sh certificate --domain NAME --dns PROVIDER [--email ADDRESS]
#                     [--acme-server URL] [--state DIR] [-- MORE LEGO OPTIONS]
#   ./deploy/field.sh --domain NAME [--address ADDR] [--game-ends TIME]
#   ./deploy/field.sh check --domain NAME [--address ADDR] [--game-ends TIME]
# The provider's token comes from the environment, as `lego dnshelp -c PROVIDER` names it
# (DUCKDNS_TOKEN=… for duckdns). --acme-server: Let's Encrypt's directory by default. Serving,
# the laptop's own DNS (dnsmasq, on ADDR port 53, or NetworkManager's hotspot DNS) answers NAME
# with ADDR; --address: the hotspot's address (default: this laptop's first LAN address).
# `check` (also run at every start) says what is wrong and how to fix it.
#
# With no name: Caddy's internal CA. Each phone first opens http://ADDR/ (a QR), installs the CA
# certificate there, then its invite. --name: an address or host name phones use (repeat it;
# default: the LAN addresses, then `hostname`.local and `hostname`); the first goes into invites.
#   ./deploy/field.sh [--name NAME]...
#
# Both: [--http-port 80] [--https-port 443] [--port 8000] [--bind ADDR] [--state DIR]
# [--database-url URL] [--dns-address ADDR] [--dns-port 53] [--hosts-file FILE|none].
# --state: certificates, keys, the CA, the Caddyfile and (by default) the SQLite database;
# default ~/.local/state/bijse-field: keep it. --hosts-file: where this laptop learns NAME itself
# (default /etc/hosts; a marked line, rewritten at each start). Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/apt.sh

fail() { echo "field.sh: $*" >&2; exit 1; }

command=serve
case ${1:-} in certificate | check) command=$1; shift ;; esac
names=() http_port=80 https_port=443 port=8000 bind="" database="" domain="" provider=""
email="${LEGO_EMAIL:-}" acme_server="https://acme-v02.api.letsencrypt.org/directory"
address="" dns_address="" dns_port=53 game_ends="" hosts_file=/etc/hosts lego_more=() phase=all
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
    --domain) domain=$(tr 'A-Z' 'a-z' <<<"${2%.}"); shift 2 ;;
    --dns) provider=$2; shift 2 ;;
    --email) email=$2; shift 2 ;;
    --acme-server) acme_server=$2; shift 2 ;;
    --address) address=$2; shift 2 ;;
    --dns-address) dns_address=$2; shift 2 ;;
    --dns-port) dns_port=$2; shift 2 ;;
    --game-ends) game_ends=$2; shift 2 ;;
    --hosts-file) hosts_file=$2; shift 2 ;;
    --phase) phase=$2; shift 2 ;;  # check: before (no running set-up needed), running, all
    --) shift; lego_more=("$@"); break ;;
    -h | --help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown option $1 (see --help)" ;;
  esac
done

if [ -n "$domain" ]; then
  case $domain in
    *[!a-z0-9.-]* | .* | *..* | [0-9]*.[0-9]*.[0-9]*.[0-9]*) valid= ;;
    *.*) valid=1 ;;
    *) valid= ;;
  esac
  [ -n "$valid" ] || fail "--domain $domain: give a host name such as hra.example.cz (no address, no wildcard)"
fi

# The state directory holds the certificates and keys: it must be ours to write.
if ! mkdir -p "$state" 2>/dev/null || ! touch "$state/.writable" 2>/dev/null; then
  fail "cannot write the state directory $state: give --state DIR, a folder this user can write (it keeps the certificate, its key and the game)"
fi
rm -f "$state/.writable"
state=$(cd "$state" && pwd)

python3 -c 'import ensurepip' 2>/dev/null || apt_install "the server's virtualenv" python3-venv
./deploy/setup.sh
check_py=(.venv/bin/python deploy/field_check.py)

# --- certificate: at home, with internet ------------------------------------------------------
if [ "$command" = certificate ]; then
  [ -n "$domain" ] || fail "certificate: give --domain NAME (the name the phones open)"
  [ -n "$provider" ] || fail "certificate: give --dns PROVIDER, your name's DNS host as lego calls it (\`lego dnshelp\` lists them; free names: duckdns, desec, dynu)"
  command -v lego >/dev/null || apt_install "lego gets the certificate (ACME DNS-01)" lego
  codes=$(lego dnshelp | sed -n '/^All DNS codes:/{n;p}' | tr -d ' ' | tr ',' '\n')
  grep -qxF -- "$provider" <<<"$codes" ||
    fail "lego knows no DNS provider '$provider'. \`lego dnshelp\` lists the codes; with a free name use duckdns, desec or dynu (see the README)"
  email=${email:-hostmaster@$domain}
  acme="$state/acme"
  mkdir -p "$acme"
  lego_args=(--server "$acme_server" --accept-tos --email "$email" --dns "$provider"
    --domains "$domain" --path "$acme" "${lego_more[@]}")
  crt="$acme/certificates/$domain.crt"
  if [ -s "$crt" ]; then run=(renew --days 30); else run=(run); fi
  echo "asking $acme_server for a certificate for $domain (DNS-01 through $provider)…"
  if ! lego "${lego_args[@]}" "${run[@]}" >"$acme/lego.log" 2>&1 || [ ! -s "$crt" ]; then
    log=$(cat "$acme/lego.log")
    if missing=$(grep -o 'credentials information are missing: .*' <<<"$log"); then
      vars=${missing#credentials information are missing: }
      fail "the DNS provider $provider needs ${vars//,/ and } in the environment (an API token of your DNS host): ${vars%%,*}=… ./deploy/field.sh certificate --domain $domain --dns $provider. \`lego dnshelp -c $provider\` says what each one is"
    elif grep -q 'unrecognized DNS provider' <<<"$log"; then
      fail "this lego (Debian's) was built without the DNS provider '$provider'. It has, among others: duckdns, desec, dynu (free names), wedos, ovh, hetzner, route53, digitalocean, gandiv5, rfc2136, httpreq. Move the name's DNS to one of them, or take a free name (see the README)"
    elif grep -q 'Could not create client' <<<"$log"; then
      fail "cannot reach the ACME server $acme_server: is this computer on the internet? (do this at home, before the game; lego's words: $(grep -o 'Could not create client.*' <<<"$log" | head -c 300))"
    fi
    echo "field.sh: lego could not get the certificate; its last words ($acme/lego.log):" >&2
    tail -n 5 "$acme/lego.log" >&2
    exit 1
  fi
  chmod 600 "$acme/certificates/$domain.key"
  if grep -q 'no renewal' "$acme/lego.log"; then
    echo "The certificate for $domain has more than 30 days left: kept as it is."
  else
    echo "Got a certificate for $domain."
  fi
  "${check_py[@]}" dates "$crt"
  echo "  files:   $crt and its key $domain.key (keep the key secret)"
  echo "When it runs out, renew it at home, with internet, by this same command (it renews when"
  echo "fewer than 30 days are left; a Let's Encrypt certificate lasts 90 days)."
  echo "Before the game: ./deploy/field.sh check --domain $domain --game-ends YYYY-MM-DDTHH:MM"
  echo "In the field:    ./deploy/field.sh --domain $domain"
  exit 0
fi

if [ -z "$address" ] && [ -n "$domain" ]; then
  address=$("${check_py[@]}" address) ||
    fail "this laptop has no network address but loopback: turn the hotspot on (or join the travel router), then start again"
fi
dns_address=${dns_address:-$address}
check_args=(--state "$state" --http-port "$http_port" --https-port "$https_port"
  --dns-port "$dns_port" ${domain:+--domain "$domain"} ${address:+--address "$address"}
  ${dns_address:+--dns-address "$dns_address"} ${game_ends:+--game-ends "$game_ends"})

# --- check: anytime ---------------------------------------------------------------------------
if [ "$command" = check ]; then
  exec "${check_py[@]}" check --phase "$phase" "${check_args[@]}"
fi

# --- serve: in the field ----------------------------------------------------------------------
command -v caddy >/dev/null || apt_install "Caddy serves HTTPS" caddy
# Debian's caddy package starts its own service on port 80: it would hold the port we need.
if [ "$http_port" = 80 ] && command -v systemctl >/dev/null && systemctl is-active --quiet caddy 2>/dev/null; then
  echo "stopping Debian's caddy service (it holds port 80; field.sh runs its own Caddy)"
  as_root systemctl disable --now caddy >/dev/null 2>&1 || as_root systemctl stop caddy
fi
if [ -n "$domain" ]; then
  command -v dnsmasq >/dev/null || apt_install "the laptop's DNS answers the game's name" dnsmasq-base
  if ! "${check_py[@]}" check --phase before "${check_args[@]}"; then
    fail "fix what is above, then start again"
  fi
else  # Caddy listens on every address unless --bind: a port taken anywhere is in its way
  "${check_py[@]}" check --phase before --state "$state" --http-port "$http_port" \
    --https-port "$https_port" --address "${bind:-0.0.0.0}" || fail "fix what is above, then start again"
fi

if [ ${#names[@]} -eq 0 ] && [ -z "$domain" ]; then
  for found in $(hostname -I 2>/dev/null || true); do
    case $found in *:* | 127.*) ;; *) names+=("$found") ;; esac
  done
  host=$(hostname)
  names+=("$host.local" "$host")
fi
[ -z "$domain" ] || names=("$domain")

suffix() { [ "$1" = "$2" ] && echo "" || echo ":$1"; }  # the port, unless it is the default
https_suffix=$(suffix "$https_port" 443) http_suffix=$(suffix "$http_port" 80)
host_of() { case $1 in *:*) echo "[$1]" ;; *) echo "$1" ;; esac; }
game_url="https://$(host_of "${names[0]}")$https_suffix"
page_url="http://$(host_of "${names[0]}")$http_suffix"
ca_name="Bij se field CA ($(hostname))"

mkdir -p "$state/www" "$state/run"
database=${database:-sqlite:///$state/bijse.db}
bind_line=${bind:+bind $bind}
if [ -n "$domain" ]; then
  crt="$state/acme/certificates/$domain.crt" key="$state/acme/certificates/$domain.key"
  cat >"$state/Caddyfile" <<EOF
# Written by deploy/field.sh; it is rewritten on every start.
{
	admin off
	http_port $http_port
	https_port $https_port
	skip_install_trust
}

https://$domain {
	$bind_line
	tls $crt $key
	reverse_proxy 127.0.0.1:$port
}

# Whatever a phone typed (the bare address too): to the game's name, over https.
http:// {
	$bind_line
	redir https://$domain$https_suffix{uri} 308
}
EOF
else
  https_sites="" http_sites=""
  for name in "${names[@]}"; do
    https_sites+="${https_sites:+, }https://$(host_of "$name")"
    http_sites+="${http_sites:+, }http://$(host_of "$name")"
  done
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
fi

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || as_root kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -f "$state"/run/*.pid
  if [ -n "$domain" ] && [ "$hosts_file" != none ] && [ -w "$hosts_file" ]; then
    sed -i '/# bijse-field$/d' "$hosts_file" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'exit 0' INT TERM
started() { pids+=("$2"); echo "$2" >"$state/run/$1.pid"; }
alive() {
  for pid in "${pids[@]}"; do
    kill -0 "$pid" 2>/dev/null || { echo "field.sh: a process exited; the logs:" >&2; tail -n 5 "$state"/*.log >&2; exit 1; }
  done
}
privileged() {  # ports under 1024 need root; Debian's caddy and dnsmasq have no capability for them
  if [ "$(id -u)" != 0 ] && [ "$1" -lt 1024 ]; then echo sudo; fi
}

# Phones on the LAN reach the server: only the organizer's admin key creates games. It is kept
# in the state directory (readable by this user only) and handed to this laptop's browser in
# the organizer link's fragment, which no request carries.
admin_key_file="$state/admin-key"
[ -s "$admin_key_file" ] || (umask 077 && .venv/bin/python -c 'import secrets; print(secrets.token_urlsafe(24))' >"$admin_key_file")
ca_page=()  # on the internal-CA route the console and the invite sheet send phones there first
[ -n "$domain" ] || ca_page=(--field-ca-page "$page_url/")
BIJSE_ADMIN_TOKEN=$(cat "$admin_key_file") .venv/bin/bijse serve --host 127.0.0.1 --port "$port" \
  --public-url "$game_url" --database-url "$database" "${ca_page[@]}" &
started server $!
# Caddy keeps its storage under XDG_DATA_HOME: in the state directory, not $HOME.
low=$([ "$http_port" -lt "$https_port" ] && echo "$http_port" || echo "$https_port")
$(privileged "$low") env XDG_DATA_HOME="$state/data" XDG_CONFIG_HOME="$state/config" \
  caddy run --config "$state/Caddyfile" --adapter caddyfile 2>"$state/caddy.log" &
started caddy $!

dns_line=""
if [ -n "$domain" ]; then
  # The phones ask the laptop for NAME: answer it with the hotspot's address, and nothing else
  # (no upstream: the forest has no internet). NetworkManager's hotspot runs a dnsmasq of its
  # own on that address: then it is told the name instead (once; it reads it at its start).
  nm_dns=$("${check_py[@]}" nm-dns --address "$dns_address" --dns-port "$dns_port" || true)
  records=("host-record=$domain,$address" "local=/$domain/")
  if [ -n "$nm_dns" ]; then
    conf="$nm_dns/bijse.conf"
    printf '%s\n' "# Written by bijse's deploy/field.sh: the game's name on this hotspot." "${records[@]}" |
      as_root tee "$conf.new" >/dev/null
    if ! as_root cmp -s "$conf.new" "$conf"; then
      as_root mv "$conf.new" "$conf"
      connection=$(nmcli -t -f NAME,DEVICE connection show --active 2>/dev/null | grep -F ":$(ip -o -4 addr show | awk -v a="$dns_address" '$4 ~ "^"a"/" {print $2}')" | cut -d: -f1 || true)
      if [ -n "$connection" ]; then
        echo "restarting the hotspot ($connection) so that its DNS answers $domain"
        as_root nmcli connection up "$connection" >/dev/null
      else
        fail "wrote $conf: restart the hotspot (nmcli connection up HOTSPOT) so that its DNS reads it, then start again"
      fi
    else
      as_root rm -f "$conf.new"
    fi
    dns_line="NetworkManager's hotspot DNS on $dns_address"
  else
    $(privileged "$dns_port") dnsmasq --keep-in-foreground --conf-file=/dev/null --pid-file= \
      --no-resolv --no-hosts --bind-interfaces --listen-address="$dns_address" --port="$dns_port" \
      "${records[@]/#/--}" --log-facility=- >"$state/dnsmasq.log" 2>&1 &
    started dns $!
    dns_line="dnsmasq on $dns_address:$dns_port"
  fi
  # This laptop's own browser asks its own resolver, not the hotspot's DNS.
  if [ "$hosts_file" != none ]; then
    { grep -v '# bijse-field$' "$hosts_file" 2>/dev/null || true; echo "$address $domain # bijse-field"; } >"$state/hosts.new"
    as_root cp "$state/hosts.new" "$hosts_file" && rm -f "$state/hosts.new"
  fi
fi

for _ in $(seq 300); do
  if [ -n "$domain" ]; then
    curl -kfso /dev/null --resolve "$domain:$https_port:$address" "$game_url/healthz" && break
  else
    curl -fso /dev/null "http://127.0.0.1:$port/healthz" &&
      [ -s "$state/data/caddy/pki/authorities/local/root.crt" ] && break
  fi
  alive
  sleep 0.1
done
alive
if [ -n "$domain" ]; then
  for _ in $(seq 50); do
    "${check_py[@]}" check --phase running "${check_args[@]}" >"$state/check.txt" && break
    alive
    sleep 0.2
  done
  cat "$state/check.txt"
  grep -q '^PROBLEM' "$state/check.txt" && fail "the set-up does not answer as it must (above); stopping"
else
  root="$state/data/caddy/pki/authorities/local/root.crt"
  [ -s "$root" ] || fail "Caddy made no CA in 30 s; its log: $(tail -n 20 "$state/caddy.log")"
  .venv/bin/python deploy/field_page.py page "$root" "$ca_name" "$state/www" "$page_url/" "$game_url"
fi

echo
if [ -n "$domain" ]; then
  echo "Bij se is ready in the field at $game_url/ (its DNS: $dns_line answers $domain with $address)."
  echo "  Organizer, on this laptop:  $game_url/#/admin/$(cat "$admin_key_file")"
  echo "  Phones: on the hotspot, they scan their invite; nothing to install. The game's QR:"
  .venv/bin/python deploy/field_page.py qr "$game_url/"
  echo "Ctrl-C stops the server, Caddy and the DNS. State (keep it): $state"
else
  echo "Bij se is ready in the field (names: ${names[*]})."
  echo "  Organizer, on this laptop:  $game_url/#/admin/$(cat "$admin_key_file")"
  echo "  Phones, first the CA:       $page_url/   (the QR below; Android and iOS steps there)"
  .venv/bin/python deploy/field_page.py qr "$page_url/"
  echo "Ctrl-C stops the server and Caddy. State (keep it: phones trust its CA): $state"
fi
wait -n "${pids[@]}"
