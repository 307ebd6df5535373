// Rotation of running containers' log files, as upstream's ContainerLogManager:
// every containerLogMonitorInterval, list the running containers, and rotate each
// log file over containerLogMaxSize (log-rotation.ts), at most
// containerLogMaxWorkers at a time, for the containers of the pods this kubelet runs. It runs on the main thread over the kubelet
// API's CRI channel: per round one ListContainers (filtered to running) and a
// stat per container. The log path of a container this kubelet made is where it
// told the runtime to write (log-paths.ts, from the container's labels and restart
// count annotation); ContainerStatus is asked, once per container, only for a
// container without those or whose file is not there (made with another
// podLogsDir). Compression runs in libuv's pool, not on the main thread.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { CriClient } from '../../shared/cri/client.js';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import type { ContainerLean } from '../../shared/cri/types.js';
import {
  CONTAINER_NAME_LABEL,
  CONTAINER_RESTART_COUNT_ANNOTATION,
  POD_NAME_LABEL,
  POD_NAMESPACE_LABEL,
  POD_UID_LABEL,
} from '../../shared/labels.js';
import { containerLogPath, podLogsDirectory } from '../../workers/kuberuntime/log-paths.js';
import { rotateLog } from './log-rotation.js';

/** The settings, as KubeletOptions.containerLogs holds them. */
export interface ContainerLogSettings {
  maxSizeBytes: number;
  maxFiles: number;
  maxWorkers: number;
  monitorIntervalMs: number;
}

export interface ContainerLogManagerDeps {
  settings: ContainerLogSettings;
  /** The kubelet API's CRI channel; a round is skipped while it is not there. */
  cri(): CriClient | undefined;
  /**
   * Whether a pod (by UID) is one this kubelet runs. Upstream rotates every running
   * container of the runtime; shardlet only its own pods', so that kubelets sharing
   * one containerd (tests, side-by-side runs) never rotate each other's logs.
   */
  ownsPod(uid: string): boolean;
  /** Where the kubelet puts pod logs (podLogsDir): the log path of its own containers is known without asking. */
  podLogsDir?: string;
  logger: Logger;
}

/** A container's log path, and whether the runtime said so (else it is where the kubelet asked for it). */
interface KnownLogPath {
  path: string;
  fromRuntime: boolean;
}

export class ContainerLogManager {
  private timer?: NodeJS.Timeout;
  private round?: Promise<void>;
  /** Log path per container ID; pruned to the running containers each round. */
  private readonly logPathById = new Map<string, KnownLogPath>();

  constructor(private readonly deps: ContainerLogManagerDeps) {}

  start(): void {
    this.timer = setInterval(() => {
      // A slow round (a big compression) is not overlapped by the next one.
      this.round ??= this.rotateLogs().finally(() => (this.round = undefined));
    }, this.deps.settings.monitorIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.round;
  }

  /** One monitoring round; errors of one container do not stop the others. */
  async rotateLogs(): Promise<void> {
    const cri = this.deps.cri();
    if (!cri) return;
    let ids: string[];
    try {
      const { containers } = await cri.listContainers({ filter: { state: { state: 'CONTAINER_RUNNING' } } });
      const owned = containers.filter((container) => this.deps.ownsPod(container.labels[POD_UID_LABEL] ?? ''));
      for (const container of owned) this.noteExpectedLogPath(container);
      ids = owned.map((container) => container.id);
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'Failed to list containers for log rotation');
      return;
    }
    const running = new Set(ids);
    for (const id of this.logPathById.keys()) if (!running.has(id)) this.logPathById.delete(id);
    const queue = [...ids];
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) await this.rotateIfLarge(cri, id);
    };
    await Promise.all(Array.from({ length: Math.max(1, this.deps.settings.maxWorkers) }, worker));
  }

  /** Where the kubelet asked the runtime to write the container's log, when its labels tell (kept until it leaves). */
  private noteExpectedLogPath(container: ContainerLean): void {
    const { podLogsDir } = this.deps;
    if (!podLogsDir || this.logPathById.has(container.id)) return;
    const labels = container.labels ?? {};
    const restartCount = Number((container.annotations ?? {})[CONTAINER_RESTART_COUNT_ANNOTATION]);
    const [namespace, name, uid, containerName] = [POD_NAMESPACE_LABEL, POD_NAME_LABEL, POD_UID_LABEL, CONTAINER_NAME_LABEL].map((key) => labels[key]);
    if (!namespace || !name || !uid || !containerName || !Number.isInteger(restartCount) || restartCount < 0) return;
    try {
      // As the kubelet built it: the sandbox's log directory joined with the container's log_path.
      const path = join(podLogsDirectory(podLogsDir, namespace, name, uid), containerLogPath(containerName, restartCount));
      this.logPathById.set(container.id, { path, fromRuntime: false });
    } catch {
      // A name that is no plain path segment: the runtime says where its log is.
    }
  }

  private async logPathOf(cri: CriClient, id: string): Promise<string> {
    const path = (await cri.containerStatus({ container_id: id })).status?.log_path ?? '';
    this.logPathById.set(id, { path, fromRuntime: true });
    return path;
  }

  private async rotateIfLarge(cri: CriClient, id: string): Promise<void> {
    const { logger, settings } = this.deps;
    try {
      const known = this.logPathById.get(id);
      let logPath = known?.path ?? (await this.logPathOf(cri, id));
      if (!logPath) return;
      let size = await sizeOf(logPath);
      if (size === undefined && known && !known.fromRuntime) {
        // Not where this kubelet would have put it (another podLogsDir): the runtime knows.
        logPath = await this.logPathOf(cri, id);
        if (!logPath) return;
        size = await sizeOf(logPath);
      }
      if (size === undefined) {
        // The live file is gone (a reopen that failed half-way): ask the runtime for a new one, as upstream does.
        await cri.reopenContainerLog({ container_id: id });
        return;
      }
      if (size < settings.maxSizeBytes) return;
      await rotateLog(logPath, { maxFiles: settings.maxFiles }, async () => {
        await cri.reopenContainerLog({ container_id: id });
      });
      logger.debug({ containerId: id, path: logPath, size }, 'Rotated container log');
    } catch (err) {
      const error = new ShardletError(ErrorCodes.LOG_ROTATION_FAILED, `failed to rotate log for container ${JSON.stringify(id)}: ${(err as Error).message}`, {
        containerId: id,
      });
      logger.warn({ code: error.code, containerId: id }, error.message);
    }
  }
}

/** The file's size; undefined when it is not there. */
function sizeOf(path: string): Promise<number | undefined> {
  return stat(path).then(
    (info) => info.size,
    () => undefined,
  );
}
