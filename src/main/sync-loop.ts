// Upstream's syncLoopIteration, as handlers: config updates from the merge, PLEG
// events, the 1 s sync tick and the 2 s housekeeping. Every handler only routes:
// the work itself runs in the pod's shard through the pod workers.
import type { Logger } from 'pino';
import type { PodManager } from './pod/pod-manager.js';
import type { PodWorkers } from './podworkers/pod-workers.js';
import type { PodStatusCache } from './status/pod-status-cache.js';
import type { AdmitResult } from '../shared/admission/admit-pod.js';
import type { Pod, PodUpdate } from '../shared/types.js';
import type { PlegEvent, RelistResult, RuntimePodRef } from '../shared/shard-protocol.js';
import { ErrorCodes } from '../shared/errors.js';
import { isMirrorPod, podRef } from '../shared/pod-kinds.js';
import { isUnavailable } from '../shared/cri/cri-error.js';

export interface SyncLoopDeps {
  podManager: PodManager;
  podWorkers: PodWorkers;
  statuses: PodStatusCache;
  logger: Logger;
  /** True once every configured source has delivered its first full set. */
  sourcesReady: () => boolean;
  /** When a pod was first seen, for the pod start latency. */
  onPodSeen: (pod: Pod) => void;
  /** Upstream's canAdmitPod against the pods already admitted here (the pod itself not counted). */
  admit: (pod: Pod) => AdmitResult;
  /** A pod admission refused: it gets phase Failed with the reason, and never runs. */
  onRejected: (pod: Pod, reason: string, message: string) => void;
  /** Cluster mode: keep one mirror pod per running static pod (run by housekeeping). */
  reconcileMirrorPods?: () => void;
  /** A pod is done and gone: what was kept for it (API object watches, tokens) can go. */
  onPodForgotten?: (uid: string) => void;
  /** Removes the pod cgroups of pods no part of the kubelet knows (upstream's cleanupOrphanedPodCgroups). */
  cleanupOrphanedPodCgroups?: (isKnown: (uid: string) => boolean) => void;
  /** Unmounts the subPath bind mounts of pods no part of the kubelet knows (left from before a restart). */
  cleanupOrphanedPodSubpaths?: (isKnown: (uid: string) => boolean) => void;
  /** The full relist's period when lengthened (--pleg-relist-period): the PLEG health allows three periods. */
  relistPeriodMs?: number;
}

/** Upstream's relistThreshold: the PLEG is unhealthy when no relist succeeded for this long. */
export const RELIST_THRESHOLD_MS = 3 * 60_000;
/** With a relist period lengthened past a minute, the PLEG health waits this many periods instead. */
const RELIST_PERIODS_BEFORE_UNHEALTHY = 3;
/** The least time the sync loop may go without a tick before /healthz fails (upstream's syncLoopHealthCheck). */
export const MIN_SYNC_LOOP_STALL_MS = 5 * 60_000;

export class SyncLoop {
  /** Pods present in the runtime, by UID, as the last PLEG relist saw them. */
  private runtimePodsByUid = new Map<string, RuntimePodRef>();
  /** When the newest relist handled began: the runtime pod set is at least this recent. */
  private runtimePodsAsOfMs = 0;
  private relistFailing = false;
  private lastRelistOkMs: number;
  /** When the sync tick last ran (upstream's LatestLoopEntryTime); 0 before the first. */
  private lastLoopEntryMs = 0;
  /** Pods admission refused: they stay known (with a Failed status) but never get a pod worker. */
  private readonly rejectedUids = new Set<string>();


  constructor(private readonly deps: SyncLoopDeps) {
    this.lastRelistOkMs = Date.now();
  }

  /** The 1 s sync tick: runs every pod whose resync or backoff is due, and notes that the loop is alive. */
  syncTick(nowMs: number): void {
    this.lastLoopEntryMs = nowMs;
    this.deps.podWorkers.syncDue(nowMs);
  }

  /**
   * /healthz: upstream's syncloop check (no tick for twice the resync period, at
   * least 5 minutes) and its PLEG check, in that order.
   */
  health(nowMs: number, syncFrequencyMs: number): { ok: boolean; reason: string } {
    const stallMs = Math.max(2 * syncFrequencyMs, MIN_SYNC_LOOP_STALL_MS);
    if (this.lastLoopEntryMs > 0 && nowMs > this.lastLoopEntryMs + stallMs) return { ok: false, reason: 'sync Loop took longer than expected' };
    return this.plegHealth(nowMs);
  }

  /** Upstream's PLEG health check, behind /healthz. */
  plegHealth(nowMs: number): { ok: boolean; reason: string } {
    const sinceMs = nowMs - this.lastRelistOkMs;
    const thresholdMs = Math.max(RELIST_THRESHOLD_MS, RELIST_PERIODS_BEFORE_UNHEALTHY * (this.deps.relistPeriodMs ?? 0));
    if (sinceMs <= thresholdMs) return { ok: true, reason: '' };
    return { ok: false, reason: `PLEG is not healthy: pleg was last seen active ${Math.round(sinceMs / 1000)}s ago; threshold is ${thresholdMs / 1000}s` };
  }

  /**
   * A config update from the merge (upstream's HandlePodAdditions / Updates / Removes /
   * Reconcile). A pod whose handling throws is logged with its name and left alone;
   * the others of the same update go on.
   */
  handleConfigUpdate(update: PodUpdate): void {
    const { logger } = this.deps;
    logger.info({ op: update.op, source: update.source, pods: update.pods.map(podRef) }, `SyncLoop ${update.op}`);
    for (const pod of update.pods) {
      try {
        this.handlePodUpdate(update.op, pod);
      } catch (err) {
        logger.error(
          { code: ErrorCodes.INTERNAL, op: update.op, source: update.source, pod: podRef(pod), uid: pod.metadata?.uid, err: (err as Error)?.message ?? String(err) },
          'Handling a pod update failed; the pod is left as it was',
        );
      }
    }
  }

  private handlePodUpdate(op: PodUpdate['op'], pod: Pod): void {
    const { podManager, podWorkers, logger } = this.deps;
    if (isMirrorPod(pod)) {
      this.handleMirrorPod(op, pod);
      return;
    }
    switch (op) {
      case 'ADD':
        podManager.addOrUpdate(pod);
        this.deps.onPodSeen(pod);
        if (this.admitted(pod)) podWorkers.updatePod({ type: 'create', pod });
        break;
      case 'UPDATE':
        podManager.addOrUpdate(pod);
        if (this.rejectedUids.has(pod.metadata?.uid ?? '')) break;
        podWorkers.updatePod(
          pod.metadata?.deletionTimestamp
            ? { type: 'kill', pod, gracePeriodSeconds: pod.metadata.deletionGracePeriodSeconds }
            : { type: 'update', pod },
        );
        break;
      case 'DELETE':
        podManager.addOrUpdate(pod);
        podWorkers.updatePod({ type: 'kill', pod, gracePeriodSeconds: pod.metadata?.deletionGracePeriodSeconds });
        break;
      case 'REMOVE':
        podManager.remove(pod);
        this.rejectedUids.delete(pod.metadata?.uid ?? '');
        podWorkers.updatePod({ type: 'kill', pod, removeFromRuntime: true });
        break;
      case 'RECONCILE':
        podManager.addOrUpdate(pod);
        break;
      default:
        logger.warn({ op }, 'Ignoring config update with an unknown operation');
    }
  }

  /** Upstream's handleMirrorPod: a mirror pod is only recorded; its static pod is what runs. */
  private handleMirrorPod(op: PodUpdate['op'], pod: Pod): void {
    if (op === 'REMOVE') this.deps.podManager.removeMirror(pod);
    else this.deps.podManager.addOrUpdateMirror(pod);
  }

  /** Upstream's HandlePodAdditions admission: only pods the node can take get a pod worker. */
  private admitted(pod: Pod): boolean {
    const uid = pod.metadata?.uid ?? '';
    if (this.deps.podWorkers.has(uid)) return true;
    const result = this.deps.admit(pod);
    if (result.admit) return true;
    this.rejectedUids.add(uid);
    this.deps.logger.warn(
      { pod: podRef(pod), uid, reason: result.reason, err: result.message },
      'Pod admission rejected',
    );
    this.deps.onRejected(pod, result.reason, result.message);
    return false;
  }

  /**
   * A relist's events go to the pods they concern; a full relist's runtime pod set
   * feeds housekeeping and its success the PLEG health. A per-pod relist (a
   * container event's) only brings its pod's events.
   */
  handleRelist(result: RelistResult): void {
    if (result.podUid === undefined) this.fullRelistSucceeded(result);
    const eventsByUid = new Map<string, PlegEvent[]>();
    for (const event of result.events) {
      const events = eventsByUid.get(event.podUid) ?? [];
      events.push(event);
      eventsByUid.set(event.podUid, events);
    }
    for (const [uid, events] of eventsByUid) this.deps.podWorkers.handlePlegEvents(uid, events);
    if (result.events.length > 0) this.deps.logger.trace({ events: result.events, podUid: result.podUid }, 'PLEG events');
  }

  private fullRelistSucceeded(result: RelistResult): void {
    this.lastRelistOkMs = Date.now();
    if (this.relistFailing) {
      this.relistFailing = false;
      this.deps.logger.info('Container runtime ready again: PLEG relist works');
    }
    if (result.runtimePods) this.runtimePodsByUid = new Map(result.runtimePods.map((ref) => [ref.uid, ref]));
    this.runtimePodsAsOfMs = Math.max(this.runtimePodsAsOfMs, result.startedAtMs);
    this.deps.podWorkers.noteFullRelist(result.startedAtMs);
  }

  /** Logged once per outage, with a code an operator can grep for (upstream logs "Container runtime not ready"). */
  handleRelistError(err: unknown): void {
    if (this.relistFailing) return;
    this.relistFailing = true;
    const message = (err as Error).message ?? String(err);
    const code = isUnavailable(err) || /UNAVAILABLE/.test(message) ? ErrorCodes.CRI_UNAVAILABLE : ErrorCodes.CRI_CALL_FAILED;
    this.deps.logger.warn(
      { code, err: message },
      'Container runtime not ready: PLEG relist failed; running pods are left alone and the relist is retried',
    );
  }

  /** Upstream's HandlePodCleanups: stop what no source wants, forget what is done. */
  housekeeping(): void {
    const { podManager, podWorkers, statuses } = this.deps;
    for (const uid of this.rejectedUids) {
      if (!podManager.get(uid)) this.rejectedUids.delete(uid);
    }
    for (const uid of podWorkers.uids()) {
      if (podManager.get(uid)) continue;
      // Forgotten only once a relist begun after its removal was seen: the runtime pod
      // set below may otherwise still list it, and it would be stopped a second time.
      if ((podWorkers.finishedAtMs(uid) ?? Infinity) < this.runtimePodsAsOfMs) {
        podWorkers.forget(uid);
        statuses.delete(uid);
        this.deps.onPodForgotten?.(uid);
      }
    }
    if (!this.deps.sourcesReady()) return;
    this.deps.reconcileMirrorPods?.();
    for (const ref of this.runtimePodsByUid.values()) {
      if (podManager.get(ref.uid) || podWorkers.has(ref.uid)) continue;
      this.deps.logger.info({ pod: `${ref.namespace}/${ref.name}`, uid: ref.uid }, 'Stopping orphaned pod no source wants');
      const orphan: Pod = { metadata: { uid: ref.uid, name: ref.name, namespace: ref.namespace } };
      podWorkers.updatePod({ type: 'kill', pod: orphan, removeFromRuntime: true });
    }
    // Only once a relist told what the runtime holds: a pod it still runs is not an orphan cgroup's (or mount's).
    if (this.runtimePodsAsOfMs > 0) {
      const isKnown = (uid: string) => podManager.get(uid) !== undefined || podWorkers.has(uid) || this.runtimePodsByUid.has(uid);
      this.deps.cleanupOrphanedPodCgroups?.(isKnown);
      this.deps.cleanupOrphanedPodSubpaths?.(isKnown);
    }
  }
}
