// The evented PLEG's subscription to the runtime's container events (CRI
// GetContainerEvents), as upstream's redesigned evented PLEG uses them: an event
// only says which pod changed and how, and what to do about it is the PLEG's
// (evented-pleg.ts); the periodic relist keeps running as the safety net. containerd 1.6
// answers UNIMPLEMENTED: the relist runs alone from then on. CRI-O with
// enable_pod_events = false (its default) answers OK and ends the stream at once
// without an event (its GetContainerEvents returns nil): that too means "no events
// here", not a failure, and is asked again only every few minutes in case the
// runtime was reconfigured. A stream that breaks (a runtime restart) is opened again
// with the jittered backoff while the periodic relist carries on. Whether events are
// in use is logged once it is known and on every change, so an operator can tell
// from the log alone.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { Backoff } from '../../shared/backoff.js';
import { isUnavailable, isUnimplemented, type CriClient } from '../../shared/cri/client.js';
import { ErrorCodes } from '../../shared/errors.js';
import { decodeContainerEvent, type ContainerEventType } from '../../shared/pleg/container-event-codec.js';

/** First wait before opening a broken stream again; it doubles up to the cap, plus jitter (src/shared/backoff.ts). */
export const EVENT_STREAM_INITIAL_BACKOFF_MS = 500;
export const EVENT_STREAM_MAX_BACKOFF_MS = 10_000;
/**
 * How long a new stream must stay open without failing before events count as
 * flowing: a runtime without the call fails it at once, and a server stream has
 * no reply that says it was accepted (containerd sends its headers with the first
 * event). The first event counts at once.
 */
export const EVENT_STREAM_SETTLE_MS = 1_000;
/**
 * How many streams in a row must end at once without an event before the runtime
 * counts as serving none (CRI-O with enable_pod_events = false). Two, so that a
 * stream a restarting runtime happened to end just after it opened is not taken
 * for one.
 */
export const EMPTY_STREAMS_FOR_NO_EVENTS = 2;
/** How often a runtime that serves no events (an empty stream) is asked again, in case it was reconfigured. */
export const NO_EVENTS_RETRY_MS = 5 * 60_000;

export interface ContainerEventWatcherOptions {
  cri: CriClient;
  logger: Logger;
  /** A container or sandbox of this pod changed (`type`: CONTAINER_STOPPED_EVENT, …). */
  onPodEvent: (podUid: string, type: ContainerEventType) => void;
  /** Events started or stopped flowing. */
  onLiveChange?: (live: boolean) => void;
  /** The reconnection backoff; EVENT_STREAM_*_BACKOFF_MS with the default jitter unless a test gives its own. */
  backoff?: Backoff;
  settleMs?: number;
  /** NO_EVENTS_RETRY_MS unless a test gives its own. */
  noEventsRetryMs?: number;
}

/** What the watcher did since the counts were last taken. */
export interface WatcherCounts {
  containerEvents: number;
  streamConnects: number;
  streamErrors: number;
}

/** How one stream ended: `empty` is the runtime ending it at once with OK and no event. */
type StreamEnd = 'stopped' | 'unimplemented' | 'empty' | 'broken';

/** What the log last said about container events: in use, not served by the runtime, or broken. */
type EventsState = 'in-use' | 'none' | 'broken';

/** Why a runtime that answers GetContainerEvents with OK and an empty, ended stream is taken to serve none. */
const EMPTY_STREAM_REASON =
  'the runtime ends GetContainerEvents at once without an event (CRI-O does so with enable_pod_events = false, its default)';

export class ContainerEventWatcher {
  private readonly abort = new AbortController();
  private readonly backoff: Backoff;
  private readonly settleMs: number;
  private readonly noEventsRetryMs: number;
  private running?: Promise<void>;
  private isLive = false;
  /** Unset until the first stream told; each change is logged once. */
  private loggedState?: EventsState;
  /** Streams in a row that ended at once without an event. */
  private emptyStreams = 0;
  private counts: WatcherCounts = { containerEvents: 0, streamConnects: 0, streamErrors: 0 };

  constructor(private readonly options: ContainerEventWatcherOptions) {
    this.backoff = options.backoff ?? new Backoff({ initialMs: EVENT_STREAM_INITIAL_BACKOFF_MS, maxMs: EVENT_STREAM_MAX_BACKOFF_MS });
    this.settleMs = options.settleMs ?? EVENT_STREAM_SETTLE_MS;
    this.noEventsRetryMs = options.noEventsRetryMs ?? NO_EVENTS_RETRY_MS;
  }

  /** Opens the stream, and keeps it open until stop() or UNIMPLEMENTED. */
  start(): void {
    this.running ??= this.watch();
  }

  /** Closes the stream (the runtime sees the call cancelled); resolves once the watcher is done. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  /** Resolves once the watcher is done: stopped, or the runtime has no container events. */
  get done(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** True while events flow. */
  get live(): boolean {
    return this.isLive;
  }

  /** The counts since the last call, which starts new ones. */
  takeCounts(): WatcherCounts {
    const counts = this.counts;
    this.counts = { containerEvents: 0, streamConnects: 0, streamErrors: 0 };
    return counts;
  }

  private async watch(): Promise<void> {
    for (;;) {
      const end = await this.watchOnce();
      this.setLive(false);
      if (end === 'stopped' || end === 'unimplemented') return;
      try {
        await sleep(this.waitAfter(end), undefined, { signal: this.abort.signal });
      } catch {
        return; // stopped while waiting
      }
    }
  }

  /** How long to wait before opening the stream again after it ended so. */
  private waitAfter(end: 'empty' | 'broken'): number {
    if (end === 'broken') {
      this.emptyStreams = 0;
      return this.backoff.next();
    }
    this.emptyStreams++;
    if (this.emptyStreams < EMPTY_STREAMS_FOR_NO_EVENTS) return this.backoff.next();
    this.backoff.reset();
    this.report('none', `${EMPTY_STREAM_REASON}; asked again every ${Math.round(this.noEventsRetryMs / 1000)} s`);
    return this.noEventsRetryMs;
  }

  /** One stream, from its opening to its end. */
  private async watchOnce(): Promise<StreamEnd> {
    const signal = this.abort.signal;
    if (signal.aborted) return 'stopped';
    this.counts.streamConnects++;
    const settle = setTimeout(() => this.flowing(), this.settleMs);
    let delivered = 0;
    try {
      for await (const event of this.options.cri.getContainerEvents({}, { signal, decode: decodeContainerEvent })) {
        this.flowing();
        delivered++;
        this.counts.containerEvents++;
        if (event.podUid) this.options.onPodEvent(event.podUid, event.type);
      }
      if (signal.aborted) return 'stopped';
      // Ended with OK before it counted as flowing and without an event: the runtime has none to send.
      if (delivered === 0 && !this.isLive) return 'empty';
      this.broken(new Error('the runtime ended the container event stream'));
      return 'broken';
    } catch (err) {
      if (signal.aborted) return 'stopped';
      if (isUnimplemented(err)) {
        this.counts.streamErrors++;
        this.report('none', `GetContainerEvents is unimplemented (containerd 1.6): ${(err as Error).message}`);
        return 'unimplemented';
      }
      this.broken(err);
      return 'broken';
    } finally {
      clearTimeout(settle);
    }
  }

  private flowing(): void {
    if (this.isLive) return;
    this.backoff.reset();
    this.emptyStreams = 0;
    this.setLive(true);
    this.report('in-use');
  }

  private broken(err: unknown): void {
    this.counts.streamErrors++;
    this.report('broken', (err as Error).message ?? String(err), isUnavailable(err) ? ErrorCodes.CRI_UNAVAILABLE : ErrorCodes.CRI_CALL_FAILED);
  }

  /** Logs whether container events are in use, once when it is first known and once per change: an outage is one warning. */
  private report(state: EventsState, reason?: string, code?: string): void {
    if (this.loggedState === state) return;
    this.loggedState = state;
    const { logger } = this.options;
    if (state === 'in-use') {
      logger.info({ containerEvents: true }, 'Container events in use: the PLEG relists a pod as its containers exit, and everything every period');
    } else if (state === 'none') {
      logger.info({ containerEvents: false, reason }, 'Container runtime has no container events: the PLEG relists every period alone');
    } else {
      logger.warn({ containerEvents: false, code, err: reason }, 'Container event stream broke: the PLEG relists every period alone until it is open again');
    }
  }

  private setLive(live: boolean): void {
    if (this.isLive === live) return;
    this.isLive = live;
    this.options.onLiveChange?.(live);
  }
}

