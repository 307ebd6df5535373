// The evented PLEG's subscription to the runtime's container events (CRI
// GetContainerEvents), as upstream's redesigned evented PLEG uses them: an event
// only says which pod changed and how, and what to do about it is the PLEG's
// (evented-pleg.ts); the periodic relist keeps running as the safety net. containerd 1.6
// answers UNIMPLEMENTED: logged once, and the relist runs alone from then on. A
// stream that breaks (a runtime restart) is opened again with the jittered backoff
// while the periodic relist carries on.
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
}

/** What the watcher did since the counts were last taken. */
export interface WatcherCounts {
  containerEvents: number;
  streamConnects: number;
  streamErrors: number;
}

type StreamEnd = 'stopped' | 'unimplemented' | 'broken';

export class ContainerEventWatcher {
  private readonly abort = new AbortController();
  private readonly backoff: Backoff;
  private readonly settleMs: number;
  private running?: Promise<void>;
  private isLive = false;
  /** Set while the stream is down after it had been up: the outage is logged once, and its end. */
  private outage = false;
  private counts: WatcherCounts = { containerEvents: 0, streamConnects: 0, streamErrors: 0 };

  constructor(private readonly options: ContainerEventWatcherOptions) {
    this.backoff = options.backoff ?? new Backoff({ initialMs: EVENT_STREAM_INITIAL_BACKOFF_MS, maxMs: EVENT_STREAM_MAX_BACKOFF_MS });
    this.settleMs = options.settleMs ?? EVENT_STREAM_SETTLE_MS;
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
      if (end !== 'broken') return;
      try {
        await sleep(this.backoff.next(), undefined, { signal: this.abort.signal });
      } catch {
        return; // stopped while waiting
      }
    }
  }

  /** One stream, from its opening to its end. */
  private async watchOnce(): Promise<StreamEnd> {
    const signal = this.abort.signal;
    if (signal.aborted) return 'stopped';
    this.counts.streamConnects++;
    const settle = setTimeout(() => this.flowing(), this.settleMs);
    try {
      for await (const event of this.options.cri.getContainerEvents({}, { signal, decode: decodeContainerEvent })) {
        this.flowing();
        this.counts.containerEvents++;
        if (event.podUid) this.options.onPodEvent(event.podUid, event.type);
      }
      if (signal.aborted) return 'stopped';
      this.broken(new Error('the runtime ended the container event stream'));
      return 'broken';
    } catch (err) {
      if (signal.aborted) return 'stopped';
      if (isUnimplemented(err)) {
        this.counts.streamErrors++;
        this.options.logger.info(
          { err: (err as Error).message },
          'Container runtime has no container events (GetContainerEvents is unimplemented): the PLEG relists every period alone',
        );
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
    this.setLive(true);
    if (this.outage) {
      this.outage = false;
      this.options.logger.info('Container events flow again: the PLEG relists pods as their containers change');
    }
  }

  private broken(err: unknown): void {
    this.counts.streamErrors++;
    if (this.outage) return;
    this.outage = true;
    this.options.logger.warn(
      { code: isUnavailable(err) ? ErrorCodes.CRI_UNAVAILABLE : ErrorCodes.CRI_CALL_FAILED, err: (err as Error).message ?? String(err) },
      'Container event stream broke: the PLEG relists every period alone until it is open again',
    );
  }

  private setLive(live: boolean): void {
    if (this.isLive === live) return;
    this.isLive = live;
    this.options.onLiveChange?.(live);
  }
}

