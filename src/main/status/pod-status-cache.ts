// The latest API status of every pod the kubelet runs, as its last sync computed it
// (or Failed, for a pod admission rejected): what /pods serves, what the next sync
// gets back as its previous status (the terminal records stand in once a finished
// pod's entry is gone), and where a change becomes news. Any change the API server
// would store (isPodStatusByKubeletEqual) goes to the listeners: the startup tracker,
// and in cluster mode the status manager. Only a change in what an operator reads at
// a glance (statusSummary) is logged.
import type { Logger } from 'pino';
import type { Pod, PodStatus } from '../../shared/types.js';
import { isPodStatusByKubeletEqual } from './status-equality.js';

export interface StatusChange {
  pod: Pod;
  status: PodStatus;
  previous?: PodStatus;
}

/** The part of a status an operator reads at a glance; a change in it is logged. */
export function statusSummary(status: PodStatus): string {
  const ready = status.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
  const containers = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])].map((c) => {
    const state = c.state?.running ? 'running' : c.state?.terminated ? `terminated:${c.state.terminated.reason}` : `waiting:${c.state?.waiting?.reason ?? ''}`;
    return `${c.name}=${state}/${c.restartCount}`;
  });
  return `${status.phase} ready=${ready} ip=${status.podIP ?? ''} ${containers.join(' ')}`;
}

export class PodStatusCache {
  private readonly statusByUid = new Map<string, PodStatus>();
  private readonly listeners: Array<(change: StatusChange) => void> = [];

  constructor(private readonly logger: Logger) {}

  get(uid: string): PodStatus | undefined {
    return this.statusByUid.get(uid);
  }

  /** Stores a pod's new status; notifies when the API status changed, logs when its summary did. */
  set(pod: Pod, status: PodStatus): void {
    const uid = pod.metadata?.uid ?? '';
    const previous = this.statusByUid.get(uid);
    this.statusByUid.set(uid, status);
    if (previous && isPodStatusByKubeletEqual(previous, status)) return;
    const summary = statusSummary(status);
    if (!previous || statusSummary(previous) !== summary) {
      this.logger.info(
        { pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, uid, phase: status.phase, summary },
        'Pod status changed',
      );
    }
    for (const listener of this.listeners) listener({ pod, status, previous });
  }

  onChange(listener: (change: StatusChange) => void): void {
    this.listeners.push(listener);
  }

  delete(uid: string): void {
    this.statusByUid.delete(uid);
  }
}
