// Where container logs live, as upstream's BuildPodLogsDirectory,
// BuildContainerLogsDirectory and buildContainerLogsPath:
// <podLogsDir>/<namespace>_<name>_<uid>/<container>/<restartCount>.log, the last part
// given to the runtime relative to the sandbox's log directory. Namespace, name, UID
// and container name are the pod's, so each must be one plain segment
// (src/shared/safe-path.ts); the UID also may not hold the '_' that the log GC splits
// the directory name at, or one pod's directory would read as another's.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { checkPathSegment, joinPathSegment, pathUnsafeError } from '../../shared/safe-path.js';

/** `<restartCount>.log` and its rotated files (`<restartCount>.log.<timestamp>[.gz]`). */
const CONTAINER_LOG_FILE = /^(\d+)\.log(\..*)?$/;

export function podLogsDirectory(podLogsDir: string, namespace: string, name: string, uid: string): string {
  checkPathSegment('metadata.namespace', namespace);
  checkPathSegment('metadata.name', name);
  checkPathSegment('metadata.uid', uid);
  if (uid.includes('_')) throw pathUnsafeError('metadata.uid', uid, "must not contain '_' (the log GC reads the UID after the directory name's last '_')");
  return joinPathSegment(podLogsDir, 'pod log directory name', `${namespace}_${name}_${uid}`);
}

export function containerLogsDirectory(podLogsDirectoryPath: string, containerName: string): string {
  return joinPathSegment(podLogsDirectoryPath, 'container name', containerName);
}

/** The ContainerConfig.log_path: relative to PodSandboxConfig.log_directory. */
export function containerLogPath(containerName: string, restartCount: number): string {
  return join(checkPathSegment('container name', containerName), `${restartCount}.log`);
}

/**
 * The restart count of a container with no instance left in the runtime, read off
 * its log files: one more than the highest `<n>.log`, 0 with none. As upstream's
 * calcRestartCountByLogDir: a runtime that lost its containers (CRI-O after a reboot)
 * or a garbage collector that removed the last dead instance must not start the count again.
 */
export async function restartCountFromLogs(containerLogsDirectoryPath: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(containerLogsDirectoryPath);
  } catch {
    return 0;
  }
  let highest = -1;
  for (const name of names) {
    const match = CONTAINER_LOG_FILE.exec(name);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return highest + 1;
}
