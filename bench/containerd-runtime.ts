// The bench against real containerd: the one scripts/containerd/setup.sh brings up,
// with busybox from the local registry.
import { ensureContainerd } from '../src/tools/containerd-env.js';
import type { BenchRuntime } from './scenario.js';

export async function containerdRuntime(): Promise<BenchRuntime> {
  const containerd = ensureContainerd('ignore');
  return {
    name: 'containerd',
    endpoint: containerd.endpoint,
    imageFor: () => containerd.busyboxImage,
    close: async () => undefined,
    cleanUpPods: true,
  };
}
