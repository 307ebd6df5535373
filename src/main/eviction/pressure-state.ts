// The eviction manager's memory between passes, as upstream's synchronize keeps it:
// which thresholds were met (so their minimum reclaim is enforced until freed),
// when each was first seen met (so a soft threshold acts only after its grace
// period), and when each pressure condition was last seen (so it stays for
// evictionPressureTransitionPeriod, and the node does not flap).
import { conditionOf, thresholdQuantity, type Threshold } from './thresholds.js';
import type { Observations } from './observations.js';

export type PressureCondition = 'MemoryPressure' | 'DiskPressure' | 'PIDPressure';

export interface PressurePass {
  /** Conditions the node reports now (including those held by the transition period). */
  conditions: Set<PressureCondition>;
  /** Thresholds met for at least their grace period: what the manager acts on. */
  actionable: Threshold[];
}

const keyOf = (threshold: Threshold) => `${threshold.signal}/${threshold.hard ? 'hard' : 'soft'}`;

export class PressureState {
  private met: Threshold[] = [];
  private readonly firstObservedAtMs = new Map<string, number>();
  private readonly conditionLastObservedAtMs = new Map<PressureCondition, number>();

  constructor(private readonly transitionPeriodMs: number) {}

  update(thresholds: readonly Threshold[], observations: Observations, nowMs: number): PressurePass {
    // Newly met, plus those met before and not yet reclaimed past their minimum.
    const metNow = thresholds.filter((threshold) => isMet(threshold, observations, false));
    const unresolved = this.met.filter((threshold) => isMet(threshold, observations, true));
    const met = [...metNow, ...unresolved.filter((threshold) => !metNow.some((other) => keyOf(other) === keyOf(threshold)))];
    this.met = met;
    const metKeys = new Set(met.map(keyOf));
    for (const key of this.firstObservedAtMs.keys()) if (!metKeys.has(key)) this.firstObservedAtMs.delete(key);
    for (const threshold of met) if (!this.firstObservedAtMs.has(keyOf(threshold))) this.firstObservedAtMs.set(keyOf(threshold), nowMs);

    const metConditions = new Set(met.map((threshold) => conditionOf(threshold.signal)));
    for (const condition of metConditions) this.conditionLastObservedAtMs.set(condition, nowMs);
    const conditions = new Set<PressureCondition>();
    for (const [condition, lastMs] of this.conditionLastObservedAtMs) {
      if (metConditions.has(condition) || nowMs - lastMs < this.transitionPeriodMs) conditions.add(condition);
      else this.conditionLastObservedAtMs.delete(condition);
    }
    const actionable = met.filter((threshold) => nowMs - this.firstObservedAtMs.get(keyOf(threshold))! >= threshold.gracePeriodMs);
    return { conditions, actionable };
  }
}

/** observed < threshold (+ its minimum reclaim when enforcing it); a signal not observed is not met. */
function isMet(threshold: Threshold, observations: Observations, enforceMinReclaim: boolean): boolean {
  const observed = observations[threshold.signal];
  if (!observed) return false;
  let quantity = thresholdQuantity(threshold.value, observed.capacity);
  if (enforceMinReclaim && threshold.minReclaim) quantity += thresholdQuantity(threshold.minReclaim, observed.capacity);
  return observed.available < quantity;
}
