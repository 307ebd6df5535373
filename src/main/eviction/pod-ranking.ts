// The order in which pods are evicted for a starved resource, as upstream's rank
// functions: for memory, pods using more than they requested first, then lower
// priority, then the largest use beyond the request; for disk the same with
// ephemeral storage; for PIDs, lower priority, then the most processes. A pod the
// stats do not cover goes first, as upstream ranks one it cannot measure.
import { podRequests } from '../../shared/admission/pod-requests.js';
import type { Pod } from '../../shared/types.js';
import type { PodStats } from '../stats/summary-types.js';
import type { EvictionSignal } from './thresholds.js';

export interface RankedPod {
  pod: Pod;
  stats?: PodStats;
}

type Compare = (a: RankedPod, b: RankedPod) => number;

export function rankForEviction(pods: readonly RankedPod[], signal: EvictionSignal): RankedPod[] {
  const order = signal === 'memory.available' ? [unmeasuredFirst, exceeds(memoryUse, memoryRequest), lowerPriorityFirst, largerExcess(memoryUse, memoryRequest)]
    : signal === 'pid.available' ? [unmeasuredFirst, lowerPriorityFirst, (a: RankedPod, b: RankedPod) => processes(b) - processes(a)]
      : [unmeasuredFirst, exceeds(diskUse, diskRequest), lowerPriorityFirst, largerExcess(diskUse, diskRequest)];
  return [...pods].sort((a, b) => {
    for (const compare of order) {
      const result = compare(a, b);
      if (result !== 0) return result;
    }
    return 0;
  });
}

export function memoryUse(entry: RankedPod): number {
  return entry.stats?.memory?.workingSetBytes ?? 0;
}

export function memoryRequest(entry: RankedPod): number {
  return podRequests(entry.pod).memoryBytes;
}

export function diskUse(entry: RankedPod): number {
  return entry.stats?.['ephemeral-storage']?.usedBytes ?? 0;
}

export function diskRequest(entry: RankedPod): number {
  return podRequests(entry.pod).ephemeralStorageBytes;
}

function processes(entry: RankedPod): number {
  return entry.stats?.process_stats?.process_count ?? 0;
}

function unmeasuredFirst(a: RankedPod, b: RankedPod): number {
  return Number(a.stats !== undefined) - Number(b.stats !== undefined);
}

function exceeds(use: (p: RankedPod) => number, request: (p: RankedPod) => number): Compare {
  return (a, b) => Number(use(b) > request(b)) - Number(use(a) > request(a));
}

function lowerPriorityFirst(a: RankedPod, b: RankedPod): number {
  return (a.pod.spec?.priority ?? 0) - (b.pod.spec?.priority ?? 0);
}

function largerExcess(use: (p: RankedPod) => number, request: (p: RankedPod) => number): Compare {
  return (a, b) => (use(b) - request(b)) - (use(a) - request(a));
}
