// Dev tooling shared by the containerd tests and the bench: bring up the project's
// containerd (scripts/containerd/setup.sh, idempotent: quick when it is up) and read
// where it listens and which images it has (scripts/containerd/env.sh).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SETUP_TIMEOUT_MS = 15 * 60_000;

export interface ProjectContainerd {
  endpoint: string;
  busyboxImage: string;
}

export function ensureContainerd(setupOutput: 'inherit' | 'ignore' = 'inherit'): ProjectContainerd {
  const scripts = join(PACKAGE_ROOT, 'scripts/containerd');
  execFileSync('bash', [join(scripts, 'setup.sh')], { stdio: ['ignore', setupOutput, 'inherit'], timeout: SETUP_TIMEOUT_MS });
  const env = execFileSync('bash', ['-c', `source ${join(scripts, 'env.sh')} && env`], { encoding: 'utf8' });
  const read = (key: string) => env.split('\n').find((line) => line.startsWith(`${key}=`))?.slice(key.length + 1) ?? '';
  return { endpoint: `unix://${read('SHARDLET_CONTAINERD_SOCK')}`, busyboxImage: read('SHARDLET_BUSYBOX_IMAGE') };
}
