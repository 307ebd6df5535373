// The standalone scenarios against real containerd, brought up by the project's
// own script (scripts/containerd/setup.sh: containerd, runc, CNI bridge, local
// registry with busybox and pause images, on a private socket). Needs root.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe } from 'node:test';
import { PACKAGE_ROOT } from '../helpers/kubelet-process.js';
import { standaloneScenarios, type RuntimeUnderTest } from './scenarios.js';

const SETUP_TIMEOUT_MS = 15 * 60_000;

/** Runs the setup script (idempotent: quick when containerd is already up) and reads its environment. */
export function containerdUnderTest(): RuntimeUnderTest {
  const script = join(PACKAGE_ROOT, 'scripts/containerd/setup.sh');
  execFileSync('bash', [script], { stdio: ['ignore', 'inherit', 'inherit'], timeout: SETUP_TIMEOUT_MS });
  const env = execFileSync('bash', ['-c', `source ${join(PACKAGE_ROOT, 'scripts/containerd/env.sh')} && env`], { encoding: 'utf8' });
  const read = (key: string) => env.split('\n').find((line) => line.startsWith(`${key}=`))?.slice(key.length + 1) ?? '';
  return {
    name: 'containerd',
    endpoint: `unix://${read('SHARDLET_CONTAINERD_SOCK')}`,
    image: read('SHARDLET_BUSYBOX_IMAGE'),
    realProcesses: true,
  };
}

describe('standalone shardlet on containerd', () => {
  standaloneScenarios(async () => containerdUnderTest(), 2);
});
