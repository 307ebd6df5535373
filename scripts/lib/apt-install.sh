# Sourced by the setup scripts. There is no systemd on these machines, so a package's
# init script would start its daemon with the packaged config (the docker-registry one
# on :5000, prometheus on :9090, the system bus); policy-rc.d answering 101 tells
# invoke-rc.d not to. One is put in place only for the install when none is there.
#
#   apt_install_without_daemons LOG PACKAGE...
# runs apt-get update and install (output to LOG; it waits up to 10 minutes for
# another script's apt-get holding dpkg's lock) and returns apt-get's exit status.
apt_install_without_daemons() {
  local log="$1" placed_policy=0 rc=0
  shift
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    placed_policy=1
  fi
  {
    apt-get update -q &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        -o DPkg::Lock::Timeout=600 \
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@"
  } > "$log" 2>&1 || rc=$?
  if [ "$placed_policy" = 1 ]; then
    rm -f /usr/sbin/policy-rc.d
  fi
  return "$rc"
}
