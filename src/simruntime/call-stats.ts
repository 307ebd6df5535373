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
}

export class CallStats {
  private readonly callsByRpc: Partial<Record<RpcName, number>> = {};
  private totalCalls = 0;
  private inFlight = 0;
  private maxInFlight = 0;

  /** Records the start of a call; call the returned function when it ends. */
  begin(rpc: RpcName): () => void {
    this.callsByRpc[rpc] = (this.callsByRpc[rpc] ?? 0) + 1;
    this.totalCalls++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
    };
  }

  snapshot(): SimStats {
    return { calls: { ...this.callsByRpc }, totalCalls: this.totalCalls, inFlight: this.inFlight, maxInFlight: this.maxInFlight };
  }
}
