# shellcheck shell=bash
# Sourced by setup.sh, teardown.sh, tests and the bench: where the project's own
# containerd, its socket and the local registry's images are. Every value can be
# overridden by exporting it before sourcing this file.

export SHARDLET_CONTAINERD_DIR="${SHARDLET_CONTAINERD_DIR:-/var/lib/shardlet-ci/containerd}"
export SHARDLET_CONTAINERD_SOCK="${SHARDLET_CONTAINERD_SOCK:-/run/shardlet-ci/containerd.sock}"
# The same socket as a gRPC / --container-runtime-endpoint address.
export SHARDLET_CONTAINERD_ENDPOINT="unix://${SHARDLET_CONTAINERD_SOCK}"
export SHARDLET_REGISTRY="${SHARDLET_REGISTRY:-127.0.0.1:5000}"
export SHARDLET_BUSYBOX_IMAGE="${SHARDLET_BUSYBOX_IMAGE:-${SHARDLET_REGISTRY}/busybox:1.35}"
export SHARDLET_PAUSE_IMAGE="${SHARDLET_PAUSE_IMAGE:-${SHARDLET_REGISTRY}/pause:3.9}"
# busybox whose image config names a numeric non-root user (65534), for runAsNonRoot.
export SHARDLET_NONROOT_IMAGE="${SHARDLET_NONROOT_IMAGE:-${SHARDLET_REGISTRY}/busybox-nonroot:1.35}"
