// Log directories of pods whose content may go, removed by the node-wide container GC
// pass, as upstream's evictPodLogsDirectories: a pod's own removal takes its directory
// (<podLogsDir>/<namespace>_<name>_<uid>) with it, but a pod removed while the kubelet
// was down, or left behind when it stopped, keeps its directory for good otherwise.
import { readdir, rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import { joinPathSegment } from '../../shared/safe-path.js';
import type { PodGcState } from '../../shared/kuberuntime/container-gc-policy.js';

/** The pod UID of a pod log directory: the part after the last '_', as upstream's parsePodUIDFromLogsDirectory. */
export function podUidOfLogsDirectory(name: string): string | undefined {
  const separator = name.lastIndexOf('_');
  return separator > 0 && separator < name.length - 1 ? name.slice(separator + 1) : undefined;
}

/** Removes the directories of pods whose standing is 'gone'; resolves with the UIDs removed. */
export async function evictPodLogsDirectories(podLogsDir: string, podState: (uid: string) => PodGcState, logger: Logger): Promise<string[]> {
  const entries = await readdir(podLogsDir, { withFileTypes: true }).catch(() => []);
  const removed: string[] = [];
  for (const entry of entries) {
    const uid = entry.isDirectory() ? podUidOfLogsDirectory(entry.name) : undefined;
    if (!uid || podState(uid) !== 'gone') continue;
    const path = joinPathSegment(podLogsDir, 'pod log directory name', entry.name);
    try {
      await rm(path, { recursive: true, force: true });
      removed.push(uid);
    } catch (err) {
      logger.warn({ path, err: (err as Error).message }, 'Failed to remove the log directory of a gone pod');
    }
  }
  if (removed.length > 0) logger.info({ removed: removed.length }, 'Removed log directories of pods that are gone');
  return removed;
}
