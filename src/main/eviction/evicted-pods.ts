// Pods the eviction manager evicted, and what their status says from then on, as
// upstream's killPodFunc writes it: phase Failed, reason Evicted, the eviction
// message, and the DisruptionTarget condition (reason TerminationByKubelet). The
// shard still reports the containers as the runtime has them; this overlays the
// pod-level verdict on every status that follows, so a later sync cannot undo it.
import type { PodCondition, PodStatus } from '../../shared/types.js';
import { EVICTED_REASON } from './eviction-manager.js';

const DISRUPTION_TARGET = 'DisruptionTarget';
const TERMINATION_BY_KUBELET = 'TerminationByKubelet';

interface Eviction {
  message: string;
  atMs: number;
}

export class EvictedPods {
  private readonly byUid = new Map<string, Eviction>();

  record(uid: string, message: string, atMs = Date.now()): void {
    if (!this.byUid.has(uid)) this.byUid.set(uid, { message, atMs });
  }

  has(uid: string): boolean {
    return this.byUid.has(uid);
  }

  forget(uid: string): void {
    this.byUid.delete(uid);
  }

  /** The status with the eviction's verdict, or as it is for a pod never evicted. */
  overlay(uid: string, status: PodStatus): PodStatus {
    const eviction = this.byUid.get(uid);
    if (!eviction) return status;
    const condition: PodCondition = {
      type: DISRUPTION_TARGET,
      status: 'True',
      reason: TERMINATION_BY_KUBELET,
      message: eviction.message,
      lastTransitionTime: new Date(Math.trunc(eviction.atMs / 1000) * 1000),
    };
    const conditions = [...(status.conditions ?? []).filter((c) => c.type !== DISRUPTION_TARGET), condition];
    return { ...status, phase: 'Failed', reason: EVICTED_REASON, message: eviction.message, conditions };
  }
}
