// runAsNonRoot against the image's user, on real containerd (scripts/containerd):
// the local registry's busybox names no user (root) and busybox-nonroot runs as
// 65534 (build-images.sh). containerd reports an image's user in ImageStatus as a
// real kubelet reads it, and `id -u` inside the running containers shows who they
// run as. Needs root; run under the shared containerd lock.
import { describe } from 'node:test';
import { ensureContainerd } from '../../src/tools/containerd-env.js';
import { runAsNonRootScenarios } from './run-as-non-root-scenarios.js';

/** The uid build-images.sh gives the busybox-nonroot image (nobody). */
const NONROOT_UID = 65534;

describe('attack: runAsNonRoot with a root image, containerd', () => {
  runAsNonRootScenarios(async () => {
    const containerd = ensureContainerd();
    return {
      name: 'containerd',
      endpoint: containerd.endpoint,
      rootImage: containerd.busyboxImage,
      nonRootImage: { image: containerd.nonRootImage, uid: NONROOT_UID },
      realProcesses: true,
    };
  });
});
