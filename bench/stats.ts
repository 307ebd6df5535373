// Small statistics helpers for the bench.

/** Nearest-rank percentile of an ascending array. */
function percentile(sortedAscending: readonly number[], fraction: number): number {
  if (sortedAscending.length === 0) return Number.NaN;
  const rank = Math.ceil(fraction * sortedAscending.length) - 1;
  return sortedAscending[Math.min(Math.max(rank, 0), sortedAscending.length - 1)];
}

export interface LatencySummary {
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

export function summarize(latenciesMs: readonly number[]): LatencySummary {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return {
    p50Ms: percentile(sorted, 0.5),
    p90Ms: percentile(sorted, 0.9),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.length > 0 ? sorted[sorted.length - 1] : Number.NaN,
  };
}

/** Per-method counts after minus before; methods with no calls in between are left out. */
export function countsDelta<K extends string>(after: Partial<Record<K, number>>, before: Partial<Record<K, number>>): Partial<Record<K, number>> {
  const delta: Partial<Record<K, number>> = {};
  for (const [key, value] of Object.entries(after) as Array<[K, number]>) {
    const calls = value - (before[key] ?? 0);
    if (calls > 0) delta[key] = calls;
  }
  return delta;
}

export function sumOf(counts: Partial<Record<string, number>>): number {
  return Object.values(counts).reduce<number>((sum, value) => sum + (value ?? 0), 0);
}
