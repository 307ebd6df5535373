// Pod start latency as the pod-startup SLO counts it: from the pod's appearance in
// its source (the merge's ADD) to the first status with every container running and
// Ready, observed here. Read by the bench through /stats/startup.
import type { Pod, PodStatus } from '../../shared/types.js';

export interface StartupRecord {
  uid: string;
  pod: string;
  seenAtMs: number;
  runningAtMs?: number;
}

export class StartupTracker {
  private readonly recordsByUid = new Map<string, StartupRecord>();

  seen(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    if (this.recordsByUid.has(uid)) return;
    this.recordsByUid.set(uid, { uid, pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, seenAtMs: Date.now() });
  }

  observe(pod: Pod, status: PodStatus): void {
    const record = this.recordsByUid.get(pod.metadata?.uid ?? '');
    if (!record || record.runningAtMs !== undefined || status.phase !== 'Running') return;
    if (status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) record.runningAtMs = Date.now();
  }

  records(): StartupRecord[] {
    return [...this.recordsByUid.values()];
  }
}
