// Upstream's EventCorrelator (client-go tools/record/events_cache.go), pure: it
// turns a KubeletEvent into the API write to make. In upstream's order:
//  1. aggregation (EventAggregator): the 10th event within 10 minutes that differs
//     from earlier ones only by message becomes one aggregate event
//     "(combined from similar events): <message>", counted like any other;
//  2. dedup (eventLogger): an event seen before (same key, message included) is
//     sent as a strategic merge patch of count / lastTimestamp / message of the
//     existing event instead of a new one;
//  3. the spam filter (EventSourceObjectSpamFilter): a token bucket per source and
//     involved object, 25 events at once then one per 5 minutes; an event over it
//     is dropped, though step 2 has already counted it.
import type { CoreV1Event, V1ObjectReference } from '@kubernetes/client-node';
import type { KubeletEvent } from '../../../shared/events/event-types.js';

export const AGGREGATE_MAX_EVENTS = 10;
export const AGGREGATE_INTERVAL_MS = 600_000;
export const SPAM_BURST = 25;
/** The spam filter's refill: one event per 5 minutes (upstream's qps 1/300). */
export const SPAM_REFILL_INTERVAL_MS = 300_000;
export const LRU_CACHE_ENTRIES = 4096;
export const AGGREGATE_MESSAGE_PREFIX = '(combined from similar events): ';
export const EVENT_SOURCE_COMPONENT = 'kubelet';
/** Where events about cluster-scoped objects (the node) go, as upstream. */
export const DEFAULT_EVENT_NAMESPACE = 'default';

/** The strategic merge patch of a repeated event, as upstream's eventObserve computes it. */
export interface EventPatch {
  count: number;
  lastTimestamp: string;
  message: string;
}

export type CorrelateResult =
  | { action: 'create'; body: CoreV1Event }
  /** `body` is the whole event, for a create when the patched event is gone (404), as upstream. */
  | { action: 'patch'; name: string; namespace: string; patch: EventPatch; body: CoreV1Event }
  | { action: 'drop' };

export interface CorrelatorOptions {
  nodeName: string;
  maxEvents?: number;
  aggregateIntervalMs?: number;
  spamBurst?: number;
  spamRefillIntervalMs?: number;
  cacheEntries?: number;
}

interface AggregateRecord {
  /** Distinct messages seen in the current interval. */
  messages: Set<string>;
  lastMs: number;
}

interface EventLog {
  count: number;
  firstTimestampMs: number;
  name: string;
  resourceVersion?: string;
}

interface SpamRecord {
  tokens: number;
  lastMs: number;
}

/** A least-recently-used map, as the groupcache lru upstream's caches use. */
class LruCache<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly maxEntries: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }
}

const KEY_SEPARATOR = '\u0000';

function objectKeyParts(event: CoreV1Event): string[] {
  const ref = event.involvedObject;
  return [event.source?.component ?? '', event.source?.host ?? '', ref.kind ?? '', ref.namespace ?? '', ref.name ?? '', ref.uid ?? '', ref.apiVersion ?? ''];
}

/** upstream's getSpamKey: source and involved object. */
function spamKey(event: CoreV1Event): string {
  return objectKeyParts(event).join(KEY_SEPARATOR);
}

/** upstream's EventAggregatorByReasonFunc: everything but the message (and fieldPath). */
function aggregateKey(event: CoreV1Event): string {
  return [...objectKeyParts(event), event.type ?? '', event.reason ?? '', event.reportingComponent ?? '', event.reportingInstance ?? ''].join(KEY_SEPARATOR);
}

/** upstream's getEventKey: source, involved object with fieldPath, type, reason, message. */
function eventKey(event: CoreV1Event): string {
  return [...objectKeyParts(event), event.involvedObject.fieldPath ?? '', event.type ?? '', event.reason ?? '', event.message ?? ''].join(KEY_SEPARATOR);
}

/** metav1.Time keeps whole seconds, on the wire and so in our bodies. */
function eventTime(ms: number): Date {
  return new Date(Math.floor(ms / 1000) * 1000);
}

/** metav1.Time on the wire: RFC 3339 in whole seconds. */
export function formatEventTime(ms: number): string {
  return eventTime(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function timeMs(value: Date | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

export class EventCorrelator {
  private readonly nodeName: string;
  private readonly maxEvents: number;
  private readonly aggregateIntervalMs: number;
  private readonly spamBurst: number;
  private readonly spamRefillIntervalMs: number;
  private readonly aggregates: LruCache<AggregateRecord>;
  private readonly eventLogs: LruCache<EventLog>;
  private readonly spamRecords: LruCache<SpamRecord>;
  /** Last name suffix handed out, so two events in the same millisecond get distinct names. */
  private lastNameNanos = 0n;

  constructor(options: CorrelatorOptions) {
    this.nodeName = options.nodeName;
    this.maxEvents = options.maxEvents ?? AGGREGATE_MAX_EVENTS;
    this.aggregateIntervalMs = options.aggregateIntervalMs ?? AGGREGATE_INTERVAL_MS;
    this.spamBurst = options.spamBurst ?? SPAM_BURST;
    this.spamRefillIntervalMs = options.spamRefillIntervalMs ?? SPAM_REFILL_INTERVAL_MS;
    const entries = options.cacheEntries ?? LRU_CACHE_ENTRIES;
    this.aggregates = new LruCache(entries);
    this.eventLogs = new LruCache(entries);
    this.spamRecords = new LruCache(entries);
  }

  /** Decides the API write for one event, as upstream's EventCorrelate. */
  correlate(event: KubeletEvent, nowMs: number): CorrelateResult {
    const { body: aggregated, cacheKey } = this.aggregate(this.makeEvent(event), nowMs);
    const observed = this.observe(aggregated, cacheKey);
    if (this.isSpam(observed.body, nowMs)) return { action: 'drop' };
    if (!observed.patch) return { action: 'create', body: observed.body };
    const { name = '', namespace = DEFAULT_EVENT_NAMESPACE } = observed.body.metadata;
    return { action: 'patch', name, namespace, patch: observed.patch, body: observed.body };
  }

  /** Takes the server's copy of a written event (name, count, resourceVersion), as upstream's UpdateState. */
  updateState(serverEvent: CoreV1Event): void {
    this.eventLogs.set(eventKey(serverEvent), {
      count: serverEvent.count ?? 1,
      firstTimestampMs: timeMs(serverEvent.firstTimestamp) ?? 0,
      name: serverEvent.metadata.name ?? '',
      resourceVersion: serverEvent.metadata.resourceVersion,
    });
  }

  /** upstream's makeEvent: `<object name>.<hex nanoseconds>`, count 1, source kubelet on this node. */
  private makeEvent(event: KubeletEvent): CoreV1Event {
    const object = event.involvedObject;
    const involvedObject: V1ObjectReference = { kind: object.kind, name: object.name, uid: object.uid };
    if (object.kind === 'Pod') involvedObject.apiVersion = 'v1';
    if (object.namespace) involvedObject.namespace = object.namespace;
    if (object.fieldPath) involvedObject.fieldPath = object.fieldPath;
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: this.eventName(object.name, event.timestampMs), namespace: object.namespace || DEFAULT_EVENT_NAMESPACE },
      involvedObject,
      reason: event.reason,
      message: event.message,
      type: event.type,
      firstTimestamp: eventTime(event.timestampMs),
      lastTimestamp: eventTime(event.timestampMs),
      count: 1,
      source: { component: EVENT_SOURCE_COMPONENT, host: this.nodeName },
      reportingComponent: EVENT_SOURCE_COMPONENT,
      reportingInstance: this.nodeName,
    };
  }

  private eventName(objectName: string, timestampMs: number): string {
    let nanos = BigInt(Math.trunc(timestampMs)) * 1_000_000n;
    if (nanos <= this.lastNameNanos) nanos = this.lastNameNanos + 1n;
    this.lastNameNanos = nanos;
    return `${objectName}.${nanos.toString(16)}`;
  }

  /** upstream's EventAggregate: the event itself, or the aggregate event and its cache key. */
  private aggregate(body: CoreV1Event, nowMs: number): { body: CoreV1Event; cacheKey: string } {
    const key = aggregateKey(body);
    let record = this.aggregates.get(key);
    if (!record || nowMs - record.lastMs > this.aggregateIntervalMs) record = { messages: new Set(), lastMs: nowMs };
    record.messages.add(body.message ?? '');
    record.lastMs = nowMs;
    this.aggregates.set(key, record);
    if (record.messages.size < this.maxEvents) return { body, cacheKey: eventKey(body) };

    // Keep the set below the threshold, as upstream's PopAny, so that every further
    // new message in the interval lands on the aggregate event too.
    record.messages.delete(record.messages.values().next().value as string);
    const aggregateEvent: CoreV1Event = {
      ...body,
      metadata: { name: this.eventName(body.involvedObject.name ?? '', nowMs), namespace: body.metadata.namespace },
      message: AGGREGATE_MESSAGE_PREFIX + (body.message ?? ''),
      firstTimestamp: eventTime(nowMs),
      lastTimestamp: eventTime(nowMs),
      count: 1,
    };
    return { body: aggregateEvent, cacheKey: key };
  }

  /** upstream's eventObserve: a repeat takes the first occurrence's name and adds one to its count. */
  private observe(body: CoreV1Event, cacheKey: string): { body: CoreV1Event; patch?: EventPatch } {
    const last = this.eventLogs.get(cacheKey);
    let observed = body;
    let patch: EventPatch | undefined;
    if (last && last.count > 0) {
      observed = {
        ...body,
        metadata: { ...body.metadata, name: last.name, resourceVersion: last.resourceVersion },
        firstTimestamp: eventTime(last.firstTimestampMs),
        count: last.count + 1,
      };
      patch = { count: last.count + 1, lastTimestamp: formatEventTime(timeMs(body.lastTimestamp) ?? 0), message: body.message ?? '' };
    }
    this.eventLogs.set(cacheKey, {
      count: observed.count ?? 1,
      firstTimestampMs: timeMs(observed.firstTimestamp) ?? 0,
      name: observed.metadata.name ?? '',
      resourceVersion: observed.metadata.resourceVersion,
    });
    return { body: observed, patch };
  }

  /** upstream's EventSourceObjectSpamFilter.Filter: true when the source+object is over its budget. */
  private isSpam(body: CoreV1Event, nowMs: number): boolean {
    const key = spamKey(body);
    const record = this.spamRecords.get(key) ?? { tokens: this.spamBurst, lastMs: nowMs };
    record.tokens = Math.min(this.spamBurst, record.tokens + Math.max(0, nowMs - record.lastMs) / this.spamRefillIntervalMs);
    record.lastMs = nowMs;
    const spam = record.tokens < 1;
    if (!spam) record.tokens -= 1;
    this.spamRecords.set(key, record);
    return spam;
  }
}
