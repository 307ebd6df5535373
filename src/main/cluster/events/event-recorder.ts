// The kubelet's event recorder, as client-go's broadcaster + recordToSink: record()
// only queues; one drain loop correlates each event (EventCorrelator) and writes
// it through its own eventRecordQPS / eventBurst token bucket, as upstream's
// separate event client. Events are best effort: a write that fails for want of
// the server is retried a few times and then dropped with a log line, one the
// server rejects is dropped at once, and the queue keeps the newest 1000.
import { PatchStrategy, setHeaderOptions, type CoreV1Event } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ErrorCodes } from '../../../shared/errors.js';
import type { KubeClients } from '../apiclient/kube-client.js';
import { TokenBucket } from '../apiclient/token-bucket.js';
import { EventCorrelator, type CorrelateResult } from './event-aggregator.js';
import type { KubeletEvent } from '../../../shared/events/event-types.js';
import { httpStatusOf } from '../apiclient/api-errors.js';

/** KubeletConfiguration defaults for eventRecordQPS / eventBurst. */
export const DEFAULT_EVENT_RECORD_QPS = 50;
export const DEFAULT_EVENT_BURST = 100;
export const MAX_QUEUED_EVENTS = 1000;
/** upstream's maxTriesPerEvent and sleep between tries (the first one randomised). */
export const MAX_TRIES_PER_EVENT = 12;
export const RETRY_DELAY_MS = 10_000;

export interface EventRecorderOptions {
  clients: Pick<KubeClients, 'core'>;
  nodeName: string;
  logger: Logger;
  /** eventRecordQPS; 0 means no limit, as upstream. */
  qps?: number;
  /** eventBurst. */
  burst?: number;
  maxQueuedEvents?: number;
  maxTriesPerEvent?: number;
  retryDelayMs?: number;
}

type WriteOutcome = 'written' | 'rejected' | 'retry';


/** Whether trying again could help: no answer from the server, throttling or a server error. */
function isRetriable(code: number | undefined): boolean {
  return code === undefined || code === 429 || code >= 500;
}

function describe(event: KubeletEvent): Record<string, unknown> {
  const object = event.involvedObject;
  return {
    object: `${object.kind}/${object.namespace ? `${object.namespace}/` : ''}${object.name}`,
    fieldPath: object.fieldPath,
    type: event.type,
    reason: event.reason,
    message: event.message,
  };
}

export class EventRecorder {
  /** API writes made, for the bench and the issue's write count. */
  readonly writes = { creates: 0, patches: 0 };
  /** Events not written: over the spam filter, pushed out of a full queue, or failed. */
  readonly dropped = { spam: 0, queueFull: 0, failed: 0 };

  private readonly correlator: EventCorrelator;
  private readonly limiter: TokenBucket;
  private readonly logger: Logger;
  private readonly queue: KubeletEvent[] = [];
  private readonly maxQueuedEvents: number;
  private readonly maxTriesPerEvent: number;
  private readonly retryDelayMs: number;
  private draining?: Promise<void>;
  private stopped = false;
  private wakeFromSleep?: () => void;

  constructor(private readonly options: EventRecorderOptions) {
    this.correlator = new EventCorrelator({ nodeName: options.nodeName });
    this.limiter = new TokenBucket(options.qps ?? DEFAULT_EVENT_RECORD_QPS, options.burst ?? DEFAULT_EVENT_BURST);
    this.logger = options.logger;
    this.maxQueuedEvents = options.maxQueuedEvents ?? MAX_QUEUED_EVENTS;
    this.maxTriesPerEvent = options.maxTriesPerEvent ?? MAX_TRIES_PER_EVENT;
    this.retryDelayMs = options.retryDelayMs ?? RETRY_DELAY_MS;
  }

  /** Queues an event; never blocks and never throws. */
  record(event: KubeletEvent): void {
    if (this.stopped) return;
    this.logger.debug(describe(event), 'Event occurred');
    this.queue.push(event);
    if (this.queue.length > this.maxQueuedEvents) {
      const oldest = this.queue.shift()!;
      this.dropped.queueFull++;
      this.logger.warn({ code: ErrorCodes.API_UNAVAILABLE, queued: this.maxQueuedEvents, ...describe(oldest) }, 'Event queue full; dropping the oldest event');
    }
    if (!this.draining) this.draining = this.drainLoop().finally(() => (this.draining = undefined));
  }

  /** Resolves once every queued event has been written or dropped. */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Drops what is queued and stops writing; an in-flight write finishes on its own. */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    this.wakeFromSleep?.();
  }

  private async drainLoop(): Promise<void> {
    while (!this.stopped && this.queue.length > 0) {
      const event = this.queue.shift()!;
      try {
        await this.recordToSink(event);
      } catch (err) {
        this.logger.error({ code: ErrorCodes.INTERNAL, err: (err as Error).message, ...describe(event) }, 'Unable to write event');
      }
    }
  }

  /** upstream's recordToSink: correlate at write time, then try up to maxTriesPerEvent times. */
  private async recordToSink(event: KubeletEvent): Promise<void> {
    const result = this.correlator.correlate(event, Date.now());
    if (result.action === 'drop') {
      this.dropped.spam++;
      this.logger.debug(describe(event), 'Event dropped by the spam filter');
      return;
    }
    for (let tries = 1; !this.stopped; tries++) {
      const outcome = await this.writeOnce(result, event);
      if (outcome !== 'retry') return;
      if (tries >= this.maxTriesPerEvent) {
        this.dropped.failed++;
        this.logger.error({ code: ErrorCodes.API_UNAVAILABLE, tries, ...describe(event) }, 'Unable to write event (retry limit exceeded)');
        return;
      }
      // The first sleep is randomised so that clients do not retry in step, as upstream.
      await this.sleep(tries === 1 ? Math.random() * this.retryDelayMs : this.retryDelayMs);
    }
  }

  /** upstream's recordEvent: patch a repeat, create when new or when the patched event is gone. */
  private async writeOnce(result: Exclude<CorrelateResult, { action: 'drop' }>, event: KubeletEvent): Promise<WriteOutcome> {
    try {
      const written = result.action === 'patch' ? await this.patchOrCreate(result) : await this.create(result.body);
      this.correlator.updateState(written);
      return 'written';
    } catch (err) {
      const code = httpStatusOf(err);
      if (isRetriable(code)) {
        this.logger.warn({ code: ErrorCodes.API_UNAVAILABLE, httpCode: code, err: (err as Error).message, ...describe(event) }, 'Unable to write event (may retry after sleeping)');
        return 'retry';
      }
      this.dropped.failed++;
      const level = code === 409 ? 'debug' : 'error';
      this.logger[level]({ code: ErrorCodes.API_UNAVAILABLE, httpCode: code, err: (err as Error).message, ...describe(event) }, 'Server rejected event (will not retry)');
      return 'rejected';
    }
  }

  private async patchOrCreate(result: Extract<CorrelateResult, { action: 'patch' }>): Promise<CoreV1Event> {
    await this.limiter.take();
    try {
      const patched = await this.options.clients.core.patchNamespacedEvent(
        { name: result.name, namespace: result.namespace, body: result.patch },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      );
      this.writes.patches++;
      return patched;
    } catch (err) {
      if (httpStatusOf(err) !== 404) throw err;
      const { resourceVersion: _stale, ...metadata } = result.body.metadata;
      return this.create({ ...result.body, metadata });
    }
  }

  private async create(body: CoreV1Event): Promise<CoreV1Event> {
    await this.limiter.take();
    const namespace = body.metadata.namespace ?? 'default';
    const created = await this.options.clients.core.createNamespacedEvent({ namespace, body });
    this.writes.creates++;
    return created;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeFromSleep = done;
    });
  }
}
