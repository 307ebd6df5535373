// Dev tooling shared by the containerd tests and the bench: bring up the project's
// containerd (scripts/containerd/setup.sh, idempotent: quick when it is up) and read
// where it listens and which images it has (scripts/containerd/env.sh).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SETUP_TIMEOUT_MS = 15 * 60_000;

export interface ProjectContainerd {
  endpoint: string;
  busyboxImage: string;
  /** busybox whose image config names a numeric non-root user (65534), for runAsNonRoot. */
  nonRootImage: string;
  /** Where setup.sh keeps containerd's pid file, config and state. */
  stateDir: string;
}

const KILL_WAIT_MS = 10_000;

export function ensureContainerd(setupOutput: 'inherit' | 'ignore' = 'inherit'): ProjectContainerd {
  const scripts = join(PACKAGE_ROOT, 'scripts/containerd');
  execFileSync('bash', [join(scripts, 'setup.sh')], { stdio: ['ignore', setupOutput, 'inherit'], timeout: SETUP_TIMEOUT_MS });
  const env = execFileSync('bash', ['-c', `source ${join(scripts, 'env.sh')} && env`], { encoding: 'utf8' });
  const read = (key: string) => env.split('\n').find((line) => line.startsWith(`${key}=`))?.slice(key.length + 1) ?? '';
  return {
    endpoint: `unix://${read('SHARDLET_CONTAINERD_SOCK')}`,
    busyboxImage: read('SHARDLET_BUSYBOX_IMAGE'),
    nonRootImage: read('SHARDLET_NONROOT_IMAGE'),
    stateDir: read('SHARDLET_CONTAINERD_DIR'),
  };
}

/**
 * SIGKILLs the containerd setup.sh started (its pid file; never anything found by
 * name), as a crash would, and resolves once it is gone; its shims and their
 * containers keep running. ensureContainerd() brings it back.
 */
export async function killContainerd(containerd: ProjectContainerd): Promise<void> {
  const pid = Number(readFileSync(join(containerd.stateDir, 'containerd.pid'), 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 1) throw new Error(`no containerd pid in ${containerd.stateDir}/containerd.pid`);
  process.kill(pid, 'SIGKILL');
  const deadline = Date.now() + KILL_WAIT_MS;
  while (processAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`containerd (pid ${pid}) still alive ${KILL_WAIT_MS} ms after SIGKILL`);
    await sleep(50);
  }
}

/** Alive and not a zombie: PID 1 on these machines reaps orphans only every few seconds. */
function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).charAt(0) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Ends the tasks of containers containerd 1.6 cannot remove over the CRI (a task left
 * CREATED by a StartContainer that was cancelled, while the CRI shows the container
 * EXITED), as an operator would with ctr; the kubelet's next removal then succeeds.
 * Resolves with the IDs whose task ctr ended.
 */
export function killLeakedTasks(containerd: ProjectContainerd, containerIds: string[]): string[] {
  const socket = containerd.endpoint.replace(/^unix:\/\//, '');
  return containerIds.filter((id) => {
    try {
      execFileSync('ctr', ['--address', socket, '--namespace', 'k8s.io', 'tasks', 'delete', '--force', id], { stdio: 'ignore', timeout: 10_000 });
      return true;
    } catch {
      return false;
    }
  });
}
