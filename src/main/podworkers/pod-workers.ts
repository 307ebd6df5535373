// Upstream's podWorkers, on the main thread: one state machine per pod UID that
// runs the pod's syncs strictly one at a time (per-pod FIFO), coalesces updates that
// arrive meanwhile to the latest spec, and walks SyncPod → SyncTerminatingPod →
// SyncTerminatedPod. The syncs themselves run on the pod's shard.
import type { Logger } from 'pino';
import { jitterMs, KUBELET_BACKOFF_PERIOD_MS } from '../../shared/backoff.js';
import type { PlegEvent, RuntimeObjectState, SyncKind, SyncPodRequest, SyncPodResult } from '../../shared/shard-protocol.js';
import { podFullName, type Pod, type PodStatus } from '../../shared/types.js';
import { isStaticPod } from '../../shared/pod-kinds.js';

/** Upstream's backOffPeriod: how long a pod waits after a failed sync. */
export const SYNC_ERROR_BACKOFF_MS = KUBELET_BACKOFF_PERIOD_MS;
/** Upstream's workerBackOffPeriodJitterFactor: the wait after a failed sync is 10–15 s. */
export const SYNC_ERROR_BACKOFF_JITTER = 0.5;
/**
 * Upstream's workerResyncIntervalJitterFactor: a resync comes up to 50 % after the
 * interval, so pods created together (a node start, a scaled deployment) spread out
 * instead of hitting the runtime in one burst every interval.
 */
export const RESYNC_JITTER = 0.5;
/** The sync tick's period: requeues due sooner than this get a timer of their own. */
const SYNC_TICK_GRANULARITY_MS = 1_000;
/** How soon a terminating pod whose containers are still running is looked at again. */
export const TERMINATING_RECHECK_MS = 1_000;
/**
 * How long a due resync waits for a relist to confirm the state its pod's last sync
 * left, before it reads the runtime instead (a PLEG that stopped relisting).
 */
export const RESYNC_RELIST_WAIT_MS = 5_000;
/** How soon a static pod waiting for its predecessor to terminate checks again. */
export const STATIC_POD_WAIT_MS = 500;

export type UpdateType = 'create' | 'update' | 'sync' | 'kill';
export type WorkPhase = 'syncing' | 'terminating' | 'terminated';

export interface UpdatePodOptions {
  type: UpdateType;
  pod: Pod;
  /** For kill: the grace period to give (pod deletion or removal). */
  gracePeriodSeconds?: number;
  /** For kill: the pod is gone from every source, so remove its runtime objects once stopped. */
  removeFromRuntime?: boolean;
}

interface PodWork {
  uid: string;
  pod: Pod;
  fullName: string;
  isStatic: boolean;
  phase: WorkPhase;
  gracePeriodSeconds?: number;
  removeFromRuntime: boolean;
  working: boolean;
  /** Another sync was asked for while one ran: run once more, with the latest spec. */
  pendingSync: boolean;
  dueAtMs: number;
  /** SyncTerminatedPod done: nothing more will run for this UID (unless a restart was asked for). */
  finished: boolean;
  /** When SyncTerminatedPod last completed (epoch ms); 0 until then. */
  finishedAtMs: number;
  /** A create arrived for this UID while it was terminating: start it afresh once it has finished. */
  restartRequested: boolean;
  /** The pod's sandboxes and containers as its last completed sync saw them, at its end and before it acted. */
  seenObjects: Record<string, RuntimeObjectState>;
  actedOnObjects: Record<string, RuntimeObjectState>;
  /** What the last sync removed itself (its dead-instance GC). */
  removedObjectIds: ReadonlySet<string>;
  /** PLEG events that came while a sync ran: judged against what that sync saw. */
  parkedEvents: PlegEvent[];
  /**
   * When the last sync's result came, if that sync succeeded and no PLEG news of the
   * pod came since: its shard keeps the runtime state it ended with, which stays true
   * until a relist says otherwise. 0 when the next sync must read the runtime.
   */
  runtimeKeptAtMs: number;
  /** The last sync asked for a requeue that may start from its state before any relist (SyncPodResult.requeueOnKeptState). */
  requeueOnKeptState: boolean;
}

/** Where the pod workers run syncs and report results; implemented by the kubelet. */
export interface PodSyncHost {
  runSync(request: SyncPodRequest): Promise<SyncPodResult>;
  previousStatus(uid: string): PodStatus | undefined;
  onSyncResult(pod: Pod, result: SyncPodResult, kind: SyncKind): void;
  onSyncFailed(pod: Pod, kind: SyncKind, err: unknown): void;
  /** A UID starts a new life after it terminated: what was kept of the old one (its status) is stale. */
  onPodRestart?(uid: string): void;
}

const TERMINAL_PHASES: ReadonlySet<string> = new Set(['Succeeded', 'Failed']);

export interface PodWorkersOptions {
  /** Source of the resync and backoff jitter, uniform in [0, 1): Math.random unless a test pins it. */
  random?: () => number;
  /** A pod's phase changed, or its state was dropped (phaseOf now says undefined): admission's counts follow it. */
  onPhaseChange?: (uid: string) => void;
}

export class PodWorkers {
  private readonly workByUid = new Map<string, PodWork>();
  /** The pods known under each namespace/name: a static pod's predecessors, found without a walk over every pod. */
  private readonly worksByFullName = new Map<string, Set<PodWork>>();
  private readonly random: () => number;
  private readonly onPhaseChange: (uid: string) => void;
  /** When the newest successful full relist began: a pod state kept from before then was checked by it. */
  private fullRelistStartedAtMs = 0;

  constructor(
    private readonly host: PodSyncHost,
    private readonly resyncIntervalMs: number,
    private readonly logger: Logger,
    options: PodWorkersOptions = {},
  ) {
    this.random = options.random ?? Math.random;
    this.onPhaseChange = options.onPhaseChange ?? (() => undefined);
  }

  /** Upstream's UpdatePod: record the latest spec and intent, and make sure a sync runs. */
  updatePod(options: UpdatePodOptions): void {
    const uid = options.pod.metadata?.uid ?? '';
    let work = this.workByUid.get(uid);
    const firstTime = !work;
    if (!work) {
      work = this.addWork(uid, options.pod);
      if (options.type !== 'kill') this.startFinishedPodTerminated(work);
    } else if (options.pod.spec || !work.pod.spec) {
      work.pod = options.pod;
    }
    if (options.type === 'kill') this.markTerminating(work, options);
    else if (options.type === 'create' && work.phase !== 'syncing' && !firstTime) this.requestRestart(work);
    work.dueAtMs = 0;
    this.dispatch(work);
  }

  /**
   * As upstream's restartRequested: a pod re-added with the same UID (a static pod
   * whose manifest pins metadata.uid) while its previous life is still terminating
   * starts again once that life has finished.
   */
  private requestRestart(work: PodWork): void {
    if (!work.finished) {
      work.restartRequested = true;
      return;
    }
    Object.assign(work, { finished: false, restartRequested: false, removeFromRuntime: false });
    work.gracePeriodSeconds = undefined;
    this.setPhase(work, 'syncing');
    this.host.onPodRestart?.(work.uid);
    this.logger.info({ pod: work.fullName, uid: work.uid }, 'Pod re-added after it terminated; starting it again');
  }

  /**
   * As upstream's UpdatePod for a pod synced for the first time whose status is
   * already terminal (a restart of the kubelet): the pod is finished and never runs
   * again, whatever the runtime still holds of it, so it goes straight to
   * termination instead of SyncPod. The status is the API server's for an API pod,
   * or the one the kubelet kept (the status cache, or the terminal record of a
   * static pod).
   */
  private startFinishedPodTerminated(work: PodWork): void {
    const phase = [this.host.previousStatus(work.uid)?.phase, work.pod.status?.phase].find((p) => p !== undefined && TERMINAL_PHASES.has(p));
    if (!phase) return;
    this.setPhase(work, 'terminating');
    this.logger.info({ pod: work.fullName, uid: work.uid, phase }, 'Pod already finished; its containers will not run again');
  }

  /** The 1 s tick: run every pod whose resync or backoff is due (a sync in flight sets the next due time when it ends). */
  syncDue(nowMs: number): void {
    for (const work of this.workByUid.values()) {
      if (!work.finished && !work.working && work.dueAtMs <= nowMs && !this.waitsForRelist(work, nowMs)) this.dispatch(work);
    }
  }

  /**
   * As upstream's pod worker, whose podCache.GetNewerThan blocks until a relist newer
   * than the last sync: a due resync of a pod whose last sync left its state waits
   * for the next relist (a tick or two) rather than read the runtime, for a while.
   */
  private waitsForRelist(work: PodWork, nowMs: number): boolean {
    if (work.phase !== 'syncing' || work.runtimeKeptAtMs === 0 || this.runtimeUnchanged(work)) return false;
    return nowMs < work.dueAtMs + RESYNC_RELIST_WAIT_MS;
  }

  /**
   * PLEG events for a pod wake it, except what its last sync already knew: a
   * creation or start it saw, or saw past (the container it started, running) —
   * upstream's SyncPod reads nothing after acting and needs that wake-up to see
   * Running; ours reads what it made, and a relist that caught the container between
   * CreateContainer and StartContainer is simply older than that read — and an exit
   * it had seen before it acted. An exit the sync only saw after acting (an init
   * container or a crash right after the start) still wakes the pod: nothing has
   * acted on it yet. Events arriving during a sync wait for its result to be judged.
   */
  handlePlegEvents(uid: string, events: PlegEvent[]): void {
    const work = this.workByUid.get(uid);
    if (!work || work.finished) return;
    if (work.working) {
      work.parkedEvents.push(...events);
      return;
    }
    if (contradicts(events, work)) work.runtimeKeptAtMs = 0;
    if (hasNews(events, work)) this.syncNow(uid);
  }

  /** A full relist succeeded: what it did not report as news is as the pods' last syncs left it. */
  noteFullRelist(startedAtMs: number): void {
    this.fullRelistStartedAtMs = Math.max(this.fullRelistStartedAtMs, startedAtMs);
  }

  /** A replaced shard, a probe result or a changed API object: look at the pod now. */
  syncNow(uid: string): void {
    const work = this.workByUid.get(uid);
    if (!work || work.finished) return;
    work.dueAtMs = 0;
    this.dispatch(work);
  }

  has(uid: string): boolean {
    return this.workByUid.has(uid);
  }

  phaseOf(uid: string): WorkPhase | undefined {
    return this.workByUid.get(uid)?.phase;
  }

  isFinished(uid: string): boolean {
    return this.workByUid.get(uid)?.finished ?? false;
  }

  /** When the pod's SyncTerminatedPod completed, if it did. */
  finishedAtMs(uid: string): number | undefined {
    const work = this.workByUid.get(uid);
    return work?.finished ? work.finishedAtMs : undefined;
  }

  uids(): string[] {
    return [...this.workByUid.keys()];
  }

  /** Drops a finished pod's state (housekeeping, once no source wants it). */
  forget(uid: string): void {
    const work = this.workByUid.get(uid);
    if (!work?.finished) return;
    this.workByUid.delete(uid);
    const sameName = this.worksByFullName.get(work.fullName);
    sameName?.delete(work);
    if (sameName?.size === 0) this.worksByFullName.delete(work.fullName);
    this.onPhaseChange(uid);
  }

  private addWork(uid: string, pod: Pod): PodWork {
    const work = newWork(uid, pod);
    this.workByUid.set(uid, work);
    const sameName = this.worksByFullName.get(work.fullName) ?? new Set<PodWork>();
    sameName.add(work);
    this.worksByFullName.set(work.fullName, sameName);
    this.onPhaseChange(uid);
    return work;
  }

  private setPhase(work: PodWork, phase: WorkPhase): void {
    if (work.phase === phase) return;
    work.phase = phase;
    this.onPhaseChange(work.uid);
  }

  private markTerminating(work: PodWork, options: UpdatePodOptions): void {
    if (options.removeFromRuntime && !work.removeFromRuntime) {
      work.removeFromRuntime = true;
      // Already cleaned up without removal (a completed pod): run SyncTerminatedPod again to remove it.
      if (work.finished) work.finished = false;
    }
    if (options.gracePeriodSeconds !== undefined) {
      work.gracePeriodSeconds = Math.min(work.gracePeriodSeconds ?? options.gracePeriodSeconds, options.gracePeriodSeconds);
    }
    if (work.phase === 'syncing') {
      this.setPhase(work, 'terminating');
      this.logger.info({ pod: work.fullName, uid: work.uid, gracePeriodSeconds: work.gracePeriodSeconds }, 'Pod is terminating');
    }
  }

  private dispatch(work: PodWork): void {
    if (work.finished) return;
    if (work.working) {
      work.pendingSync = true;
      return;
    }
    if (work.phase === 'syncing' && work.isStatic && this.predecessorRunning(work)) {
      // As upstream's allowStaticPodStart: a static pod starts only once the pod it replaces has stopped.
      work.dueAtMs = Date.now() + STATIC_POD_WAIT_MS;
      return;
    }
    work.working = true;
    work.pendingSync = false;
    const kind: SyncKind = work.phase === 'syncing' ? 'sync' : work.phase;
    const request: SyncPodRequest = {
      kind,
      pod: work.pod,
      gracePeriodSeconds: kind === 'terminating' ? work.gracePeriodSeconds : undefined,
      removeFromRuntime: kind === 'terminated' ? work.removeFromRuntime : undefined,
      previousStatus: this.host.previousStatus(work.uid),
      runtimeUnchanged: kind === 'sync' && this.runtimeUnchanged(work),
    };
    this.host.runSync(request).then(
      (result) => this.completed(work, kind, result),
      (err) => this.failed(work, kind, err),
    );
  }

  /**
   * As upstream's podCache.GetNewerThan: the state the last sync left is good for
   * this one once a relist begun after that sync brought no news of the pod (news
   * clears it); a relist not yet run since leaves the shard to read the runtime.
   */
  private runtimeUnchanged(work: PodWork): boolean {
    return work.runtimeKeptAtMs > 0 && (work.requeueOnKeptState || this.fullRelistStartedAtMs > work.runtimeKeptAtMs);
  }

  private completed(work: PodWork, kind: SyncKind, result: SyncPodResult): void {
    const nowMs = Date.now();
    work.working = false;
    work.seenObjects = result.runtimeObjects;
    work.actedOnObjects = result.actedOnObjects;
    work.removedObjectIds = new Set(result.removedObjectIds);
    work.runtimeKeptAtMs = kind === 'sync' && result.errors.length === 0 ? nowMs : 0;
    work.requeueOnKeptState = result.requeueOnKeptState === true;
    if (contradicts(work.parkedEvents, work)) work.runtimeKeptAtMs = 0;
    if (hasNews(work.parkedEvents, work)) work.pendingSync = true;
    work.parkedEvents = [];
    this.host.onSyncResult(work.pod, result, kind);
    if (result.errors.length > 0) {
      work.dueAtMs = nowMs + this.errorBackoffMs();
    } else if (kind === 'sync') {
      const phase = result.status.phase;
      if (phase === 'Succeeded' || phase === 'Failed') {
        // A terminal pod goes on to terminate (stop its sandbox), as upstream's SyncPod returning isTerminal.
        this.setPhase(work, 'terminating');
        work.dueAtMs = 0;
      } else {
        // 0 is "due now": the next sync tick runs it (a failed start is retried once a second, not in a loop).
        // A requeue the shard asked for is the exact end of a backoff and is kept as is; the resync is jittered as upstream's.
        const requeueMs = result.requeueAfterMs ?? jitterMs(this.resyncIntervalMs, RESYNC_JITTER, this.random);
        work.dueAtMs = nowMs + requeueMs;
        if (requeueMs > 0 && requeueMs < SYNC_TICK_GRANULARITY_MS) this.dispatchAfter(work, requeueMs);
      }
    } else if (kind === 'terminating') {
      if (result.terminated) this.setPhase(work, 'terminated');
      work.dueAtMs = result.terminated ? 0 : nowMs + TERMINATING_RECHECK_MS;
    } else {
      work.finished = true;
      work.finishedAtMs = nowMs;
      this.logger.info({ pod: work.fullName, uid: work.uid, removed: work.removeFromRuntime }, 'Pod terminated');
      if (!work.restartRequested) return;
      this.requestRestart(work);
      work.dueAtMs = 0;
    }
    if (work.pendingSync || work.dueAtMs === 0) this.dispatch(work);
  }

  /**
   * A requeue sooner than the 1 s sync tick would notice gets a timer of its own. The
   * timer runs on the event loop's clock, which can be a millisecond behind Date.now's:
   * one that fires before the pod is due by Date.now is set again for the rest, or the
   * requeue would wait for the tick.
   */
  private dispatchAfter(work: PodWork, delayMs: number): void {
    const timer = setTimeout(() => {
      if (work.finished || work.working) return;
      const remainingMs = work.dueAtMs - Date.now();
      if (remainingMs <= 0) this.dispatch(work);
      else if (remainingMs < SYNC_TICK_GRANULARITY_MS) this.dispatchAfter(work, remainingMs);
    }, delayMs);
    timer.unref();
  }

  private failed(work: PodWork, kind: SyncKind, err: unknown): void {
    work.working = false;
    work.runtimeKeptAtMs = 0;
    work.requeueOnKeptState = false;
    if (work.parkedEvents.length > 0) work.pendingSync = true;
    work.parkedEvents = [];
    this.host.onSyncFailed(work.pod, kind, err);
    work.dueAtMs = Date.now() + this.errorBackoffMs();
  }

  /** As upstream's wrapUp after a sync error: wait.Jitter(backOffPeriod, workerBackOffPeriodJitterFactor). */
  private errorBackoffMs(): number {
    return jitterMs(SYNC_ERROR_BACKOFF_MS, SYNC_ERROR_BACKOFF_JITTER, this.random);
  }

  private predecessorRunning(work: PodWork): boolean {
    for (const other of this.worksByFullName.get(work.fullName) ?? []) {
      if (other === work || other.finished) continue;
      // A static predecessor still syncing is about to be removed by the same config change.
      if (other.phase !== 'syncing' || other.isStatic) return true;
    }
    return false;
  }
}

function newWork(uid: string, pod: Pod): PodWork {
  return {
    uid,
    pod,
    fullName: podFullName(pod),
    isStatic: isStaticPod(pod),
    phase: 'syncing',
    removeFromRuntime: false,
    working: false,
    pendingSync: false,
    dueAtMs: 0,
    finished: false,
    finishedAtMs: 0,
    restartRequested: false,
    seenObjects: {},
    actedOnObjects: {},
    removedObjectIds: new Set(),
    parkedEvents: [],
    runtimeKeptAtMs: 0,
    requeueOnKeptState: false,
  };
}

/** How far along its one-way life (created → running → exited) an object is. */
const LIFECYCLE_RANK: Partial<Record<RuntimeObjectState, number>> = { created: 0, running: 1, exited: 2 };

/**
 * True when an event tells of a state the last sync's final read did not show: the
 * state it kept is then out of date. (A creation or start it saw past, an exit it saw,
 * the removal of what its own GC removed are all in it.) Weaker than hasNews, which
 * also wakes the pod for an exit it saw but has not acted on.
 */
function contradicts(events: PlegEvent[], known: Pick<PodWork, 'seenObjects' | 'removedObjectIds'>): boolean {
  return events.some((event) => {
    if (event.state === 'none') return !known.removedObjectIds.has(event.id);
    if (event.state === 'unknown') return known.seenObjects[event.id] !== 'unknown';
    const seenRank = LIFECYCLE_RANK[known.seenObjects[event.id]];
    return seenRank === undefined || seenRank < LIFECYCLE_RANK[event.state]!;
  });
}

/** True unless every event is a creation or start the last sync saw (or saw past), or an exit it acted on. */
function hasNews(events: PlegEvent[], known: Pick<PodWork, 'seenObjects' | 'actedOnObjects' | 'removedObjectIds'>): boolean {
  return events.some((event) => {
    if (event.state === 'exited') return known.actedOnObjects[event.id] !== 'exited';
    // The pod's own GC removed it: the sync already knows (a crash loop's cleanup is no reason to sync again).
    if (event.state === 'none' && known.removedObjectIds.has(event.id)) return false;
    if (event.state !== 'created' && event.state !== 'running') return true;
    const seenRank = LIFECYCLE_RANK[known.seenObjects[event.id]];
    return seenRank === undefined || seenRank < LIFECYCLE_RANK[event.state]!;
  });
}
