// Where container logs live, as upstream's BuildPodLogsDirectory,
// BuildContainerLogsDirectory and buildContainerLogsPath:
// <podLogsDir>/<namespace>_<name>_<uid>/<container>/<restartCount>.log, the last part
// given to the runtime relative to the sandbox's log directory.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** `<restartCount>.log` and its rotated files (`<restartCount>.log.<timestamp>[.gz]`). */
const CONTAINER_LOG_FILE = /^(\d+)\.log(\..*)?$/;

export function podLogsDirectory(podLogsDir: string, namespace: string, name: string, uid: string): string {
  return join(podLogsDir, `${namespace}_${name}_${uid}`);
}

export function containerLogsDirectory(podLogsDirectoryPath: string, containerName: string): string {
  return join(podLogsDirectoryPath, containerName);
}

/** The ContainerConfig.log_path: relative to PodSandboxConfig.log_directory. */
export function containerLogPath(containerName: string, restartCount: number): string {
  return join(containerName, `${restartCount}.log`);
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
