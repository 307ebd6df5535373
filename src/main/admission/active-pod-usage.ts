// The pods admission counts against the node: those the pod manager holds whose pod
// worker is syncing (neither terminating nor terminated; a rejected pod has no pod
// worker), with their usage summed as they come and go. The pod manager and the pod
// workers say when a pod's spec or phase changed; admitting a pod then reads the sums
// instead of walking every pod (upstream's HandlePodAdditions rebuilds its active
// pod list per pod, which a burst of 500 additions turns quadratic).
import { NodeUsageLedger, type NodeUsage } from '../../shared/admission/node-usage.js';
import type { Pod } from '../../shared/types.js';

export class ActivePodUsage {
  private readonly ledger = new NodeUsageLedger();

  constructor(
    private readonly podOf: (uid: string) => Pod | undefined,
    private readonly isActive: (uid: string) => boolean,
  ) {}

  /** The pod's spec or its pod worker's phase changed: count it, or stop counting it, as it stands now. */
  refresh(uid: string): void {
    const pod = this.podOf(uid);
    this.ledger.set(uid, pod && this.isActive(uid) ? pod : undefined);
  }

  /** What every counted pod but `uid` uses: the node admission checks `uid` against. */
  usageExcluding(uid: string): NodeUsage {
    return this.ledger.usage(uid);
  }

  /** Whether the pod is counted. */
  has(uid: string): boolean {
    return this.ledger.get(uid) !== undefined;
  }

  get size(): number {
    return this.ledger.size;
  }
}
