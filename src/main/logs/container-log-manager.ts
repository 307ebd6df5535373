// Rotation of running containers' log files, as upstream's ContainerLogManager:
// every containerLogMonitorInterval, list the running containers, and rotate each
// log file over containerLogMaxSize (log-rotation.ts), at most
// containerLogMaxWorkers at a time, for the containers of the pods this kubelet runs. It runs on the main thread over the kubelet
// API's CRI channel: per round one ListContainers (filtered to running) and a
// stat per container; ContainerStatus only once per container, for its log path,
// which never changes. Compression runs in libuv's pool, not on the main thread.
import { stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { CriClient } from '../../shared/cri/client.js';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { POD_UID_LABEL } from '../../shared/labels.js';
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
  logger: Logger;
}

export class ContainerLogManager {
  private timer?: NodeJS.Timeout;
  private round?: Promise<void>;
  /** Log path per container ID; pruned to the running containers each round. */
  private readonly logPathById = new Map<string, string>();

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
      ids = containers.filter((container) => this.deps.ownsPod(container.labels[POD_UID_LABEL] ?? '')).map((container) => container.id);
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

  private async rotateIfLarge(cri: CriClient, id: string): Promise<void> {
    const { logger, settings } = this.deps;
    try {
      let logPath = this.logPathById.get(id);
      if (logPath === undefined) {
        logPath = (await cri.containerStatus({ container_id: id })).status?.log_path ?? '';
        this.logPathById.set(id, logPath);
      }
      if (!logPath) return;
      const size = await stat(logPath).then(
        (info) => info.size,
        () => undefined,
      );
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
