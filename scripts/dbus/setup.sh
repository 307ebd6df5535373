#!/usr/bin/env bash
# Installs what shardlet's graceful node shutdown tests need, from Debian 12:
# dbus-daemon (the tests run a private system bus of their own), python3-dbus and
# python3-gi for /usr/bin/python3 (the fake systemd-logind on that bus,
# test/fixtures/nodeshutdown/fake-logind.py), and systemd for busctl and
# systemd-inhibit, the tools shardlet itself uses to talk to logind. No daemon is
# started: policy-rc.d (exit 101) tells invoke-rc.d not to start the system bus the
# package would otherwise bring up.
#
# Idempotent: when everything is there it does nothing.
#
#   bash scripts/dbus/setup.sh      prints the paths of the tools
set -euo pipefail

export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
# shellcheck source=scripts/lib/apt-install.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../lib/apt-install.sh"
LOG=/tmp/shardlet-dbus-apt.log
PACKAGES=(dbus-daemon python3-dbus python3-gi systemd)

fail() {
  echo "dbus/setup.sh: ERROR: $*" >&2
  exit 1
}

ready() {
  [ -x /usr/bin/dbus-daemon ] && [ -x /usr/bin/python3 ] &&
    command -v busctl >/dev/null && command -v systemd-inhibit >/dev/null &&
    /usr/bin/python3 -c 'import dbus, dbus.mainloop.glib, gi.repository.GLib' 2>/dev/null
}

report() {
  echo /usr/bin/dbus-daemon /usr/bin/python3 "$(command -v busctl)" "$(command -v systemd-inhibit)"
}

if ready; then
  report
  exit 0
fi

[ "$(id -u)" = 0 ] || fail "must run as root (it installs Debian packages)"
[ -r /etc/debian_version ] || fail "expects Debian 12 (apt-get)"

# One install at a time: several test files or setup scripts may run at once.
exec 9>/tmp/shardlet-dbus-setup.lock
flock -w 900 9 || fail "timed out waiting for another dbus/setup.sh"
if ready; then
  report
  exit 0
fi

apt_rc=0
apt_install_without_daemons "$LOG" "${PACKAGES[@]}" || apt_rc=$?
if [ "$apt_rc" != 0 ]; then
  tail -n 30 "$LOG" >&2
  fail "apt-get install ${PACKAGES[*]} failed (full log: $LOG)"
fi

ready || fail "installed ${PACKAGES[*]} but a tool is still missing"
report
