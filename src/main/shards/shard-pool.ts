// The shard threads as the main thread sees them. Each shard is a piscina pool of
// exactly one thread (so piscina replaces a thread that dies, queues tasks while it
// starts, and keeps run/wait histograms), running many pod syncs at once; pods are
// routed by a stable hash of their UID. The PLEG has a thread of its own.
// With --workers 0 the same Shard and Pleg run inline on the main thread.
import type { Logger } from 'pino';
import { Piscina } from 'piscina';
import * as Comlink from 'comlink';
import { nodeEndpoint } from '../../shared/comlink-node.js';
import {
  isNeedFullRequest,
  isPlegRelistMessage,
  isPodEventMessage,
  isProbeResultMessage,
  isPullPortMessage,
  THREAD_CPU_TASK,
  THREAD_HEAP_TASK,
  type PodEventMessage,
  type ProbeResultMessage,
  type ProbeStats,
  type RelistResult,
  type ShardMessage,
  type ShardSettings,
  type ShardSyncReply,
  type ShardTask,
  type SyncPodRequest,
  type SyncPodResult,
  type WorkerBootData,
} from '../../shared/shard-protocol.js';
import { Shard } from '../../workers/shard.js';
import { openShardCri } from '../../workers/shard-cri.js';
import { Pleg } from '../../workers/pleg/evented-pleg.js';
import { RuntimeEventsFlag } from '../../shared/pleg/runtime-events-flag.js';
import type { PullCoordinator } from '../images/pull-coordinator.js';
import { shardForUid } from './shard-hash.js';
import { ShardRequests, type ShardRequestCounts } from './shard-requests.js';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { podUid } from '../../shared/types.js';
import type { HeapFigures } from '../../shared/thread-heap.js';

/** Pod syncs one shard thread runs at once; each mostly waits on the runtime. */
export const CONCURRENT_SYNCS_PER_SHARD = 512;

const SHARD_WORKER_URL = new URL('../../workers/shard-worker.js', import.meta.url).href;
const PLEG_WORKER_URL = new URL('../../workers/pleg-worker.js', import.meta.url).href;

export interface ShardPoolOptions {
  workers: number;
  settings: ShardSettings;
  pulls: PullCoordinator;
  logger: Logger;
  /**
   * Called when a shard thread is gone (piscina's workerDestroy, before its
   * replacement runs): what it held node-wide (runtime creation permits) is taken back.
   */
  onShardLost?: (shardIndex: number) => void;
  /** Called when a shard thread was replaced: its pods must be resynced from the runtime. */
  onShardReplaced: (shardIndex: number) => void;
  /** A probe result of a container changed in some shard (only changes cross the thread boundary). */
  onProbeResult?: (message: ProbeResultMessage) => void;
  /** A pod event a shard recorded, as it recorded it (while the sync that produced it still runs). */
  onPodEvent?: (message: PodEventMessage) => void;
  /**
   * Every PLEG result, full relists and the per-pod relists container events
   * trigger alike, in the order the PLEG applied them (so each pod's events stay
   * in order); a full relist's is handed over before relist() resolves.
   */
  onRelist: (result: RelistResult) => void;
  faultInjection?: boolean;
}

export interface ShardStats {
  shard: number;
  /** Syncs the shard finished (piscina's completed tasks). */
  completed: number;
  /** Syncs waiting for the shard (its queue; a shard runs up to CONCURRENT_SYNCS_PER_SHARD at once). */
  queued: number;
  /** Times the shard's thread died and was replaced. */
  threadRestarts: number;
  runP99Ms: number;
  waitP99Ms: number;
  /** Sync requests that carried the pod, that named what the shard held, and that the shard sent back for everything. */
  requests?: ShardRequestCounts;
}

interface ThreadShard {
  pool: Piscina;
  threadsCreated: number;
  /** What this thread was sent of each pod: later syncs send only what changed. */
  requests: ShardRequests;
}

export class ShardPool {
  readonly shardCount: number;
  private readonly threads: ThreadShard[] = [];
  private readonly inlineShard?: Shard;
  private readonly plegPool?: Piscina;
  private readonly inlinePleg?: Pleg;
  /** relist() calls waiting for their result to arrive on the PLEG thread's port. */
  private readonly fullRelistWaiters: Array<(result: RelistResult) => void> = [];

  constructor(private readonly options: ShardPoolOptions) {
    this.shardCount = Math.max(options.workers, 1);
    if (options.workers === 0) {
      this.inlineShard = new Shard(0, options.settings, options.pulls, options.logger, (message) => this.deliverShardMessage(message));
      this.inlinePleg = new Pleg({
        cri: openShardCri(options.settings),
        logger: options.logger,
        eventsFlag: new RuntimeEventsFlag(options.settings.runtimeEventsLive),
        publish: (result) => this.deliverRelist(result),
      });
      this.inlinePleg.start();
      return;
    }
    for (let index = 0; index < options.workers; index++) this.threads.push(this.startShardThread(index));
    this.plegPool = new Piscina({
      filename: PLEG_WORKER_URL,
      minThreads: 1,
      maxThreads: 1,
      atomics: 'disabled',
      idleTimeout: Number.MAX_SAFE_INTEGER,
      workerData: this.bootData(-1),
    });
    this.plegPool.on('message', (message: unknown) => {
      if (isPlegRelistMessage(message)) this.deliverRelist(message.result);
    });
    this.plegPool.on('error', (err: Error) => options.logger.error({ err: err.message }, 'PLEG thread error'));
  }

  shardOf(uid: string): number {
    return shardForUid(uid, this.shardCount);
  }

  /**
   * Runs one pod sync on the pod's shard. A thread gets only what it does not hold
   * yet; if it lost what the request names, it says so and gets the whole request.
   */
  async sync(request: SyncPodRequest): Promise<SyncPodResult> {
    if (this.inlineShard) return this.inlineShard.sync(request);
    const thread = this.threads[this.shardOf(podUid(request.pod))];
    const reply = await this.runSync(thread, request, false);
    if (!isNeedFullRequest(reply)) return reply;
    const retried = await this.runSync(thread, request, true);
    if (!isNeedFullRequest(retried)) return retried;
    throw new ShardletError(ErrorCodes.INTERNAL, `shard asked again for the whole sync request of pod ${retried.uid} it was just sent`, { uid: retried.uid });
  }

  private async runSync(thread: ThreadShard, request: SyncPodRequest, whole: boolean): Promise<ShardSyncReply> {
    const wire = thread.requests.encode(request, whole);
    const task: ShardTask = { op: 'sync', request: wire };
    let reply: ShardSyncReply;
    try {
      reply = (await thread.pool.run(task)) as ShardSyncReply;
    } catch (err) {
      thread.requests.forget(wire.uid);
      throw err;
    }
    thread.requests.settled(wire, reply);
    return reply;
  }

  /** CPU time of each shard thread and of the PLEG thread (none with --workers 0: the main thread does their work). */
  async threadCpuMicros(): Promise<{ shardsMicros: number[]; plegMicros: number }> {
    if (this.inlineShard) return { shardsMicros: [], plegMicros: 0 };
    const byName = { name: THREAD_CPU_TASK };
    const [shardsMicros, plegMicros] = await Promise.all([
      Promise.all(this.threads.map((thread) => thread.pool.run(null, byName) as Promise<number>)),
      this.plegPool!.run(null, byName) as Promise<number>,
    ]);
    return { shardsMicros, plegMicros };
  }

  /** The heap of each shard thread and of the PLEG thread (none with --workers 0: the main thread holds their state). */
  async threadHeaps(): Promise<{ shards: HeapFigures[]; pleg?: HeapFigures }> {
    if (this.inlineShard) return { shards: [] };
    const byName = { name: THREAD_HEAP_TASK };
    const [shards, pleg] = await Promise.all([
      Promise.all(this.threads.map((thread) => thread.pool.run(null, byName) as Promise<HeapFigures>)),
      this.plegPool!.run(null, byName) as Promise<HeapFigures>,
    ]);
    return { shards, pleg };
  }

  /** Every shard's probe counts and recent probe durations (pulled on demand: only result changes are pushed). */
  async probeStats(): Promise<ProbeStats[]> {
    if (this.inlineShard) return [this.inlineShard.probeStats()];
    const task: ShardTask = { op: 'probe-stats' };
    return Promise.all(this.threads.map((thread) => thread.pool.run(task) as Promise<ProbeStats>));
  }

  /**
   * One full PLEG relist, off the main thread unless --workers 0. Its result goes
   * to onRelist first; this resolves with it afterwards.
   */
  relist(): Promise<RelistResult> {
    if (this.inlinePleg) return this.inlinePleg.relist();
    return new Promise((resolve, reject) => {
      this.fullRelistWaiters.push(resolve);
      // The task only ends the relist; its result comes on the PLEG thread's port, in order with the per-pod ones.
      this.plegPool!.run(null).catch((err: unknown) => {
        const index = this.fullRelistWaiters.indexOf(resolve);
        if (index >= 0) this.fullRelistWaiters.splice(index, 1);
        reject(err);
      });
    });
  }

  /** Ends a shard thread on purpose (tests of shard loss; needs faultInjection); resolves once it is gone. */
  async crashShard(index: number): Promise<void> {
    const ended = this.threads[index]?.pool.run({ op: 'exit' } satisfies ShardTask);
    // The task fails with "worker exited": that is the point. Any other failure is not.
    await ended?.then(
      () => undefined,
      (err: Error) => {
        if (!/worker exited/.test(err.message)) throw err;
      },
    );
  }

  /** Task wait/run figures per shard, for the bench and the per-shard metrics. */
  stats(): ShardStats[] {
    return this.threads.map((thread, shard) => ({
      shard,
      completed: thread.pool.completed,
      queued: thread.pool.queueSize,
      threadRestarts: Math.max(thread.threadsCreated - 1, 0),
      runP99Ms: thread.pool.histogram.runTime.p99,
      waitP99Ms: thread.pool.histogram.waitTime.p99,
      requests: { ...thread.requests.counts },
    }));
  }

  async close(): Promise<void> {
    await this.inlinePleg?.stop();
    await this.inlineShard?.close();
    await Promise.all([...this.threads.map((t) => t.pool.destroy()), this.plegPool?.destroy()]);
  }

  private deliverRelist(result: RelistResult): void {
    this.options.onRelist(result);
    if (result.podUid === undefined) this.fullRelistWaiters.shift()?.(result);
  }

  /** What a shard posts outside its task results, from a thread's port or the inline shard alike. */
  private deliverShardMessage(message: ShardMessage): void {
    if (message.kind === 'pod-event') this.options.onPodEvent?.(message);
    else this.options.onProbeResult?.(message);
  }

  private bootData(index: number): WorkerBootData {
    return { index, settings: this.options.settings, faultInjection: this.options.faultInjection ?? false };
  }

  private startShardThread(index: number): ThreadShard {
    const { logger, pulls } = this.options;
    const pool = new Piscina({
      filename: SHARD_WORKER_URL,
      minThreads: 1,
      maxThreads: 1,
      concurrentTasksPerWorker: CONCURRENT_SYNCS_PER_SHARD,
      // A shard keeps state and a gRPC channel: its thread must never be parked.
      atomics: 'disabled',
      idleTimeout: Number.MAX_SAFE_INTEGER,
      workerData: this.bootData(index),
    });
    const thread: ThreadShard = { pool, threadsCreated: 0, requests: new ShardRequests() };
    pool.on('message', (message: unknown) => {
      if (isPullPortMessage(message)) Comlink.expose(pulls, nodeEndpoint(message.port));
      else if (isProbeResultMessage(message) || isPodEventMessage(message)) this.deliverShardMessage(message);
    });
    pool.on('workerCreate', () => {
      thread.threadsCreated++;
      if (thread.threadsCreated === 1) return;
      thread.requests.clear();
      logger.warn({ shard: index }, 'Shard thread replaced; resyncing its pods from the runtime');
      this.options.onShardReplaced(index);
    });
    pool.on('workerDestroy', () => {
      pulls.releaseShard(index);
      this.options.onShardLost?.(index);
    });
    pool.on('error', (err: Error) => logger.error({ shard: index, err: err.message }, 'Shard thread error'));
    return thread;
  }
}
