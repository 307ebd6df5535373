// Pods the kubelet itself terminated (evicted under node pressure, killed for a node
// shutdown) and the verdict their status carries from then on, as the status function
// upstream's killPodFunc passes with the kill writes it: the reason and message, phase
// Failed, and the DisruptionTarget condition (reason TerminationByKubelet). The shard
// reports the containers as the runtime has them; the overlay puts the pod-level
// verdict on every status that follows, so a later sync cannot undo it.
import type { PodCondition, PodStatus } from '../../shared/types.js';

const DISRUPTION_TARGET = 'DisruptionTarget';
const TERMINATION_BY_KUBELET = 'TerminationByKubelet';
const MS_PER_SECOND = 1_000;

export interface TerminationVerdict {
  reason: string;
  message: string;
  /** A pod that already Succeeded keeps that phase (node shutdown); eviction fails it whatever it was. */
  keepSucceeded: boolean;
}

export class KubeletTerminations {
  private readonly byUid = new Map<string, { verdict: TerminationVerdict; atMs: number }>();

  /** The first verdict on a pod stands. */
  record(uid: string, verdict: TerminationVerdict, atMs = Date.now()): void {
    if (!this.byUid.has(uid)) this.byUid.set(uid, { verdict, atMs });
  }

  has(uid: string): boolean {
    return this.byUid.has(uid);
  }

  forget(uid: string): void {
    this.byUid.delete(uid);
  }

  /** The status with the verdict, or as it is for a pod the kubelet did not terminate. */
  overlay(uid: string, status: PodStatus): PodStatus {
    const recorded = this.byUid.get(uid);
    if (!recorded) return status;
    const { verdict, atMs } = recorded;
    const condition: PodCondition = {
      // The generation the status it joins was computed from (upstream's CalculatePodConditionObservedGeneration).
      ...(status.observedGeneration === undefined ? {} : { observedGeneration: status.observedGeneration }),
      type: DISRUPTION_TARGET,
      status: 'True',
      reason: TERMINATION_BY_KUBELET,
      message: verdict.message,
      // metav1.Time keeps whole seconds on the wire.
      lastTransitionTime: new Date(Math.trunc(atMs / MS_PER_SECOND) * MS_PER_SECOND),
    };
    const conditions = [...(status.conditions ?? []).filter((c) => c.type !== DISRUPTION_TARGET), condition];
    const phase = verdict.keepSucceeded && status.phase === 'Succeeded' ? 'Succeeded' : 'Failed';
    return { ...status, phase, reason: verdict.reason, message: verdict.message, conditions };
  }
}
