// Pods the node shutdown manager killed, and what their status says from then on,
// as the status function of upstream's killPods writes it: phase Failed (unless the
// pod had already Succeeded), reason Terminated, upstream's message, and the
// DisruptionTarget condition (reason TerminationByKubelet). The shard reports the
// containers as the runtime has them; this overlays the pod-level verdict on every
// status that follows, so a later sync cannot undo it.
import type { PodCondition, PodStatus } from '../../shared/types.js';

/** Upstream's nodeShutdownReason and nodeShutdownMessage. */
export const NODE_SHUTDOWN_REASON = 'Terminated';
export const NODE_SHUTDOWN_MESSAGE = 'Pod was terminated in response to imminent node shutdown.';
const DISRUPTION_TARGET = 'DisruptionTarget';
const TERMINATION_BY_KUBELET = 'TerminationByKubelet';
const MS_PER_SECOND = 1_000;

export class ShutdownStatuses {
  /** When each pod was killed for the shutdown (epoch ms), by UID. */
  private readonly killedAtMsByUid = new Map<string, number>();

  record(uid: string, atMs = Date.now()): void {
    if (!this.killedAtMsByUid.has(uid)) this.killedAtMsByUid.set(uid, atMs);
  }

  has(uid: string): boolean {
    return this.killedAtMsByUid.has(uid);
  }

  forget(uid: string): void {
    this.killedAtMsByUid.delete(uid);
  }

  /** The status with the shutdown's verdict, or as it is for a pod the shutdown did not kill. */
  overlay(uid: string, status: PodStatus): PodStatus {
    const killedAtMs = this.killedAtMsByUid.get(uid);
    if (killedAtMs === undefined) return status;
    const condition: PodCondition = {
      type: DISRUPTION_TARGET,
      status: 'True',
      reason: TERMINATION_BY_KUBELET,
      message: NODE_SHUTDOWN_MESSAGE,
      // metav1.Time keeps whole seconds on the wire.
      lastTransitionTime: new Date(Math.trunc(killedAtMs / MS_PER_SECOND) * MS_PER_SECOND),
    };
    const conditions = [...(status.conditions ?? []).filter((c) => c.type !== DISRUPTION_TARGET), condition];
    const phase = status.phase === 'Succeeded' ? 'Succeeded' : 'Failed';
    return { ...status, phase, reason: NODE_SHUTDOWN_REASON, message: NODE_SHUTDOWN_MESSAGE, conditions };
  }
}
