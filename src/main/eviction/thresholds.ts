// Eviction thresholds and the signals they watch, as upstream's eviction API: a
// threshold is "signal < quantity" (or a percentage of the signal's capacity), hard
// (acted on at once) or soft (acted on once crossed for its grace period), with an
// optional minimum reclaim that must be freed before the pressure counts as gone.
import { parseThresholdPercentage } from '../nodestatus/capacity.js';
import { parseBytes } from '../../shared/quantity.js';

export type EvictionSignal =
  | 'memory.available'
  | 'nodefs.available'
  | 'nodefs.inodesFree'
  | 'imagefs.available'
  | 'imagefs.inodesFree'
  | 'pid.available';

export const EVICTION_SIGNALS: readonly EvictionSignal[] = [
  'memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available',
];

/** An amount, or a fraction of the signal's capacity. */
export type ThresholdValue = { quantity: number } | { percentage: number };

export interface Threshold {
  signal: EvictionSignal;
  value: ThresholdValue;
  /** 0 for a hard threshold. */
  gracePeriodMs: number;
  hard: boolean;
  minReclaim?: ThresholdValue;
}

export interface EvictionSettings {
  evictionHard: Record<string, string>;
  evictionSoft: Record<string, string>;
  /** Grace periods of the soft thresholds, in ms. */
  evictionSoftGracePeriodMs: Record<string, number>;
  evictionMinimumReclaim: Record<string, string>;
}

/** The node condition a signal's pressure shows as. */
export function conditionOf(signal: EvictionSignal): 'MemoryPressure' | 'DiskPressure' | 'PIDPressure' {
  if (signal === 'memory.available') return 'MemoryPressure';
  if (signal === 'pid.available') return 'PIDPressure';
  return 'DiskPressure';
}

/** The resource a signal measures, for quantity parsing and the eviction message. */
export function resourceOf(signal: EvictionSignal): string {
  if (signal === 'memory.available') return 'memory';
  if (signal === 'pid.available') return 'pids';
  if (signal.endsWith('inodesFree')) return 'inodes';
  return 'ephemeral-storage';
}

/** Upstream's ParseThresholdConfig; a "0%"/"100%" hard threshold is upstream's way of turning a signal off. */
export function parseThresholds(settings: EvictionSettings): Threshold[] {
  const thresholds: Threshold[] = [];
  const add = (map: Record<string, string>, hard: boolean) => {
    for (const [name, text] of Object.entries(map)) {
      const signal = name as EvictionSignal;
      if (!EVICTION_SIGNALS.includes(signal)) continue;
      const value = parseValue(text);
      if (value === undefined) continue;
      const gracePeriodMs = hard ? 0 : settings.evictionSoftGracePeriodMs[name] ?? 0;
      const minReclaimText = settings.evictionMinimumReclaim[name];
      const minReclaim = minReclaimText === undefined ? undefined : parseValue(minReclaimText);
      thresholds.push({ signal, value, gracePeriodMs, hard, ...(minReclaim ? { minReclaim } : {}) });
    }
  };
  add(settings.evictionHard, true);
  add(settings.evictionSoft, false);
  return thresholds;
}

function parseValue(text: string): ThresholdValue | undefined {
  const percentage = parseThresholdPercentage(text.trim());
  if (percentage !== undefined) return percentage === 0 ? undefined : { percentage };
  // Bytes, inodes and pids alike are plain counts with the quantity suffixes.
  const quantity = parseBytes(text.trim());
  return quantity === 0 ? undefined : { quantity };
}

/** The threshold's amount for a signal whose capacity is known. */
export function thresholdQuantity(value: ThresholdValue, capacity: number): number {
  return 'quantity' in value ? value.quantity : Math.trunc(capacity * value.percentage);
}
