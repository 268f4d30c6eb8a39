# Sourced by test.sh and field.sh: apt-get as root, waiting (up to 5 minutes) while another
# package manager run holds its lock: dpkg's lock through apt's own timeout, the package lists'
# lock by trying again. `apt_install WHY PACKAGE…` updates the lists once, then installs.
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

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
