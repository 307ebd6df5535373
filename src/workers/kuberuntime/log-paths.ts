// Where container logs live, as upstream's BuildPodLogsDirectory,
// BuildContainerLogsDirectory and buildContainerLogsPath:
// <podLogsDir>/<namespace>_<name>_<uid>/<container>/<restartCount>.log, the last part
// given to the runtime relative to the sandbox's log directory.
import { join } from 'node:path';

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
