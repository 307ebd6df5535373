#!/usr/bin/env bash
# Installs Debian's `prometheus` package for shardlet's metrics tests: promtool
# (`promtool check metrics` on /metrics) and the server binary the tests start
# themselves, on a free port with their own config. The packaged daemon is never left
# running: there is no systemd here, so the package's init script would start it on
# :9090 with /etc/prometheus's config; policy-rc.d (exit 101) tells invoke-rc.d not
# to, and whatever the init script started anyway is stopped afterwards.
#
# Idempotent: when both binaries are there it does nothing.
#
#   bash scripts/prometheus/setup.sh      prints the paths of promtool and prometheus
set -euo pipefail

export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
# shellcheck source=scripts/lib/apt-install.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../lib/apt-install.sh"
LOG=/tmp/shardlet-prometheus-apt.log

fail() {
  echo "prometheus/setup.sh: ERROR: $*" >&2
  exit 1
}

if command -v promtool >/dev/null && command -v prometheus >/dev/null; then
  command -v promtool prometheus
  exit 0
fi

[ "$(id -u)" = 0 ] || fail "must run as root (it installs a Debian package)"
[ -r /etc/debian_version ] || fail "expects Debian 12 (apt-get)"

# One install at a time: several test files may call this at once.
exec 9>/tmp/shardlet-prometheus-setup.lock
flock -w 900 9 || fail "timed out waiting for another prometheus/setup.sh"
if command -v promtool >/dev/null && command -v prometheus >/dev/null; then
  command -v promtool prometheus
  exit 0
fi

apt_rc=0
# Another apt-get (the containerd setup) may hold dpkg's lock: the helper waits for it.
apt_install_without_daemons "$LOG" prometheus || apt_rc=$?
if [ "$apt_rc" != 0 ]; then
  tail -n 30 "$LOG" >&2
  fail "apt-get install prometheus failed (full log: $LOG)"
fi

# A policy-rc.d another script removed mid-install would have let the daemon start.
if [ -x /etc/init.d/prometheus ]; then
  /etc/init.d/prometheus stop >/dev/null 2>&1 || true
fi

command -v promtool prometheus || fail "the prometheus package installed no promtool/prometheus binary"
