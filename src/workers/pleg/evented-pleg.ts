// The PLEG as one piece, wherever it runs (its worker thread, or the main thread
// with --workers 0): the periodic full relist the main thread asks for, and, when
// the runtime serves container events, a per-pod relist for each pod whose
// container or sandbox exited, as upstream's redesigned evented PLEG (a container
// exit watcher). Only exits are worth it: a container created, started or removed,
// and a sandbox made, are the kubelet's own doing, which the sync that did it has
// already read; an exit is the news a pod waits for (an init container done, a
// crash). Every result, full or per-pod, is published the moment it is applied,
// so one channel carries a pod's events in order; a per-pod relist that found
// nothing new publishes nothing.
import type { Logger } from 'pino';
import type { CriClient } from '../../shared/cri/client.js';
import type { RuntimeEventsFlag } from '../../shared/pleg/runtime-events-flag.js';
import type { EventedPlegCounts, RelistResult } from '../../shared/shard-protocol.js';
import { ContainerEventWatcher } from './container-event-watcher.js';
import { PodRelistQueue } from './pod-relist-queue.js';
import { Relister } from './relist.js';

export interface PlegOptions {
  cri: CriClient;
  logger: Logger;
  /** Set while container events flow, for the shards to read. */
  eventsFlag: RuntimeEventsFlag;
  /** Every applied result that matters: each full one, and each per-pod one with events. */
  publish: (result: RelistResult) => void;
  /** Overrides of the watcher's reconnection timing (tests). */
  watcher?: Pick<ConstructorParameters<typeof ContainerEventWatcher>[0], 'backoff' | 'settleMs'>;
}

export class Pleg {
  private readonly relister: Relister;
  private readonly watcher: ContainerEventWatcher;
  private readonly podRelists: PodRelistQueue;
  private podRelistCount = 0;
  private podRelistErrors = 0;

  constructor(private readonly options: PlegOptions) {
    const { cri, logger, eventsFlag } = options;
    // A replaced PLEG thread starts from "no events" until its own stream is up.
    eventsFlag.set(false);
    this.relister = new Relister(cri, (result) => this.applied(result));
    this.podRelists = new PodRelistQueue((podUid) => this.relistPod(podUid));
    this.watcher = new ContainerEventWatcher({
      cri,
      logger,
      onPodEvent: (podUid, type) => {
        if (type === 'CONTAINER_STOPPED_EVENT') this.podRelists.request(podUid);
      },
      onLiveChange: (live) => eventsFlag.set(live),
      ...options.watcher,
    });
  }

  /** Subscribes to the runtime's container events (when it has them). */
  start(): void {
    this.watcher.start();
  }

  /** The periodic full relist; its result is also published. Rejects when the runtime cannot be listed. */
  relist(): Promise<RelistResult> {
    return this.relister.relist();
  }

  /** True while container events flow. */
  get eventsLive(): boolean {
    return this.watcher.live;
  }

  /** Closes the event stream and waits for the per-pod relists in flight. */
  async stop(): Promise<void> {
    await this.watcher.stop();
    await this.podRelists.idle();
    this.options.eventsFlag.set(false);
  }

  private applied(result: RelistResult): void {
    if (result.podUid === undefined) result.evented = this.takeCounts();
    else if (result.events.length === 0) return;
    this.options.publish(result);
  }

  private async relistPod(podUid: string): Promise<void> {
    this.podRelistCount++;
    try {
      await this.relister.relistPod(podUid);
    } catch (err) {
      // The periodic relist covers the pod; one failure is not worth more than a debug line.
      this.podRelistErrors++;
      this.options.logger.debug({ uid: podUid, err: (err as Error).message }, 'Per-pod relist failed');
    }
  }

  private takeCounts(): EventedPlegCounts {
    const watcher = this.watcher.takeCounts();
    const counts: EventedPlegCounts = { ...watcher, podRelists: this.podRelistCount, podRelistErrors: this.podRelistErrors, live: this.watcher.live };
    this.podRelistCount = 0;
    this.podRelistErrors = 0;
    return counts;
  }
}
