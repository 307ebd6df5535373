// Cluster mode on real containerd, brought up by scripts/containerd/setup.sh. Needs root.
import { describe } from 'node:test';
import { ensureContainerd } from '../../src/tools/containerd-env.js';
import { clusterScenarios } from './cluster-scenarios.js';

describe('cluster mode on containerd', () => {
  clusterScenarios(async () => {
    const containerd = ensureContainerd();
    return { name: 'containerd', endpoint: containerd.endpoint, image: containerd.busyboxImage, realProcesses: true };
  });
});
