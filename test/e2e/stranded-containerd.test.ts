// Pods with never-started containers, left in real containerd 1.6 through the CRI
// (scripts/containerd/setup.sh brings it up; needs root).
import { describe } from 'node:test';
import { ensureContainerd } from '../../src/tools/containerd-env.js';
import { strandedScenarios } from './stranded-scenarios.js';

describe('never-started containers on containerd', () => {
  strandedScenarios(async () => {
    const containerd = ensureContainerd();
    return { name: 'containerd', endpoint: containerd.endpoint, image: containerd.busyboxImage, realProcesses: true };
  });
});
