// The standalone scenarios against real containerd, brought up by the project's
// own script (scripts/containerd/setup.sh: containerd, runc, CNI bridge, local
// registry with busybox and pause images, on a private socket). Needs root.
import { describe } from 'node:test';
import { ensureContainerd } from '../../src/tools/containerd-env.js';
import { standaloneScenarios } from './scenarios.js';

describe('standalone shardlet on containerd', () => {
  standaloneScenarios(async () => {
    const containerd = ensureContainerd();
    return { name: 'containerd', endpoint: containerd.endpoint, image: containerd.busyboxImage, realProcesses: true };
  }, 2);
});
