// usageNanoCores from two samples of cumulative CPU time, as upstream's CRI stats
// provider derives it when the runtime leaves it unset (getAndUpdateContainerUsageNanoCores):
// the last sample of every container, sandbox and the node is kept, and each new
// sample with a later timestamp gives the mean rate since. A sample seen only once
// has no rate yet. Entries not sampled for a while are dropped, so a node with churn
// keeps a bounded cache.

/** A sample not renewed for this long belongs to something gone. */
export const CPU_SAMPLE_RETENTION_MS = 5 * 60_000;

interface CpuSample {
  usageCoreNanoSeconds: number;
  timestampNs: number;
  /** Rate computed when this sample replaced the one before. */
  usageNanoCores?: number;
  seenAtMs: number;
}

export class CpuUsageCache {
  private readonly samplesById = new Map<string, CpuSample>();
  private lastPruneMs = 0;

  constructor(private readonly nowMs: () => number = Date.now) {}

  /**
   * Records a sample of `id` and returns its mean rate in nanocores since the previous
   * sample; the same sample again (two readers between runtime refreshes) gets the rate
   * already computed; a counter that went backwards (a restarted container) restarts the series.
   */
  usageNanoCores(id: string, usageCoreNanoSeconds: number, timestampNs: number): number | undefined {
    const now = this.nowMs();
    const previous = this.samplesById.get(id);
    let rate: number | undefined;
    if (previous && timestampNs === previous.timestampNs) rate = previous.usageNanoCores;
    else if (previous && timestampNs > previous.timestampNs && usageCoreNanoSeconds >= previous.usageCoreNanoSeconds) {
      rate = Math.round(((usageCoreNanoSeconds - previous.usageCoreNanoSeconds) * 1e9) / (timestampNs - previous.timestampNs));
    }
    if (!previous || timestampNs !== previous.timestampNs) {
      this.samplesById.set(id, { usageCoreNanoSeconds, timestampNs, usageNanoCores: rate, seenAtMs: now });
    } else {
      previous.seenAtMs = now;
    }
    this.prune(now);
    return rate;
  }

  get size(): number {
    return this.samplesById.size;
  }

  private prune(now: number): void {
    if (now - this.lastPruneMs < CPU_SAMPLE_RETENTION_MS) return;
    this.lastPruneMs = now;
    for (const [id, sample] of this.samplesById) {
      if (now - sample.seenAtMs > CPU_SAMPLE_RETENTION_MS) this.samplesById.delete(id);
    }
  }
}
