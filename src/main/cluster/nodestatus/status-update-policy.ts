// When to send the node status, as upstream's tryUpdateNodeStatus decides with
// the node Lease on: the status is computed every nodeStatusUpdateFrequency and
// sent only when it changed (nodeStatusHasChanged: heartbeat times ignored,
// quantities and times compared by value, nil and empty alike) or when
// nodeStatusReportFrequency (plus the one-time jitter drawn after a change) has
// passed since the last send. Liveness in between is the Lease's job.
import type { V1NodeCondition, V1NodeStatus } from '@kubernetes/client-node';
import { resourceAmount } from '../../nodestatus/quantity-format.js';

/** Attempts per status update before giving up until the next period (nodeStatusUpdateRetry). */
export const NODE_STATUS_UPDATE_RETRY = 5;

/** True when the value is what Go decodes a missing field to (nil, "", 0, false, empty list or map). */
function isZeroValue(value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (value instanceof Date) return false;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

function timeValue(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value)) return Date.parse(value);
  return undefined;
}

/** apiequality.Semantic.DeepEqual over plain API objects. */
function semanticEqual(a: unknown, b: unknown): boolean {
  if (isZeroValue(a) && isZeroValue(b)) return true;
  const timeA = timeValue(a);
  const timeB = timeValue(b);
  if (timeA !== undefined || timeB !== undefined) return timeA === timeB;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => semanticEqual(item, b[index]));
  }
  const recordA = a as Record<string, unknown>;
  const recordB = b as Record<string, unknown>;
  for (const key of new Set([...Object.keys(recordA), ...Object.keys(recordB)])) {
    if (!semanticEqual(recordA[key], recordB[key])) return false;
  }
  return true;
}

/** Quantities compare by value ("1024Ki" equals "1Mi"), as Quantity.Cmp. */
function resourceListsEqual(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const listA = a ?? {};
  const listB = b ?? {};
  const names = new Set([...Object.keys(listA), ...Object.keys(listB)]);
  for (const name of names) {
    if (!(name in listA) || !(name in listB)) return false;
    try {
      if (resourceAmount(name, listA[name]) !== resourceAmount(name, listB[name])) return false;
    } catch {
      if (listA[name] !== listB[name]) return false;
    }
  }
  return true;
}

/** nodeConditionsHaveChanged: same conditions by type, lastHeartbeatTime ignored. */
export function nodeConditionsHaveChanged(
  previous: V1NodeCondition[] | undefined,
  next: V1NodeCondition[] | undefined,
): boolean {
  const before = previous ?? [];
  const after = next ?? [];
  if (before.length !== after.length) return true;
  const withoutHeartbeat = (conditions: V1NodeCondition[]): V1NodeCondition[] =>
    [...conditions]
      .sort((x, y) => (x.type < y.type ? -1 : x.type > y.type ? 1 : 0))
      .map(({ lastHeartbeatTime: _ignored, ...rest }) => rest);
  return !semanticEqual(withoutHeartbeat(before), withoutHeartbeat(after));
}

/** nodeStatusHasChanged: anything but heartbeat times differs. */
export function nodeStatusHasChanged(previous: V1NodeStatus | undefined, next: V1NodeStatus | undefined): boolean {
  if (!previous && !next) return false;
  if (!previous || !next) return true;
  if (nodeConditionsHaveChanged(previous.conditions, next.conditions)) return true;
  if (!resourceListsEqual(previous.capacity, next.capacity)) return true;
  if (!resourceListsEqual(previous.allocatable, next.allocatable)) return true;
  const rest = (status: V1NodeStatus): Record<string, unknown> => {
    const { conditions: _c, capacity: _cap, allocatable: _alloc, ...others } = status;
    return others;
  };
  return !semanticEqual(rest(previous), rest(next));
}

/**
 * Whether to send `next` now. `prev` is the status last sent (or read from the
 * API server), `lastSentMs` when it was sent (undefined: never by this process,
 * so send), `delayAfterChangeMs` the jitter from reportJitterAfterSendMs.
 */
export function shouldSendNodeStatus(
  prev: V1NodeStatus | undefined,
  next: V1NodeStatus,
  lastSentMs: number | undefined,
  nowMs: number,
  reportFrequencyMs: number,
  delayAfterChangeMs = 0,
): boolean {
  if (lastSentMs === undefined) return true;
  if (nodeStatusHasChanged(prev, next)) return true;
  return nowMs - lastSentMs >= reportFrequencyMs + delayAfterChangeMs;
}

/**
 * The jitter added to the next report period after a send (calculateDelay):
 * uniform in ±0.5 × reportFrequency when the send was caused by a change, so
 * nodes that changed together do not report together; 0 after a periodic send.
 */
export function reportJitterAfterSendMs(
  sentBecauseChanged: boolean,
  reportFrequencyMs: number,
  random: () => number = Math.random,
): number {
  return sentBecauseChanged ? Math.trunc(reportFrequencyMs * (random() - 0.5)) : 0;
}
