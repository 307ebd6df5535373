// A figure over repeated runs: its median and the spread (min–max). The per-pod
// figures of one start swing by tens of percent from run to run on a shared
// machine, so a repeated run is reported by its median, with the spread beside it.

export interface Spread {
  median: number;
  min: number;
  max: number;
  /** How many runs gave the figure. */
  runs: number;
}

/** The median (the mean of the middle two for an even count) and range; undefined without a finite value. */
export function spreadOf(values: readonly (number | undefined)[]): Spread | undefined {
  const sorted = values.filter((value): value is number => value !== undefined && Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], runs: sorted.length };
}

/** "1.23 (1.10–1.40)", or "1.23" from one run; "–" for none. */
export function formatSpread(spread: Spread | undefined, digits: number): string {
  if (!spread) return '–';
  const median = spread.median.toFixed(digits);
  return spread.runs === 1 ? median : `${median} (${spread.min.toFixed(digits)}–${spread.max.toFixed(digits)})`;
}
