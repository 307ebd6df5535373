// Upstream's nodeshutdown killPods: the groups go down one after the other, lowest
// priority first. Every pod of a group is killed at once with the group's grace
// period (or its own, when shorter); the next group starts when every pod of this
// one has finished (containers stopped, volumes torn down: upstream waits for the
// unmounts too) or when the group's period has passed, whichever comes first.
import type { Logger } from 'pino';
import { podRef } from '../../shared/pod-kinds.js';
import type { Pod } from '../../shared/types.js';
import { finishedWithin } from '../../shared/finished-within.js';
import { podGracePeriodSeconds, type PodShutdownGroup } from './shutdown-groups.js';

const MS_PER_SECOND = 1_000;

export interface PodKillerHost {
  /** Terminates the pod with this grace period (the pod worker's kill). */
  kill(pod: Pod, gracePeriodSeconds: number): void;
}

export class ShutdownPodKiller {
  /** Who waits for which pod to finish, by UID. */
  private readonly waitersByUid = new Map<string, () => void>();

  constructor(
    private readonly host: PodKillerHost,
    private readonly logger: Logger,
  ) {}

  /** The pod worker finished with the pod; a group waiting for it may go on. */
  podFinished(uid: string): void {
    const wake = this.waitersByUid.get(uid);
    this.waitersByUid.delete(uid);
    wake?.();
  }

  /** Kills every group in turn; `onKill` runs for each pod just before its kill. */
  async killPods(groups: readonly PodShutdownGroup[], onKill: (pod: Pod) => void): Promise<void> {
    for (const group of groups) {
      // A range of priorities without pods is not waited for.
      if (group.pods.length === 0) continue;
      const finished = group.pods.map((pod) => this.finishOf(pod.metadata?.uid ?? ''));
      for (const pod of group.pods) {
        const gracePeriodSeconds = podGracePeriodSeconds(pod, group);
        this.logger.info({ pod: podRef(pod), gracePeriod: gracePeriodSeconds, priority: group.priority }, 'Shutdown manager killing pod with gracePeriod');
        onKill(pod);
        this.host.kill(pod, gracePeriodSeconds);
      }
      const allFinished = await finishedWithin(Promise.all(finished), group.shutdownGracePeriodSeconds * MS_PER_SECOND);
      for (const pod of group.pods) this.waitersByUid.delete(pod.metadata?.uid ?? '');
      const fields = { gracePeriod: group.shutdownGracePeriodSeconds, priority: group.priority, pods: group.pods.length };
      if (allFinished) this.logger.info(fields, 'Done waiting for all pods in group to terminate');
      else this.logger.warn(fields, 'Shutdown manager pod killing time out');
    }
  }

  private finishOf(uid: string): Promise<void> {
    return new Promise((resolve) => this.waitersByUid.set(uid, resolve));
  }
}
