#!/usr/bin/env bash
# Builds shardlet's test images from Debian's busybox-static with umoci and pushes
# the ones the local plain-http registry lacks with skopeo (an image already there
# keeps its digest). Called by setup.sh:
#   build-images.sh WORKDIR BUSYBOX_REF BUSYBOX_LATEST_REF PAUSE_REF NONROOT_REF
set -euxo pipefail

work="$1" busybox_ref="$2" busybox_latest_ref="$3" pause_ref="$4" nonroot_ref="$5"
BUSYBOX_BIN=/bin/busybox

rm -rf "$work"
mkdir -p "$work"
umoci init --layout "$work/oci"

# busybox: /bin/busybox, one symlink per applet (what `busybox --install -s` makes),
# passwd/group, sticky /tmp.
umoci new --image "$work/oci:busybox"
umoci unpack --image "$work/oci:busybox" "$work/busybox"
rootfs="$work/busybox/rootfs"
mkdir -p "$rootfs"/{bin,sbin,usr/bin,usr/sbin,etc,root,tmp,var/tmp,home,proc,sys,dev}
install -m 0755 "$BUSYBOX_BIN" "$rootfs/bin/busybox"
set +x
while read -r applet; do
  if [ -z "$applet" ] || [ "$applet" = bin/busybox ]; then continue; fi
  mkdir -p "$rootfs/$(dirname "$applet")"
  [ -e "$rootfs/$applet" ] || ln -s /bin/busybox "$rootfs/$applet"
done < <("$BUSYBOX_BIN" --list-full)
set -x
chmod 1777 "$rootfs/tmp" "$rootfs/var/tmp"
chmod 0700 "$rootfs/root"
printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'daemon:x:1:1:daemon:/usr/sbin:/bin/false' \
  'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' > "$rootfs/etc/passwd"
printf '%s\n' 'root:x:0:' 'daemon:x:1:' 'nogroup:x:65534:' > "$rootfs/etc/group"
umoci repack --image "$work/oci:busybox" "$work/busybox"
umoci config --image "$work/oci:busybox" --author shardlet \
  --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --config.workingdir / --config.cmd sh

# busybox-nonroot: the same busybox whose config names a numeric non-root user
# (nobody), which runAsNonRoot admits without a runAsUser.
umoci config --image "$work/oci:busybox" --tag busybox-nonroot --author shardlet --config.user 65534:65534

# pause: busybox with sh and sleep only. It is PID 1 of the pod and sleeps until
# SIGTERM or SIGINT; the trap is what makes PID 1 honour them (exit 0).
umoci new --image "$work/oci:pause"
umoci unpack --image "$work/oci:pause" "$work/pause"
rootfs="$work/pause/rootfs"
mkdir -p "$rootfs"/{bin,etc,tmp,proc,sys,dev}
install -m 0755 "$BUSYBOX_BIN" "$rootfs/bin/busybox"
ln -s busybox "$rootfs/bin/sh"
ln -s busybox "$rootfs/bin/sleep"
chmod 1777 "$rootfs/tmp"
printf '%s\n' 'root:x:0:0:root:/:/bin/sh' 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' > "$rootfs/etc/passwd"
printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' > "$rootfs/etc/group"
umoci repack --image "$work/oci:pause" "$work/pause"
umoci config --image "$work/oci:pause" --author shardlet \
  --config.env PATH=/bin --config.workingdir / \
  --config.entrypoint /bin/sh --config.entrypoint -c \
  --config.entrypoint 'trap "exit 0" TERM INT; while :; do sleep 2147483647 & wait $!; done'

# skopeo's default /etc/containers/policy.json comes from a package we don't need.
push() {
  if skopeo inspect --raw --tls-verify=false "docker://$2" >/dev/null 2>&1; then return 0; fi
  skopeo --insecure-policy copy --dest-tls-verify=false "oci:$work/oci:$1" "docker://$2"
}
push busybox "$busybox_ref"
push busybox "$busybox_latest_ref"
push pause "$pause_ref"
push busybox-nonroot "$nonroot_ref"
rm -rf "$work"
