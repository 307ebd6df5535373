#!/usr/bin/env bash
# Brings up the real runtime for shardlet's containerd tests and bench, on Debian 12
# as root: containerd 1.6 (CRI v1) with runc and a CNI bridge, and a local registry
# on 127.0.0.1:5000 holding busybox (also with a non-root user) and pause images built
# from busybox-static.
#
# Idempotent: every step checks first and does nothing when its part is already up,
# so a second run takes about a second. Nothing here uses systemd (there is none on
# these machines): the registry and containerd run as our own background daemons
# with pid and log files under $SHARDLET_CONTAINERD_DIR.
#
#   bash scripts/containerd/setup.sh           bring everything up
#   bash scripts/containerd/setup.sh --smoke   ... then run a real pod through the CRI
#
# See scripts/containerd/README.md for the layout and the facts behind the config.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source-path=SCRIPTDIR
source "$HERE/env.sh"
# shellcheck source=scripts/lib/apt-install.sh
source "$HERE/../lib/apt-install.sh"

SMOKE=0
for arg in "$@"; do
  case "$arg" in
    --smoke) SMOKE=1 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

DIR="$SHARDLET_CONTAINERD_DIR"
SOCK="$SHARDLET_CONTAINERD_SOCK"
REG="$SHARDLET_REGISTRY"
BUSYBOX="$SHARDLET_BUSYBOX_IMAGE"
PAUSE="$SHARDLET_PAUSE_IMAGE"
BUSYBOX_LATEST="${BUSYBOX%:*}:latest"
NONROOT="$SHARDLET_NONROOT_IMAGE"
REG_DIR="$DIR/registry"
CNI_CONF_DIR="$DIR/cni/net.d"
CNI_BIN_DIR=/usr/lib/cni
CONFIG="$DIR/config.toml"
CTD_PID="$DIR/containerd.pid"
CTD_LOG="$DIR/containerd.log"
REG_PID="$REG_DIR/registry.pid"
REG_LOG="$REG_DIR/registry.log"
# The daemons and the CNI plugins they run (bridge, portmap -> iptables) need sbin.
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

T0=$(date +%s%N)
log() { printf '[containerd-setup %6.2fs] %s\n' "$(( ($(date +%s%N) - T0) / 1000000 ))e-3" "$*"; }
fail() {
  echo "setup.sh: ERROR: $*" >&2
  exit 1
}
# shellcheck disable=SC2154 # rc is assigned inside the trap
trap 'rc=$?; echo "setup.sh: ERROR: command failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2; exit $rc' ERR

[ "$(id -u)" = 0 ] || fail "must run as root (it installs Debian packages, mounts overlays and creates network namespaces)"
[ -r /etc/debian_version ] || fail "expects Debian 12 (apt-get, Debian's containerd/runc/CNI packages)"

# One setup at a time (test files running in parallel may each call this script).
mkdir -p "$DIR"
exec 9>"$DIR/.setup.lock"
if ! flock -n 9; then
  log "another setup.sh is running; waiting for it"
  flock -w 600 9 || fail "timed out waiting for another setup.sh (lock $DIR/.setup.lock)"
fi

# --- 1. Debian packages ---------------------------------------------------------
# containerd 1.6 + runc, CNI plugins in /usr/lib/cni, the registry, the image tools,
# busybox-static as the images' only binary, iproute2/iptables for the CNI plugins,
# curl to talk to the registry.
PKGS=(containerd runc containernetworking-plugins docker-registry umoci skopeo busybox-static iproute2 iptables curl ca-certificates)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  apt_rc=0
  apt_install_without_daemons /tmp/shardlet-containerd-apt.log "${missing[@]}" || apt_rc=$?
  if [ "$apt_rc" != 0 ]; then
    tail -n 30 /tmp/shardlet-containerd-apt.log >&2
    fail "apt-get install of ${missing[*]} failed (full log: /tmp/shardlet-containerd-apt.log)"
  fi
  log "packages installed"
fi
for b in containerd containerd-shim-runc-v2 ctr runc docker-registry umoci skopeo curl ip iptables; do
  command -v "$b" >/dev/null || fail "'$b' not found on PATH after installing the packages"
done
for b in bridge host-local portmap loopback; do
  [ -x "$CNI_BIN_DIR/$b" ] || fail "CNI plugin $CNI_BIN_DIR/$b missing (package containernetworking-plugins)"
done
BUSYBOX_BIN=/bin/busybox
[ -x "$BUSYBOX_BIN" ] || fail "$BUSYBOX_BIN missing (package busybox-static)"
ldd_out="$(ldd "$BUSYBOX_BIN" 2>&1 || true)"
[[ "$ldd_out" == *"not a dynamic executable"* ]] || fail "$BUSYBOX_BIN is not the static busybox (package busybox-static)"

# --- helpers ------------------------------------------------------------------
# A pid file's process is alive: exists and is not a zombie (PID 1 here, process_api,
# reaps orphans only every few seconds, so a killed daemon lingers as a zombie).
pid_alive() {
  local pid stat
  [ -s "$1" ] || return 1
  pid="$(cat "$1")"
  stat="$(ps -o stat= -p "$pid" 2>/dev/null)" || return 1
  [[ "$stat" != Z* ]]
}

# Start a daemon detached from us: own session, stdin from /dev/null, output to its
# log, and none of our other file descriptors (a CI runner waiting on a pipe we
# inherited must not wait for the daemon).
start_daemon() {
  local pidfile="$1" logfile="$2"
  shift 2
  (
    cd /
    for fd in /proc/"$BASHPID"/fd/*; do
      fd="${fd##*/}"
      if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || ulimit -n 1048576 2>/dev/null || true
    exec setsid "$@" </dev/null >>"$logfile" 2>&1
  ) &
  echo $! > "$pidfile"
}

# Write a file only when its content changed; returns 0 when it did change.
write_if_changed() {
  local path="$1" content="$2"
  if [ -f "$path" ] && [ "$(cat "$path")" == "$content" ]; then return 1; fi
  mkdir -p "$(dirname "$path")"
  printf '%s\n' "$content" > "$path.tmp"
  mv -f "$path.tmp" "$path"
  return 0
}

registry_up() { curl -fsS -m 2 -o /dev/null "http://$REG/v2/" 2>/dev/null; }
MANIFEST_ACCEPT='application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.list.v2+json'
registry_has() { # 127.0.0.1:5000/name:tag
  local ref="${1#"$REG"/}"
  curl -fsS -m 5 -o /dev/null -H "Accept: $MANIFEST_ACCEPT" "http://$REG/v2/${ref%:*}/manifests/${ref##*:}" 2>/dev/null
}

ctr_() { ctr --address "$SOCK" "$@"; }
containerd_up() { [ -S "$SOCK" ] && timeout 10 ctr --address "$SOCK" --connect-timeout 2s version >/dev/null 2>&1; }

mkdir -p "$DIR" "$REG_DIR/data" "$(dirname "$SOCK")" "$CNI_CONF_DIR" "$DIR/cni/ipam" "$DIR/certs.d/$REG" "$DIR/root" "$DIR/state"

# --- 2. the local registry ------------------------------------------------------
REG_CONFIG=$(cat <<EOF
# shardlet's local image registry (written by scripts/containerd/setup.sh)
version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
  fields:
    service: registry
storage:
  filesystem:
    rootdirectory: $REG_DIR/data
  delete:
    enabled: true
  cache:
    blobdescriptor: inmemory
http:
  addr: $REG
EOF
)
if write_if_changed "$REG_DIR/config.yml" "$REG_CONFIG" && pid_alive "$REG_PID"; then
  log "registry config changed; restarting our registry (pid $(cat "$REG_PID"))"
  kill "$(cat "$REG_PID")" 2>/dev/null || true
  for _ in $(seq 1 50); do pid_alive "$REG_PID" || break; sleep 0.1; done
fi
if ! registry_up; then
  if pid_alive "$REG_PID"; then
    log "registry process $(cat "$REG_PID") is not answering; restarting it"
    kill "$(cat "$REG_PID")" 2>/dev/null || true
    sleep 1
  fi
  if curl -sS -m 2 -o /dev/null "http://$REG/" 2>/dev/null; then
    fail "something that is not a registry answers on $REG; free the port or set SHARDLET_REGISTRY"
  fi
  log "starting docker-registry on $REG (log: $REG_LOG)"
  start_daemon "$REG_PID" "$REG_LOG" docker-registry serve "$REG_DIR/config.yml"
  for _ in $(seq 1 150); do
    registry_up && break
    pid_alive "$REG_PID" || { tail -n 20 "$REG_LOG" >&2; fail "docker-registry exited at start (log: $REG_LOG)"; }
    sleep 0.2
  done
  registry_up || { tail -n 20 "$REG_LOG" >&2; fail "docker-registry did not answer on http://$REG/v2/ within 30 s"; }
  log "registry up (pid $(cat "$REG_PID"))"
fi

# --- 3. the busybox and pause images ------------------------------------------
# Built with umoci from busybox-static, pushed with skopeo. Skipped when the registry
# already has them (its storage lives under $REG_DIR/data and survives restarts).
if ! registry_has "$BUSYBOX" || ! registry_has "$BUSYBOX_LATEST" || ! registry_has "$PAUSE" || ! registry_has "$NONROOT"; then
  log "building $BUSYBOX, $BUSYBOX_LATEST, $PAUSE and $NONROOT with umoci from busybox-static, pushing the missing ones with skopeo"
  bash "$HERE/build-images.sh" "$DIR/build" "$BUSYBOX" "$BUSYBOX_LATEST" "$PAUSE" "$NONROOT" > "$DIR/build.log" 2>&1 ||
    { tail -n 30 "$DIR/build.log" >&2; fail "image build/push failed (log: $DIR/build.log)"; }
  for img in "$BUSYBOX" "$BUSYBOX_LATEST" "$PAUSE" "$NONROOT"; do
    registry_has "$img" || fail "pushed $img but the registry does not list it"
  done
  log "images pushed"
fi

# --- 4. containerd config ----------------------------------------------------
# A private containerd: its own root, state, socket, CNI config and registry hosts,
# so it never touches (or is touched by) a system containerd on /run/containerd.
HOSTS_TOML=$(cat <<EOF
# $REG is the local plain-http registry started by setup.sh
server = "http://$REG"

[host."http://$REG"]
  capabilities = ["pull", "resolve", "push"]
  skip_verify = true
EOF
)
write_if_changed "$DIR/certs.d/$REG/hosts.toml" "$HOSTS_TOML" || true

# host-local keeps its leases under our dir, not /var/lib/cni. The CRI plugin sets
# up the pod's loopback itself (with $CNI_BIN_DIR/loopback), so the chain is for eth0.
CNI_CONFLIST=$(cat <<EOF
{
  "cniVersion": "1.0.0",
  "name": "shardlet",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni-shardlet0",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "10.88.0.0/16" }]],
        "routes": [{ "dst": "0.0.0.0/0" }],
        "dataDir": "$DIR/cni/ipam"
      }
    },
    {
      "type": "portmap",
      "capabilities": { "portMappings": true }
    }
  ]
}
EOF
)
write_if_changed "$CNI_CONF_DIR/10-shardlet.conflist" "$CNI_CONFLIST" || true

CTD_CONFIG=$(cat <<EOF
# shardlet's private containerd (written by scripts/containerd/setup.sh)
version = 2
root = "$DIR/root"
state = "$DIR/state"
oom_score = 0

[grpc]
  address = "$SOCK"
  max_recv_message_size = 16777216
  max_send_message_size = 16777216

[ttrpc]
  address = ""

[debug]
  address = ""
  level = "info"

[metrics]
  address = ""

[plugins]
  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "$PAUSE"
    # The process has no CAP_SYS_RESOURCE on these machines: lowering a score is
    # EPERM ("write to /proc/self/oom_score_adj: Permission denied"). This clamps
    # every requested oom_score_adj to at least containerd's own.
    restrict_oom_score_adj = true
    # keep the pods' network namespaces under our state dir, not /var/run/netns
    netns_mounts_under_state_dir = true
    disable_apparmor = true
    enable_selinux = false
    disable_hugetlb_controller = true
    tolerate_missing_hugetlb_controller = true
    max_concurrent_downloads = 8
    stream_server_address = "127.0.0.1"
    stream_server_port = "0"
    enable_unprivileged_ports = false
    enable_unprivileged_icmp = false
    [plugins."io.containerd.grpc.v1.cri".containerd]
      snapshotter = "overlayfs"
      default_runtime_name = "runc"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
          BinaryName = "/usr/sbin/runc"
          # no systemd on these machines: runc manages cgroupfs directly
          SystemdCgroup = false
    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "$CNI_BIN_DIR"
      conf_dir = "$CNI_CONF_DIR"
      max_conf_num = 1
    [plugins."io.containerd.grpc.v1.cri".registry]
      config_path = "$DIR/certs.d"
EOF
)
config_changed=0
write_if_changed "$CONFIG" "$CTD_CONFIG" && config_changed=1

# --- 5. containerd ------------------------------------------------------------
stop_our_containerd() {
  local pid
  pid="$(cat "$CTD_PID")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do pid_alive "$CTD_PID" || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  sleep 0.2
}
if [ "$config_changed" = 1 ] && containerd_up && pid_alive "$CTD_PID"; then
  log "containerd config changed; restarting our containerd (pid $(cat "$CTD_PID"))"
  stop_our_containerd
fi
if ! containerd_up; then
  if pid_alive "$CTD_PID"; then
    # started but not answering yet (another setup.sh racing, or a slow start): wait
    for _ in $(seq 1 50); do containerd_up && break; pid_alive "$CTD_PID" || break; sleep 0.2; done
    if ! containerd_up; then
      log "containerd pid $(cat "$CTD_PID") is not answering on $SOCK; restarting it"
      stop_our_containerd
    fi
  fi
fi
if ! containerd_up; then
  [ -S "$SOCK" ] && rm -f "$SOCK"
  case "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" in
    cgroup2fs) cg=v2 ;;
    tmpfs) if [ -d /sys/fs/cgroup/unified ]; then cg="hybrid (v1 controllers, v2 at /sys/fs/cgroup/unified)"; else cg=v1; fi ;;
    *) cg=unknown ;;
  esac
  log "starting containerd $(containerd --version | awk '{print $3}') on $SOCK, cgroups $cg (log: $CTD_LOG)"
  start_daemon "$CTD_PID" "$CTD_LOG" containerd --config "$CONFIG"
  for _ in $(seq 1 300); do
    containerd_up && break
    pid_alive "$CTD_PID" || { tail -n 30 "$CTD_LOG" >&2; fail "containerd exited at start (log: $CTD_LOG)"; }
    sleep 0.2
  done
  containerd_up || { tail -n 30 "$CTD_LOG" >&2; fail "containerd did not answer on $SOCK within 60 s (log: $CTD_LOG)"; }
  log "containerd up (pid $(cat "$CTD_PID"))"
fi

# The CRI plugin loads after the socket answers; it reports ok or error.
cri_state=""
for _ in $(seq 1 100); do
  cri_state="$(ctr_ plugins ls 2>/dev/null | awk '$1 == "io.containerd.grpc.v1" && $2 == "cri" {print $NF}')"
  [ -n "$cri_state" ] && break
  sleep 0.1
done
if [ "$cri_state" != ok ]; then
  grep -i -E 'cri|error' "$CTD_LOG" 2>/dev/null | tail -n 20 >&2 || true
  fail "containerd's CRI plugin state is '${cri_state:-missing}', not ok (log: $CTD_LOG)"
fi

# --- 6. pre-pull the images into the CRI's namespace ------------------------------
for img in "$PAUSE" "$BUSYBOX" "$BUSYBOX_LATEST" "$NONROOT"; do
  if ! ctr_ -n k8s.io images ls -q "name==$img" 2>/dev/null | grep -qxF "$img"; then
    log "pulling $img into containerd (namespace k8s.io)"
    out=$(ctr_ -n k8s.io images pull --plain-http "$img" 2>&1) || { echo "$out" >&2; fail "ctr images pull $img failed"; }
  fi
done

# --- 7. a CRI round trip (needs the project's node_modules) ------------------------
CHECK="$HERE/cri-check.mjs"
if [ "${SHARDLET_CRI_CHECK:-1}" != 0 ] && command -v node >/dev/null &&
   [ -d "$ROOT/node_modules/@grpc/grpc-js" ] && [ -d "$ROOT/node_modules/@grpc/proto-loader" ]; then
  node "$CHECK" status || fail "CRI status check against $SOCK failed"
  if [ "$SMOKE" = 1 ]; then
    log "smoke test: a real pod through the CRI"
    node "$CHECK" smoke || fail "CRI smoke test failed"
  fi
else
  log "skipping the CRI round trip (SHARDLET_CRI_CHECK=0, or no node / node_modules/@grpc: run npm ci first)"
  [ "$SMOKE" = 1 ] && fail "--smoke needs node and the project's node_modules (npm ci)"
fi

log "ready"
cat <<EOF
  containerd socket:  $SOCK   (endpoint $SHARDLET_CONTAINERD_ENDPOINT, pid $(cat "$CTD_PID" 2>/dev/null || echo '?'))
  registry:           http://$REG   (pid $(cat "$REG_PID" 2>/dev/null || echo '?'))
  images:             $BUSYBOX  $BUSYBOX_LATEST  $PAUSE  $NONROOT
  state and logs:     $DIR
  use:                source scripts/containerd/env.sh
EOF
