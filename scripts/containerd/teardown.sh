#!/usr/bin/env bash
# Stops what scripts/containerd/setup.sh started: removes every pod sandbox and
# container through the CRI, then stops our containerd and the local registry.
# Installed packages, images and the registry's storage stay, so the next setup.sh
# is quick.
#
#   bash scripts/containerd/teardown.sh           stop everything
#   bash scripts/containerd/teardown.sh --purge   ... and delete $SHARDLET_CONTAINERD_DIR too
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source-path=SCRIPTDIR
source "$HERE/env.sh"
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

PURGE=0
for arg in "$@"; do
  case "$arg" in
    --purge) PURGE=1 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "teardown.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

DIR="$SHARDLET_CONTAINERD_DIR"
SOCK="$SHARDLET_CONTAINERD_SOCK"
CTD_PID="$DIR/containerd.pid"
REG_PID="$DIR/registry/registry.pid"
log() { echo "[containerd-teardown] $*"; }
[ "$(id -u)" = 0 ] || { echo "teardown.sh: must run as root" >&2; exit 1; }

containerd_up() { [ -S "$SOCK" ] && timeout 10 ctr --address "$SOCK" --connect-timeout 2s version >/dev/null 2>&1; }

# alive and not a zombie (PID 1 here reaps orphans only every few seconds)
alive() { local stat; stat="$(ps -o stat= -p "$1" 2>/dev/null)" && [[ "$stat" != Z* ]]; }

stop_pid() { # pidfile name
  local pidfile="$1" name="$2" pid
  [ -s "$pidfile" ] || return 0
  pid="$(cat "$pidfile")"
  if alive "$pid"; then
    log "stopping $name (pid $pid)"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then
      log "$name did not stop in 10 s; killing it"
      kill -9 "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$pidfile"
}

# 1. pods and containers, while containerd still runs
if containerd_up; then
  if [ "${SHARDLET_CRI_CHECK:-1}" != 0 ] && command -v node >/dev/null && [ -d "$ROOT/node_modules/@grpc/grpc-js" ]; then
    node "$HERE/cri-check.mjs" cleanup || log "CRI cleanup failed; falling back to ctr"
  fi
  # anything left (no node_modules, or the CRI cleanup failed): kill and delete by ctr
  for ns in $(ctr --address "$SOCK" namespaces ls -q 2>/dev/null); do
    for t in $(ctr --address "$SOCK" -n "$ns" tasks ls -q 2>/dev/null); do
      ctr --address "$SOCK" -n "$ns" tasks kill -s SIGKILL "$t" >/dev/null 2>&1 || true
    done
    for t in $(ctr --address "$SOCK" -n "$ns" tasks ls -q 2>/dev/null); do
      ctr --address "$SOCK" -n "$ns" tasks delete -f "$t" >/dev/null 2>&1 || true
    done
    for c in $(ctr --address "$SOCK" -n "$ns" containers ls -q 2>/dev/null); do
      log "removing leftover container $ns/$c"
      ctr --address "$SOCK" -n "$ns" containers rm "$c" >/dev/null 2>&1 || true
    done
  done
elif [ -S "$SOCK" ]; then
  log "nothing answers on $SOCK"
fi

# 2. containerd (only the one setup.sh started: its pid file)
if [ -s "$CTD_PID" ]; then
  stop_pid "$CTD_PID" containerd
elif containerd_up; then
  log "a containerd answers on $SOCK but was not started by setup.sh (no $CTD_PID); leaving it"
fi
if ! containerd_up; then rm -f "$SOCK" "$SOCK.ttrpc"; fi

# shims of our containerd that outlived it (their command line names our socket)
for p in /proc/[0-9]*; do
  cmd="$(tr '\0' ' ' < "$p/cmdline" 2>/dev/null)" || continue
  case "$cmd" in
    *containerd-shim*" -address $SOCK "*)
      log "killing leftover shim ${p#/proc/}"
      kill -9 "${p#/proc/}" 2>/dev/null || true ;;
  esac
done

# mounts left under our dir (rootfs overlays, netns) once containerd is gone
if [ ! -s "$CTD_PID" ]; then
  awk -v d="$DIR/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo | sort -r | while read -r m; do
    if umount -l "$m" 2>/dev/null; then log "unmounted $m"; fi
  done
fi

# host-local's leases: every pod is gone now, so are the addresses they held
if [ ! -s "$CTD_PID" ] && [ -d "$DIR/cni/ipam" ]; then
  find "$DIR/cni/ipam" -mindepth 2 -maxdepth 2 -type f -name '[0-9]*' -delete
fi

# empty pod cgroups under kubepods: runc creates a sandbox's missing cgroup parents
# (/kubepods/<qos>/pod<uid>) but never removes them. rmdir only takes empty ones.
if [ ! -s "$CTD_PID" ]; then
  for d in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
    [ -d "$d" ] || continue
    find "$d" -mindepth 1 -depth -type d -name 'pod*' -exec rmdir {} + 2>/dev/null || true
  done
fi

# the CNI bridge (made by the bridge plugin on the first pod)
if ip link show cni-shardlet0 >/dev/null 2>&1; then
  ip link delete cni-shardlet0 && log "deleted bridge cni-shardlet0"
fi

# 3. the registry
stop_pid "$REG_PID" docker-registry

if [ "$PURGE" = 1 ]; then
  log "deleting $DIR"
  rm -rf "$DIR"
fi
log "done"
