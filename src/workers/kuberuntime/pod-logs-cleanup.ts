// Removing a pod's log directory (<podLogsDir>/<namespace>_<name>_<uid>) once the
// pod is gone from the runtime, as upstream's container GC does in
// evictPodLogsDirectories for pods whose content should be removed. Without it every
// pod ever run leaves a directory behind.
import { readdir, rm } from 'node:fs/promises';
import { joinPathSegment, unlessPathUnsafe } from '../../shared/safe-path.js';
import type { RuntimePodStatus } from '../../shared/runtime-pod.js';
import type { RuntimeDeps } from './runtime-deps.js';
import { podLogsDirectory } from './log-paths.js';

/** Removes the pod's log directory; an orphan whose name is unknown is found by the UID its directory ends with. */
export async function removePodLogsDirectory(deps: RuntimeDeps, pod: Pick<RuntimePodStatus, 'uid' | 'name' | 'namespace'>): Promise<void> {
  const root = deps.settings.podLogsDir;
  if (!pod.uid || !root) return;
  let paths: string[];
  if (pod.name && pod.namespace) {
    const path = unlessPathUnsafe(() => podLogsDirectory(root, pod.namespace, pod.name, pod.uid));
    // A pod whose names make no safe directory never had one made: its syncs were refused the same way.
    if (!path) return;
    paths = [path];
  } else {
    paths = await directoriesOfUid(root, pod.uid);
  }
  for (const path of paths) {
    try {
      await rm(path, { recursive: true, force: true });
    } catch (err) {
      // Logs are the operator's, not the pod's lifecycle: a failure is reported, never retried in a loop.
      deps.logger.warn({ path, err: (err as Error).message }, 'Failed to remove the pod log directory');
    }
  }
}

/** Upstream parses the UID from the directory name: the part after the last '_'. */
async function directoriesOfUid(root: string, uid: string): Promise<string[]> {
  try {
    return (await readdir(root)).filter((entry) => entry.endsWith(`_${uid}`)).map((entry) => joinPathSegment(root, 'pod log directory name', entry));
  } catch {
    return [];
  }
}
