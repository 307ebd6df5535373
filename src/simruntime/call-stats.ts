// Counts of the calls the simulated runtime has served, per CRI method, plus
// how many ran at once. The bench reads them to report CRI calls per pod.
import type { RpcName } from './latency-model.js';

export interface SimStats {
  /** Calls received per method, including failed ones. */
  calls: Partial<Record<RpcName, number>>;
  totalCalls: number;
  /** Calls in flight now, and the most ever in flight together. */
  inFlight: number;
  maxInFlight: number;
  /**
   * Creation calls (RunPodSandbox, CreateContainer, StartContainer) in flight now and
   * the most at once: what a kubelet's runtime contention guard bounds.
   */
  creationsInFlight: number;
  maxCreationsInFlight: number;
}

/** The calls a kubelet's runtime contention guard holds back (shardlet's --runtime-creation-limit). */
export const CREATION_RPCS: ReadonlySet<RpcName> = new Set<RpcName>(['RunPodSandbox', 'CreateContainer', 'StartContainer']);

export class CallStats {
  private readonly callsByRpc: Partial<Record<RpcName, number>> = {};
  private totalCalls = 0;
  private inFlight = 0;
  private maxInFlight = 0;
  private creationsInFlight = 0;
  private maxCreationsInFlight = 0;

  /** Records the start of a call; call the returned function when it ends. */
  begin(rpc: RpcName): () => void {
    this.callsByRpc[rpc] = (this.callsByRpc[rpc] ?? 0) + 1;
    this.totalCalls++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const creation = CREATION_RPCS.has(rpc);
    if (creation) {
      this.creationsInFlight++;
      this.maxCreationsInFlight = Math.max(this.maxCreationsInFlight, this.creationsInFlight);
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      if (creation) this.creationsInFlight--;
    };
  }

  snapshot(): SimStats {
    return {
      calls: { ...this.callsByRpc },
      totalCalls: this.totalCalls,
      inFlight: this.inFlight,
      maxInFlight: this.maxInFlight,
      creationsInFlight: this.creationsInFlight,
      maxCreationsInFlight: this.maxCreationsInFlight,
    };
  }
}
