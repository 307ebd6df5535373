// Graceful node shutdown, as upstream's nodeshutdown managerImpl (Linux): at start
// it makes sure logind lets the kubelet delay a shutdown for as long as the pods
// need (the InhibitDelayMaxSec drop-in and a reload), takes a delay inhibitor lock
// and watches logind's PrepareForShutdown. On `true` the node stops admitting pods
// and shows NotReady, the pods go down by priority group (shutdown-pod-killer.ts),
// each ending Failed with reason Terminated, and the lock is released so the
// shutdown goes on. On `false` (the shutdown was cancelled) the lock is taken again
// and pods are admitted again. When the watch ends (the bus went away) it starts
// over after a second, as upstream's dbusReconnectPeriod.
import type { Logger } from 'pino';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { formatGoDuration } from '../options/duration.js';
import type { Pod, PodStatus } from '../../shared/types.js';
import type { ShutdownGracePeriodByPodPriority } from '../options/kubelet-options.js';
import type { InhibitLock, LogindBus, ShutdownWatch } from './logind-bus.js';
import { groupByPriority, periodRequestedSeconds } from './shutdown-groups.js';
import { ShutdownPodKiller } from './shutdown-pod-killer.js';
import { KubeletTerminations } from '../status/kubelet-terminations.js';

/** Upstream's nodeShutdownReason and nodeShutdownMessage. */
export const NODE_SHUTDOWN_REASON = 'Terminated';
export const NODE_SHUTDOWN_MESSAGE = 'Pod was terminated in response to imminent node shutdown.';

/** Upstream's dbusReconnectPeriod. */
export const DBUS_RECONNECT_PERIOD_MS = 1_000;
/** logind reloads its configuration on SIGHUP in its own time: InhibitDelayMaxUSec is read again this often, */
const RELOAD_POLL_PERIOD_MS = 200;
/** ... for at most this long. */
export const RELOAD_WAIT_MS = 2_000;
const USEC_PER_SECOND = 1_000_000;
/** Upstream's nodeShutdownNotAdmittedReason and nodeShutdownNotAdmittedMessage. */
export const NODE_SHUTDOWN_NOT_ADMITTED_REASON = 'NodeShutdown';
export const NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE = 'Pod was rejected as the node is shutting down.';
/** kubeletevents.NodeShutdown, the node event's reason. */
const NODE_SHUTDOWN_EVENT_REASON = 'NodeShutdown';

export interface NodeShutdownHost {
  /** Pods to shut down: admitted and not yet terminated. */
  activePods(): Pod[];
  /** Terminates the pod with this grace period (the pod worker's kill). */
  kill(pod: Pod, gracePeriodSeconds: number): void;
  /** Sends the node's status now, so it shows NotReady at once (upstream's syncNodeStatus). */
  syncNodeStatus(): void;
  /** The pod's status is to be shown again through statusOf (it now carries the shutdown's verdict). */
  refreshStatus(pod: Pod): void;
  onNodeEvent(type: 'Normal', reason: string, message: string): void;
}

export interface NodeShutdownManagerOptions {
  /** Grace periods by pod priority, sorted from the lowest priority; never empty. */
  periods: ShutdownGracePeriodByPodPriority[];
  bus: LogindBus;
  logger: Logger;
  reconnectPeriodMs?: number;
  /** How long a reloaded logind gets to show the new InhibitDelayMaxUSec (RELOAD_WAIT_MS). */
  reloadWaitMs?: number;
}

export class NodeShutdownManager {
  /** Pods killed for the shutdown, and their verdict (status/kubelet-terminations.ts). */
  private readonly statuses = new KubeletTerminations();
  private host?: NodeShutdownHost;
  private killer?: ShutdownPodKiller;
  private shuttingDownNow = false;
  private lock?: InhibitLock;
  private watch?: ShutdownWatch;
  /** PrepareForShutdown signals are handled one at a time, in order, as upstream's event loop does. */
  private signals: Promise<void> = Promise.resolve();
  private reconnectTimer?: NodeJS.Timeout;
  /** True from a failed restart of the watch until the next good one: one warning per streak. */
  private reconnectFailing = false;
  private stopped = false;

  constructor(private readonly options: NodeShutdownManagerOptions) {}

  /** Upstream's Start; never throws: a node without logind, or a logind that refuses, only loses graceful shutdown. */
  async start(host: NodeShutdownHost): Promise<void> {
    const { bus, logger } = this.options;
    this.host = host;
    this.killer = new ShutdownPodKiller(host, logger);
    const requestedSeconds = periodRequestedSeconds(this.options.periods);
    try {
      const presence = await bus.presence();
      if (!presence.available) {
        logger.info(
          { code: ErrorCodes.NODE_SHUTDOWN_UNAVAILABLE, reason: presence.reason, shutdownGracePeriodRequested: `${requestedSeconds}s` },
          'Graceful node shutdown is unavailable: no systemd-logind on the system bus; pods will not be stopped before a shutdown',
        );
        return;
      }
      await this.watchShutdown();
      logger.info({ shutdownGracePeriodRequested: `${requestedSeconds}s`, groups: this.options.periods }, 'Graceful node shutdown: holding a delay inhibitor lock and watching for shutdown');
    } catch (err) {
      const code = err instanceof ShardletError ? err.code : ErrorCodes.NODE_SHUTDOWN_FAILED;
      logger.error({ code, err: (err as Error).message }, 'Failed to start node shutdown manager');
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const watch = this.watch;
    this.watch = undefined;
    await Promise.all([watch?.stop(), this.releaseLock()]);
  }

  /** Upstream's ShutdownStatus: the node is shutting down (Ready goes False). */
  shuttingDown(): boolean {
    return this.shuttingDownNow;
  }

  /** Upstream's Admit: no new pod while the node is shutting down; undefined admits. */
  admit(): { reason: string; message: string } | undefined {
    return this.shuttingDownNow ? { reason: NODE_SHUTDOWN_NOT_ADMITTED_REASON, message: NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE } : undefined;
  }

  /** A pod the shutdown killed shows it (Failed, Terminated); any other pod's status is as it is. */
  statusOf(uid: string, status: PodStatus): PodStatus {
    return this.statuses.overlay(uid, status);
  }

  /** The shutdown killed this pod: it is not finished for good (a static pod starts again after the reboot). */
  killedForShutdown(uid: string): boolean {
    return this.statuses.has(uid);
  }

  /** The pod worker finished with the pod (SyncTerminatedPod done). */
  podFinished(uid: string): void {
    this.killer?.podFinished(uid);
  }

  forget(uid: string): void {
    this.statuses.forget(uid);
  }

  /** Upstream's start(): the delay, the lock, then the watch. */
  private async watchShutdown(): Promise<void> {
    const { bus, logger } = this.options;
    await this.ensureInhibitDelay();
    this.holdLock(await bus.inhibitShutdown());
    try {
      const watch = await bus.monitorShutdown(
        (active) => this.enqueueSignal(active),
        (line) => logger.debug({ line: line.slice(0, 500) }, 'Shutdown manager ignored a bus message'),
      );
      this.watch = watch;
      void watch.ended.then((why) => this.onWatchEnded(watch, why));
    } catch (err) {
      await this.releaseLock();
      throw err;
    }
  }

  /** As upstream: raise logind's InhibitDelayMaxSec to the period requested when it is lower; fail if logind does not take it. */
  private async ensureInhibitDelay(): Promise<void> {
    const { bus, periods, logger } = this.options;
    const requestedSeconds = periodRequestedSeconds(periods);
    const currentUsec = await bus.inhibitDelayMaxUsec();
    if (requestedSeconds * USEC_PER_SECOND <= currentUsec) return;
    logger.info({ inhibitDelayMax: formatUsec(currentUsec), shutdownGracePeriodRequested: `${requestedSeconds}s` }, 'Raising logind InhibitDelayMaxSec through a drop-in');
    await bus.overrideInhibitDelay(requestedSeconds);
    await bus.reloadLogindConf();
    let updatedUsec = await bus.inhibitDelayMaxUsec();
    const reloadWaitMs = this.options.reloadWaitMs ?? RELOAD_WAIT_MS;
    for (let waitedMs = 0; updatedUsec < requestedSeconds * USEC_PER_SECOND && waitedMs < reloadWaitMs; waitedMs += RELOAD_POLL_PERIOD_MS) {
      await sleep(RELOAD_POLL_PERIOD_MS);
      updatedUsec = await bus.inhibitDelayMaxUsec();
    }
    if (updatedUsec < requestedSeconds * USEC_PER_SECOND) {
      throw new ShardletError(
        ErrorCodes.NODE_SHUTDOWN_FAILED,
        `node shutdown manager was unable to update logind InhibitDelayMaxSec to ${formatUsec(requestedSeconds * USEC_PER_SECOND)} (ShutdownGracePeriod), ` +
          `current value of InhibitDelayMaxSec (${formatUsec(updatedUsec)}) is less than requested ShutdownGracePeriod`,
      );
    }
  }

  private enqueueSignal(active: boolean): void {
    this.signals = this.signals.then(() => this.onPrepareForShutdown(active)).catch((err: unknown) => {
      this.options.logger.error({ code: ErrorCodes.NODE_SHUTDOWN_FAILED, err: (err as Error).message }, 'Shutdown manager failed handling a shutdown event');
    });
  }

  private async onPrepareForShutdown(active: boolean): Promise<void> {
    if (this.stopped) return;
    const { logger } = this.options;
    logger.info({ event: active ? 'shutdown' : 'cancel' }, 'Shutdown manager detected new shutdown event');
    this.host!.onNodeEvent('Normal', NODE_SHUTDOWN_EVENT_REASON, active ? 'Shutdown manager detected shutdown event' : 'Shutdown manager detected shutdown cancellation');
    this.shuttingDownNow = active;
    if (!active) {
      await this.acquireLockAgain();
      return;
    }
    this.host!.syncNodeStatus();
    await this.processShutdownEvent();
  }

  /** Upstream's processShutdownEvent: the pods by group, then the lock goes so the shutdown can proceed. */
  private async processShutdownEvent(): Promise<void> {
    const groups = groupByPriority(this.options.periods, this.host!.activePods());
    try {
      await this.killer!.killPods(groups, (pod) => {
        // As upstream's status function, applied as the pod starts terminating, not once it has stopped.
        this.statuses.record(pod.metadata?.uid ?? '', { reason: NODE_SHUTDOWN_REASON, message: NODE_SHUTDOWN_MESSAGE, keepSucceeded: true });
        this.host!.refreshStatus(pod);
      });
    } finally {
      await this.releaseLock();
      this.options.logger.info('Shutdown manager completed processing shutdown event, node will shutdown shortly');
    }
  }

  /** Upstream's acquireInhibitLock after a cancellation: a new lock first, then the old one (if any) goes. */
  private async acquireLockAgain(): Promise<void> {
    const previous = this.lock;
    this.lock = undefined;
    try {
      this.holdLock(await this.options.bus.inhibitShutdown());
    } finally {
      await previous?.release();
    }
  }

  private holdLock(lock: InhibitLock): void {
    this.lock = lock;
    void lock.lost.then((why) => {
      // Released on purpose, or replaced: nothing lost.
      if (this.lock !== lock || this.stopped) return;
      this.lock = undefined;
      this.options.logger.warn({ code: ErrorCodes.NODE_SHUTDOWN_FAILED, why }, 'Shutdown inhibitor lock lost; starting over');
      void this.restartWatch();
    });
  }

  private async releaseLock(): Promise<void> {
    const lock = this.lock;
    this.lock = undefined;
    await lock?.release();
  }

  private onWatchEnded(watch: ShutdownWatch, why: string): void {
    if (this.watch !== watch || this.stopped) return;
    this.watch = undefined;
    this.options.logger.warn({ code: ErrorCodes.NODE_SHUTDOWN_FAILED, why }, 'Ended watching the node for shutdown events');
    void this.restartWatch();
  }

  /** Upstream's restart loop: after the reconnect period, the whole start again, until it works. */
  private async restartWatch(): Promise<void> {
    const watch = this.watch;
    this.watch = undefined;
    await Promise.all([watch?.stop(), this.releaseLock()]);
    if (this.stopped) return;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => void this.reconnect(), this.options.reconnectPeriodMs ?? DBUS_RECONNECT_PERIOD_MS);
  }

  private async reconnect(): Promise<void> {
    if (this.stopped) return;
    const { logger } = this.options;
    logger.debug('Restarting watch for node shutdown events');
    try {
      await this.watchShutdown();
      if (this.reconnectFailing) logger.info('Watching the node for shutdown events again');
      this.reconnectFailing = false;
    } catch (err) {
      const log = this.reconnectFailing ? logger.debug.bind(logger) : logger.warn.bind(logger);
      log({ code: ErrorCodes.NODE_SHUTDOWN_FAILED, err: (err as Error).message }, 'Unable to watch the node for shutdown events; retrying');
      this.reconnectFailing = true;
      await this.restartWatch();
    }
  }
}

/** Microseconds as Go prints a time.Duration ("5s", "1m30s"). */
function formatUsec(usec: number): string {
  return formatGoDuration(usec / 1_000);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
