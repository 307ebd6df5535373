// /metrics: the kubelet's own series in one prom-client registry on the main thread,
// with upstream's names, HELP texts, types and buckets (pkg/kubelet/metrics), the
// process_* and nodejs_* defaults, and shardlet's per-shard series. Series fed by
// events (pod starts, syncs, relists) are observed as the events reach the main
// thread; the rest (CRI operations from every thread, running pods, shard queues)
// are read at scrape time.
import client from 'prom-client';
import type { CriCallCounts } from '../../shared/cri/call-counts.js';
import { DEF_BUCKETS_SECONDS } from '../../shared/metrics/shared-histogram.js';
import type { RelistResult, RuntimeCounts } from '../../shared/shard-protocol.js';
import type { ShardStats } from '../shards/shard-pool.js';
import type { CreationLimitFigures } from '../kuberuntime/creation-limit-controller.js';
import type { StartupRecord } from '../status/startup-tracker.js';
import { criOperationMetrics } from './cri-operation-metrics.js';
import { httpInflightRequests, httpRequestDuration, httpRequests } from './http-metrics.js';
import { helpText } from './stability.js';
import { PlegMetrics } from './pleg-metrics.js';

/** upstream's podStartupDurationBuckets: round numbers, roughly exponential, 0.5 s to an hour. */
export const POD_STARTUP_BUCKETS_SECONDS = [
  0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600,
];

/** prom-client defaults that break the Prometheus naming rules; the same figures remain per type. */
const LINT_FAILING_DEFAULT_METRICS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** upstream's SyncPodType names, the operation_type of kubelet_pod_worker_duration_seconds. */
export type PodWorkerOperation = 'create' | 'update' | 'sync' | 'kill';

export interface KubeletMetricsSource {
  nodeName: string;
  criCalls: CriCallCounts;
  /** Per-shard figures (none with --workers 0). */
  shardStats(): ShardStats[];
  /** The runtime contention guard's limit and creations in flight; undefined with it off. */
  creationLimit?(): CreationLimitFigures | undefined;
}

export class KubeletMetrics {
  readonly registry = new client.Registry();
  private runtimeCounts?: RuntimeCounts;
  private lastRelistStartedAtMs = 0;
  private readonly podStart: client.Histogram;
  private readonly podStartSli: client.Histogram<'first_with_network'>;
  private readonly podWorker: client.Histogram<'operation_type'>;
  private readonly relistDuration: client.Histogram;
  private readonly relistInterval: client.Histogram;
  private readonly shardSyncDuration: client.Histogram<'shard'>;
  private readonly pleg: PlegMetrics;

  constructor(private readonly source: KubeletMetricsSource) {
    const registers = [this.registry];
    client.collectDefaultMetrics({ register: this.registry });
    // Gauges named *_total fail `promtool check metrics` (a _total suffix promises a
    // counter); their per-type breakdowns (nodejs_active_handles{type}, …) stay.
    for (const name of LINT_FAILING_DEFAULT_METRICS) this.registry.removeSingleMetric(name);
    new client.Gauge({
      name: 'kubelet_node_name',
      help: helpText('ALPHA', "The node's name. The count is always 1."),
      labelNames: ['node'],
      registers,
    }).set({ node: source.nodeName }, 1);
    this.podStart = new client.Histogram({
      name: 'kubelet_pod_start_duration_seconds',
      help: helpText('ALPHA', 'Duration in seconds from kubelet seeing a pod for the first time to the pod starting to run'),
      buckets: POD_STARTUP_BUCKETS_SECONDS,
      registers,
    });
    this.podStartSli = new client.Histogram({
      name: 'kubelet_pod_start_sli_duration_seconds',
      help: helpText(
        'ALPHA',
        'Duration in seconds to start a pod, excluding time to pull images and run init containers, measured from pod creation timestamp to when all its containers are reported as started and observed via watch',
      ),
      labelNames: ['first_with_network'],
      buckets: POD_STARTUP_BUCKETS_SECONDS,
      registers,
    });
    this.podWorker = new client.Histogram({
      name: 'kubelet_pod_worker_duration_seconds',
      help: helpText('ALPHA', 'Duration in seconds to sync a single pod. Broken down by operation type: create, update, or sync'),
      labelNames: ['operation_type'],
      buckets: [...DEF_BUCKETS_SECONDS],
      registers,
    });
    this.relistDuration = new client.Histogram({
      name: 'kubelet_pleg_relist_duration_seconds',
      help: helpText('ALPHA', 'Duration in seconds for relisting pods in PLEG.'),
      buckets: [...DEF_BUCKETS_SECONDS],
      registers,
    });
    this.relistInterval = new client.Histogram({
      name: 'kubelet_pleg_relist_interval_seconds',
      help: helpText('ALPHA', 'Interval in seconds between relisting in PLEG.'),
      buckets: [...DEF_BUCKETS_SECONDS],
      registers,
    });
    this.registerRuntimeGauges();
    this.pleg = new PlegMetrics(this.registry);
    for (const metric of [httpRequests, httpRequestDuration, httpInflightRequests]) this.registry.registerMetric(metric);
    for (const metric of criOperationMetrics(source.criCalls)) this.registry.registerMetric(metric as unknown as client.Metric);
    this.shardSyncDuration = this.registerShardSeries();
    this.registerCreationLimitGauges();
  }

  /** The exposition text of every series (text/plain; version=0.0.4). */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * A pod seen running: its start latency from when the kubelet first saw it, and the
   * SLI's, from its creation (when it has a creationTimestamp, else from when it was
   * seen) with its image pulls left out, as upstream's pod startup latency tracker.
   */
  observePodStarted(record: StartupRecord): void {
    if (record.runningAtMs === undefined) return;
    this.podStart.observe((record.runningAtMs - record.seenAtMs) / 1000);
    const pullingMs =
      record.firstStartedPullingAtMs !== undefined && record.lastFinishedPullingAtMs !== undefined
        ? Math.max(record.lastFinishedPullingAtMs - record.firstStartedPullingAtMs, 0)
        : 0;
    const sliMs = record.runningAtMs - (record.createdAtMs ?? record.seenAtMs) - pullingMs;
    this.podStartSli.observe({ first_with_network: 'false' }, Math.max(sliMs, 0) / 1000);
  }

  /** One pod sync, from the pod worker's request to the shard's answer. */
  observePodSync(operation: PodWorkerOperation, shard: number | undefined, seconds: number): void {
    this.podWorker.observe({ operation_type: operation }, seconds);
    if (shard !== undefined) this.shardSyncDuration.observe({ shard: String(shard) }, seconds);
  }

  /**
   * One full PLEG relist's figures: its duration, the interval since the previous
   * one, what the runtime holds, the evented PLEG's counts. A per-pod relist is
   * counted in the next full relist's counts, not here.
   */
  observeRelist(result: RelistResult): void {
    if (result.podUid !== undefined) return;
    if (result.evented) this.pleg.observe(result.evented);
    if (result.durationMs !== undefined) this.relistDuration.observe(result.durationMs / 1000);
    if (this.lastRelistStartedAtMs > 0) this.relistInterval.observe(Math.max(result.startedAtMs - this.lastRelistStartedAtMs, 0) / 1000);
    this.lastRelistStartedAtMs = result.startedAtMs;
    if (result.counts) this.runtimeCounts = result.counts;
  }

  private registerRuntimeGauges(): void {
    // prom-client calls collect() with the gauge as `this`.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const metrics = this;
    new client.Gauge({
      name: 'kubelet_running_pods',
      help: helpText('ALPHA', 'Number of pods that have a running pod sandbox'),
      registers: [this.registry],
      collect() {
        if (metrics.runtimeCounts) this.set(metrics.runtimeCounts.podsWithReadySandbox);
      },
    });
    new client.Gauge({
      name: 'kubelet_running_containers',
      help: helpText('ALPHA', 'Number of containers currently running'),
      labelNames: ['container_state'],
      registers: [this.registry],
      collect() {
        const byState = metrics.runtimeCounts?.containersByState;
        if (!byState) return;
        for (const [state, count] of Object.entries(byState)) this.set({ container_state: state }, count);
      },
    });
  }

  /** shardlet's own series: each shard's queue, finished syncs, thread replacements and sync durations. */
  private registerShardSeries(): client.Histogram<'shard'> {
    const source = this.source;
    const registers = [this.registry];
    new client.Gauge({
      name: 'shardlet_shard_queue_depth',
      help: helpText('ALPHA', 'Pod syncs waiting for a free slot of the shard, per shard.'),
      labelNames: ['shard'],
      registers,
      collect() {
        for (const stats of source.shardStats()) this.set({ shard: String(stats.shard) }, stats.queued);
      },
    });
    // Counters read from piscina at scrape time: reset to the current total before each read.
    new client.Counter({
      name: 'shardlet_shard_syncs_total',
      help: helpText('ALPHA', 'Cumulative number of pod syncs a shard finished, per shard.'),
      labelNames: ['shard'],
      registers,
      collect() {
        this.reset();
        for (const stats of source.shardStats()) this.inc({ shard: String(stats.shard) }, stats.completed);
      },
    });
    new client.Counter({
      name: 'shardlet_shard_thread_restarts_total',
      help: helpText('ALPHA', "Cumulative number of times a shard's thread died and was replaced, per shard."),
      labelNames: ['shard'],
      registers,
      collect() {
        this.reset();
        for (const stats of source.shardStats()) this.inc({ shard: String(stats.shard) }, stats.threadRestarts);
      },
    });
    return new client.Histogram({
      name: 'shardlet_shard_sync_duration_seconds',
      help: helpText('ALPHA', 'Duration in seconds of a pod sync on its shard, queueing included, per shard.'),
      labelNames: ['shard'],
      buckets: [...DEF_BUCKETS_SECONDS],
      registers,
    });
  }

  /** The runtime contention guard's gauges, only when it is on (a limit of 0 would read as "nothing may start"). */
  private registerCreationLimitGauges(): void {
    const creationLimit = this.source.creationLimit;
    if (!creationLimit?.()) return;
    const registers = [this.registry];
    new client.Gauge({
      name: 'shardlet_runtime_creation_limit',
      help: helpText('ALPHA', 'Sandbox and container creations the runtime contention guard lets run at once, node-wide (--runtime-creation-limit); absent when it is off.'),
      registers,
      collect() {
        this.set(creationLimit()?.limit ?? 0);
      },
    });
    new client.Gauge({
      name: 'shardlet_runtime_creations_in_flight',
      help: helpText('ALPHA', 'Sandbox and container creations holding a permit of the runtime contention guard now, node-wide.'),
      registers,
      collect() {
        this.set(creationLimit()?.inFlight ?? 0);
      },
    });
  }
}
