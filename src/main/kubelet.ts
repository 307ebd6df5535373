// The kubelet: wires the sources, the merge, the pod workers and the shards, and
// runs upstream's syncLoop timers. Start-up follows upstream's order: the runtime
// must answer (Version, Status) before any pod is synced.
import { mkdir } from 'node:fs/promises';
import type { Logger } from 'pino';
import { CriClient } from '../shared/cri/client.js';
import { ImageRemovals } from '../shared/images/image-removals.js';
import { CriCallCounts } from '../shared/cri/call-counts.js';
import { waitForRuntime } from '../shared/cri/wait-for-runtime.js';
import { levelForVerbosity } from '../shared/logging.js';
import type { EventPodRef, PodCgroupSettings, PodEventRecord, ProbeResultMessage, ShardSettings, SyncKind, SyncPodRequest, SyncPodResult } from '../shared/shard-protocol.js';
import { API_SOURCE, FILE_SOURCE, HTTP_SOURCE, podUid, type Pod, type PodStatus, type PodUpdate } from '../shared/types.js';
import { loadClusterMode } from './cluster/boundary.js';
import type { ClusterConnection } from './cluster/index.js';
import { FileSource } from './config/file-source.js';
import { PodStorage } from './config/pod-storage.js';
import { admitPodWithUsage } from '../shared/admission/admit-pod.js';
import { ActivePodUsage } from './admission/active-pod-usage.js';
import { nodeForAdmission } from './admission/node-for-admission.js';
import { SecurityAdmission } from './admission/security-admission.js';
import { PullCoordinator } from './images/pull-coordinator.js';
import { setProbeCountSource } from './metrics/probe-metrics.js';
import { detectHostIP } from './node-ip.js';
import type { KubeletOptions } from './options/kubelet-options.js';
import { PodManager } from './pod/pod-manager.js';
import { PodWorkers } from './podworkers/pod-workers.js';
import { ReadOnlyServer } from './server/read-only-server.js';
import type { KubeletRoutes } from './server/kubelet-routes.js';
import { kubeletApiRoutes } from './server/kubelet-api-routes.js';
import { NodeProtection } from './node-protection.js';
import { podGcState } from './kuberuntime/pod-gc-state.js';
import { KubeletApi } from './server/kubelet-api.js';
import type { Health } from './server/healthz.js';
import { ContainerLogManager } from './logs/container-log-manager.js';
import { ShardPool } from './shards/shard-pool.js';
import { CreationLimitController } from './kuberuntime/creation-limit-controller.js';
import { RuntimeEventsFlag } from '../shared/pleg/runtime-events-flag.js';
import { ownThreadCpuMicros, type ThreadCpuReport } from '../shared/thread-cpu.js';
import { ownHeapFigures, type ThreadHeapReport } from '../shared/thread-heap.js';
import { StartupTracker } from './status/startup-tracker.js';
import { RuntimeKnownPods } from './pod/runtime-known-pods.js';
import { PodStatusCache } from './status/pod-status-cache.js';
import { TerminalStatusRecords } from './status/terminal-status-records.js';
import { OrphanedPodSubpaths } from './volumes/orphaned-pod-subpaths.js';
import { nodeObject, podObject } from '../shared/events/event-types.js';
import { SyncLoop } from './sync-loop.js';
import { isApiPod, podRef } from '../shared/pod-kinds.js';
import { observedGenerationOf } from '../shared/status/observed-generation.js';
import { runtimeNodeFeatures } from './admission/runtime-node-features.js';
import { KubeletMetrics, type PodWorkerOperation } from './metrics/kubelet-metrics.js';
import { SummaryProvider } from './stats/summary-provider.js';
import { podTimesFromStatus } from './stats/pod-times.js';
import { VolumeStatsCache } from './stats/volume-stats-cache.js';

/** Upstream's syncLoop tick and housekeeping periods, and the generic PLEG relist period. */
export const SYNC_TICK_MS = 1_000;
export const HOUSEKEEPING_PERIOD_MS = 2_000;
export const RELIST_PERIOD_MS = 1_000;
/** How often a long run logs where its pods stand. */
export const SUMMARY_PERIOD_MS = 60_000;
/** The pods directory's mode (upstream's setupDataDirs). */
const PODS_DIR_MODE = 0o750;

export class Kubelet {
  readonly podManager = new PodManager();
  readonly statuses: PodStatusCache;
  /** Static pods' terminal statuses, kept across restarts. */
  private readonly terminalRecords: TerminalStatusRecords;
  private readonly orphanedPodSubpaths: OrphanedPodSubpaths;
  readonly startup = new StartupTracker();
  private readonly runtimeKnownPods = new RuntimeKnownPods();
  /** What the admitted, syncing pods use, kept as they come and go: admission reads it instead of walking every pod. */
  private readonly activePods = new ActivePodUsage(
    (uid) => this.podManager.get(uid),
    (uid) => this.podWorkers?.phaseOf(uid) === 'syncing',
  );
  /** CRI calls of every thread, per method (read-only /stats/cri). */
  readonly criCalls = new CriCallCounts();
  /** Image removals begun by the image GC: a shard trusts what it knew of an image only while this stays. */
  private readonly imageRemovals = new ImageRemovals();
  /** The runtime contention guard's node-wide permits and, when adaptive, its limit. */
  private readonly creationLimit: CreationLimitController;
  /** /metrics: upstream's kubelet series and shardlet's per-shard ones. */
  readonly metrics: KubeletMetrics;
  /** /stats/summary and /metrics/resource. */
  readonly summary: SummaryProvider;
  /** Pod volume usage, measured every volumeStatsAggPeriod for /stats/summary. */
  private readonly volumeStats: VolumeStatsCache;
  /** The pod cgroup layout once set up (undefined with cgroupsPerQOS off): the summary reads pod cgroups the runtime gives no figures for. */
  private podCgroups?: PodCgroupSettings;
  private shards?: ShardPool;
  private podWorkers?: PodWorkers;
  private storage?: PodStorage;
  private syncLoop?: SyncLoop;
  private server?: ReadOnlyServer;
  /** The kubelet API (:10250) and the healthz port. */
  private kubeletApi?: KubeletApi;
  /**
   * The kubelet API's own CRI channel (streaming URLs, container status for logs,
   * stats, log reopening): operator-initiated calls, never on a pod's start path,
   * so they neither queue behind nor delay the shards' syncs.
   */
  private apiCri?: CriClient;
  /** Pod cgroups, image GC and eviction. */
  private readonly protection: NodeProtection;
  /** Rotates running containers' log files (containerLogMaxSize / containerLogMaxFiles). */
  private containerLogs?: ContainerLogManager;
  /** Cluster mode only (--kubeconfig): the API server's side of the kubelet. */
  private cluster?: ClusterConnection;
  private readonly sources: Array<{ stop(): void | Promise<void> }> = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly expectedSources: string[] = [];
  private relistInFlight = false;
  private terminalRecordsPruned = false;
  private readonly abort = new AbortController();
  /** Port the read-only server bound, once listening. */
  readOnlyPort = 0;
  /** Set when start() finished: /healthz says ok only from then on. */
  private started = false;

  constructor(
    private readonly options: KubeletOptions,
    private readonly logger: Logger,
  ) {
    this.statuses = new PodStatusCache(logger);
    this.terminalRecords = new TerminalStatusRecords(options.rootDir, logger);
    this.orphanedPodSubpaths = new OrphanedPodSubpaths(options.rootDir, logger);
    this.protection = new NodeProtection(options, logger, this.imageRemovals);
    this.creationLimit = new CreationLimitController({ setting: options.runtimeCreationLimit, shards: Math.max(options.workers, 1), logger });
    this.metrics = new KubeletMetrics({
      nodeName: options.nodeName,
      criCalls: this.criCalls,
      shardStats: () => this.shardStats(),
      creationLimit: () => this.creationLimit.figures(),
    });
    this.summary = new SummaryProvider({
      nodeName: options.nodeName,
      rootDir: options.rootDir,
      cri: () => this.apiCri,
      podTimes: (uid) => podTimesFromStatus(this.statuses.get(uid)),
      pod: (uid) => this.podManager.get(uid),
      podCgroups: () => this.podCgroups,
      volumeStats: (uid) => this.volumeStats.get(uid),
      logger,
    });
    this.volumeStats = new VolumeStatsCache({ rootDir: options.rootDir, periodMs: options.volumeStatsAggPeriodMs, pods: () => this.podManager.pods(), logger });
    this.statuses.onChange(({ pod, status }) => {
      const started = this.startup.observe(pod, status);
      if (started) this.metrics.observePodStarted(started);
    });
  }

  async start(): Promise<void> {
    const { options, logger } = this;
    logger.info({ nodeName: options.nodeName, workers: options.workers, runtime: options.runtimeEndpoint }, 'Starting shardlet');
    // Every listener is bound first: a taken port ends the start before anything touches a pod.
    await this.startServer();
    // 0750, as upstream's setupDataDirs makes the pods directory (and the root, unless the
    // serving certificate's 0700 pki directory made it first): pod directories hold
    // secrets' and tokens' mount points, not for other users to list.
    await mkdir(`${options.rootDir}/pods`, { recursive: true, mode: PODS_DIR_MODE });
    await this.terminalRecords.load();
    const probe = new CriClient(options.runtimeEndpoint, { timeoutMs: options.runtimeRequestTimeoutMs, callCounts: this.criCalls });
    const version = await waitForRuntime(probe, { logger, signal: this.abort.signal });
    this.apiCri = probe;
    logger.info({ runtime: version.runtime_name, version: version.runtime_version, api: version.runtime_api_version }, 'Container runtime ready');
    this.containerLogs = new ContainerLogManager({
      settings: options.containerLogs,
      cri: () => this.apiCri,
      ownsPod: (uid) => this.podManager.get(uid) !== undefined,
      podLogsDir: options.podLogsDir,
      logger,
    });
    this.containerLogs.start();

    const podCgroups = await this.protection.prepareCgroups();
    this.podCgroups = podCgroups;

    const pulls = new PullCoordinator({
      serializeImagePulls: options.serializeImagePulls,
      maxParallelImagePulls: options.maxParallelImagePulls,
      logger,
    });
    this.creationLimit.start();
    this.shards = new ShardPool({
      workers: options.workers,
      settings: this.shardSettings(podCgroups),
      pulls,
      logger,
      faultInjection: options.faultInjection,
      onShardLost: (index) => this.creationLimit.reclaimShard(index),
      onShardReplaced: (index) => this.resyncShard(index),
      onProbeResult: (message) => this.onProbeResult(message),
      onPodEvent: (message) => this.recordPodEvent(message.pod, message.event),
      onRelist: (result) => {
        this.metrics.observeRelist(result);
        this.syncLoop?.handleRelist(result);
      },
    });
    setProbeCountSource(async () => ((await this.shards?.probeStats()) ?? []).flatMap((stats) => stats.counts));
    this.podWorkers = new PodWorkers(this.syncHost(), options.syncFrequencyMs, logger, {
      onPhaseChange: (uid) => this.activePods.refresh(uid),
    });
    this.podManager.onChange((uid) => this.activePods.refresh(uid));
    const admissionNode = nodeForAdmission(options, await runtimeNodeFeatures(probe, logger));
    const securityAdmission = new SecurityAdmission(options.allowedUnsafeSysctls);
    this.syncLoop = new SyncLoop({
      podManager: this.podManager,
      podWorkers: this.podWorkers,
      statuses: this.statuses,
      logger,
      sourcesReady: () => this.storage?.sourcesReady(this.expectedSources) ?? false,
      onPodSeen: (pod) => this.startup.seen(pod),
      admit: (pod) => {
        const rejection = this.protection.admit(pod);
        if (rejection) return { admit: false, ...rejection };
        const sysctls = securityAdmission.admitSysctls(pod);
        if (!sysctls.admit) return sysctls;
        const verdict = admitPodWithUsage(pod, this.activePods.usageExcluding(podUid(pod)), admissionNode);
        const appArmor = verdict.admit ? securityAdmission.admitAppArmor(pod) : verdict;
        if (!appArmor.admit) return appArmor;
        const shutdown = this.protection.admitDuringShutdown();
        return shutdown ? { admit: false, ...shutdown } : verdict;
      },
      onRejected: (pod, reason, message) => {
        this.statuses.set(pod, { observedGeneration: observedGenerationOf(pod), phase: 'Failed', reason, message });
        this.onPodEvent(pod, { type: 'Warning', reason, message, timestampMs: Date.now() });
      },
      reconcileMirrorPods: () => this.reconcileMirrorPods(),
      cleanupOrphanedPodCgroups: (isKnown) => this.protection.cleanupOrphanedPodCgroups(isKnown),
      cleanupOrphanedPodSubpaths: (isKnown) => void this.orphanedPodSubpaths.cleanup(isKnown),
      relistPeriodMs: options.plegRelistPeriodMs,
      onPodForgotten: (uid) => {
        this.startup.forget(uid);
        this.cluster?.apiData.forgetPod(uid);
        this.cluster?.statusManager.forget(uid);
        this.terminalRecords.forget(uid);
        this.protection.forget(uid);
      },
    });
    this.storage = new PodStorage((update: PodUpdate) => this.syncLoop!.handleConfigUpdate(update), logger);
    await this.takeRuntimeInventory();
    await this.startSources();
    this.startTimers();
    this.volumeStats.start();
    this.startNodeProtection();
    this.started = true;
  }

  async stop(): Promise<void> {
    this.abort.abort();
    for (const timer of this.timers) clearInterval(timer);
    this.volumeStats.stop();
    await this.protection.stop();
    setProbeCountSource(undefined);
    await Promise.all(this.sources.map((source) => source.stop()));
    await this.cluster?.stop();
    await this.server?.close();
    await this.kubeletApi?.stop();
    await this.shards?.close();
    this.creationLimit.close();
    await this.containerLogs?.stop();
    this.apiCri?.close();
    await this.terminalRecords.flush();
    this.logger.info('shardlet stopped; running pods are left to the runtime');
  }

  /** CPU time of every thread of shardlet so far (/stats/threads, read by the bench). */
  async threadCpu(): Promise<ThreadCpuReport> {
    const processUsage = process.cpuUsage();
    const workers = (await this.shards?.threadCpuMicros()) ?? { shardsMicros: [], plegMicros: 0 };
    return { mainMicros: ownThreadCpuMicros(), ...workers, processMicros: processUsage.user + processUsage.system };
  }

  /** The heap of every isolate of shardlet now, and the RSS they sit in (/stats/heap, read by the churn soak). */
  async threadHeaps(): Promise<ThreadHeapReport> {
    const workers = (await this.shards?.threadHeaps()) ?? { shards: [] };
    return { main: ownHeapFigures(), ...workers, rssBytes: process.memoryUsage.rss() };
  }

  /** Tasks each shard completed, with its run and wait p99 (the summary log, and tests of shard loss). */
  shardStats(): ReturnType<ShardPool['stats']> {
    return this.shards?.stats() ?? [];
  }

  /** Exposed for tests of shard loss. */
  crashShard(index: number): Promise<void> {
    return this.shards!.crashShard(index);
  }

  private shardSettings(podCgroups: PodCgroupSettings | undefined): ShardSettings {
    const { options } = this;
    return {
      runtimeEndpoint: options.runtimeEndpoint,
      imageEndpoint: options.imageEndpoint || options.runtimeEndpoint,
      runtimeRequestTimeoutMs: options.runtimeRequestTimeoutMs,
      nodeName: options.nodeName,
      hostIP: options.nodeIP || detectHostIP(),
      rootDir: options.rootDir,
      podLogsDir: options.podLogsDir,
      podPidsLimit: options.podPidsLimit,
      maxDeadContainersPerContainer: options.containerGC.maxPerPodContainer,
      containerGCMinAgeMs: options.containerGC.minAgeMs,
      podCgroups,
      clusterDNS: options.clusterDNS,
      clusterDomain: options.clusterDomain,
      resolvConf: options.resolvConf,
      logLevel: levelForVerbosity(options.verbosity),
      criCallCounts: this.criCalls.buffer,
      runtimeEventsLive: new RuntimeEventsFlag().buffer,
      imageRemovals: this.imageRemovals.buffer,
      runtimeCreationPermits: this.creationLimit.shared,
    };
  }

  private syncHost() {
    return {
      runSync: async (request: SyncPodRequest) => {
        const firstSync = this.runtimeKnownPods.claimFirstSync(request.pod.metadata?.uid ?? '');
        if (firstSync && request.kind === 'sync') request.runtimeKnownEmpty = true;
        // The shard never talks to the API server: the objects the pod refers to travel with the request.
        if (this.cluster && request.kind === 'sync' && isApiPod(request.pod)) request.apiData = await this.cluster.apiData.dataFor(request.pod);
        const operation: PodWorkerOperation = request.kind !== 'sync' ? 'kill' : firstSync ? 'create' : 'sync';
        const startedAt = performance.now();
        try {
          return await this.shards!.sync(request);
        } finally {
          const shard = this.options.workers > 0 ? this.shards!.shardOf(request.pod.metadata?.uid ?? '') : undefined;
          this.metrics.observePodSync(operation, shard, (performance.now() - startedAt) / 1000);
        }
      },
      previousStatus: (uid: string) => this.statuses.get(uid) ?? this.terminalRecords.get(uid),
      onSyncResult: (pod: Pod, result: SyncPodResult, kind: SyncKind) => {
        const uid = pod.metadata?.uid ?? '';
        // An orphan (found only in the runtime) has no spec and no status anyone reads.
        if (result.imagePulls) this.startup.pulled(pod, result.imagePulls);
        if (pod.spec) this.statuses.set(pod, this.protection.statusOf(uid, result.status));
        if (kind === 'terminated' && isApiPod(pod)) {
          this.cluster?.statusManager.podTerminated(pod);
          // As upstream's SyncTerminatedPod: the pod's Secrets and ConfigMaps are no longer read on its behalf.
          this.cluster?.apiData.forgetPod(uid);
        } else if (kind === 'terminated' && this.podManager.get(uid) && !this.protection.killedForShutdown(uid)) {
          // A finished static pod still in its source: remember it is finished, across restarts (not one a node shutdown stopped).
          this.terminalRecords.record(uid, result.status);
        }
        if (kind === 'terminated' && result.errors.length === 0) this.protection.podFinished(uid);
        for (const error of result.errors) {
          this.logger.warn({ pod: podRef(pod), kind, code: error.code, err: error.message }, 'Pod sync failed');
        }
      },
      onPodRestart: (uid: string) => {
        this.statuses.delete(uid);
        this.terminalRecords.forget(uid);
      },
      onSyncFailed: (pod: Pod, kind: SyncKind, err: unknown) => {
        this.logger.warn({ pod: podRef(pod), kind, err: (err as Error).message }, 'Pod sync did not complete; retrying');
      },
    };
  }

  /** Housekeeping in cluster mode: one current mirror pod per running static pod, showing its status. */
  private reconcileMirrorPods(): void {
    if (!this.cluster) return;
    const running = this.podManager.pods().filter((pod) => !isApiPod(pod) && this.podWorkers!.phaseOf(pod.metadata?.uid ?? '') === 'syncing');
    this.cluster.reconcileMirrorPods(running, this.podManager, (uid) => this.statuses.get(uid));
  }

  /** A pod event of the main thread's own (admission, eviction, shutdown). */
  private onPodEvent(pod: Pod, event: PodEventRecord): void {
    const meta = pod.metadata ?? {};
    this.recordPodEvent({ uid: meta.uid ?? '', name: meta.name ?? '', namespace: meta.namespace ?? '' }, event);
  }

  /**
   * A pod event, from the main thread or from a shard as the shard recorded it
   * (the sync may still run): logged at debug (upstream's V(3) event log) and, in
   * cluster mode, recorded.
   */
  private recordPodEvent(pod: EventPodRef, event: PodEventRecord): void {
    this.logger.debug({ pod: `${pod.namespace}/${pod.name}`, type: event.type, reason: event.reason, object: event.fieldPath, message: event.message }, 'Event');
    this.cluster?.events.record({
      involvedObject: podObject(pod, event.fieldPath),
      type: event.type,
      reason: event.reason,
      message: event.message,
      timestampMs: event.timestampMs,
    });
  }

  /**
   * A probe result changed in the pod's shard: sync the pod now, as upstream's
   * syncLoop does on a liveness, readiness or startup update (the sync computes the
   * new ready / started state, or kills the container a liveness probe condemned).
   * The one main-thread call site for probe results (metrics hook in here too).
   */
  private onProbeResult(message: ProbeResultMessage): void {
    this.logger.debug(
      { pod: `${message.podNamespace}/${message.podName}`, container: message.containerName, probeType: message.probeType, result: message.result },
      'Probe result changed',
    );
    this.podWorkers?.syncNow(message.podUid);
  }

  /** A replaced shard starts empty: every pod it owns is synced again from the runtime's state. */
  private resyncShard(index: number): void {
    for (const uid of this.podWorkers!.uids()) {
      if (this.shards!.shardOf(uid) === index) this.podWorkers!.syncNow(uid);
    }
  }

  private async startSources(): Promise<void> {
    const { options, logger } = this;
    const emit = (update: PodUpdate) => this.storage!.merge(update.source, update);
    if (options.kubeconfig) {
      const cluster = await loadClusterMode();
      this.expectedSources.push(API_SOURCE);
      this.cluster = await cluster.ClusterConnection.connect({
        options,
        logger,
        signal: this.abort.signal,
        criCalls: this.criCalls,
        podManager: this.podManager,
        statuses: this.statuses,
        emit,
        syncNow: (uid) => this.podWorkers!.syncNow(uid),
        bootstrapServingCertificate: async () => this.kubeletApi?.bootstrapServingCertificate(this.abort.signal),
        kubeletPort: this.kubeletApi?.port,
        pressure: () => this.protection.conditions(),
        shuttingDown: () => this.protection.nodeShuttingDown(),
      });
    }
    if (options.staticPodPath) {
      this.expectedSources.push(FILE_SOURCE);
      const source = new FileSource({
        path: options.staticPodPath,
        nodeName: options.nodeName,
        periodMs: options.fileCheckFrequencyMs,
        logger,
        onUpdate: emit,
      });
      await source.start();
      this.sources.push(source);
    }
    if (options.staticPodURL) {
      this.expectedSources.push(HTTP_SOURCE);
      // Loaded only for a URL source: undici's own modules cost the start about 50 ms of CPU.
      const { UrlSource } = await import('./config/url-source.js');
      const source = new UrlSource({
        url: options.staticPodURL,
        headers: options.staticPodURLHeader,
        nodeName: options.nodeName,
        periodMs: options.httpCheckFrequencyMs,
        logger,
        onUpdate: emit,
      });
      await source.start();
      this.sources.push(source);
    }
  }

  /** /healthz everywhere: ok once start() finished and while the sync loop keeps up. */
  private health(): Health {
    return this.started ? this.syncLoop!.health(Date.now(), this.options.syncFrequencyMs) : { ok: false, reason: 'shardlet is starting' };
  }

  private async startServer(): Promise<void> {
    this.kubeletApi = new KubeletApi({ options: this.options, routes: this.apiRoutes(), healthy: () => this.health(), logger: this.logger });
    await this.kubeletApi.start();
    if (this.options.readOnlyPort === 0) return;
    this.server = new ReadOnlyServer(
      {
        pods: () => this.podManager.pods(),
        statusOf: (uid: string): PodStatus | undefined => this.statuses.get(uid),
        healthy: () => this.health(),
        startupRecords: () => this.startup.records(),
        criCalls: () => this.criCalls.snapshot(),
        threadCpu: () => this.threadCpu(),
        threadHeaps: () => this.threadHeaps(),
        probeStats: async () => (await this.shards?.probeStats()) ?? [],
      },
      this.logger,
    );
    this.readOnlyPort = await this.server.listen(this.options.readOnlyPort, '--read-only-port');
  }

  /** The kubelet API's route table (:10250); tests also serve it on a plain port. */
  apiRoutes(): KubeletRoutes {
    return kubeletApiRoutes({
      options: this.options,
      podManager: this.podManager,
      statusOf: (uid) => this.statuses.get(uid),
      healthy: () => this.health(),
      cri: () => this.apiCri,
      metrics: this.metrics,
      summary: this.summary,
      logger: this.logger,
    });
  }

  private startTimers(): void {
    const every = (periodMs: number, run: () => void) => {
      const timer = setInterval(run, periodMs);
      this.timers.push(timer);
    };
    every(SYNC_TICK_MS, () => this.syncLoop!.syncTick(Date.now()));
    every(HOUSEKEEPING_PERIOD_MS, () => {
      this.syncLoop!.housekeeping();
      this.pruneTerminalRecordsOnce();
    });
    every(this.options.plegRelistPeriodMs || RELIST_PERIOD_MS, () => this.relist());
    every(SUMMARY_PERIOD_MS, () => this.logSummary());
  }

  /** Upstream's garbage collection and eviction manager, and the QoS tiers' upkeep. */
  private startNodeProtection(): void {
    const { options } = this;
    this.protection.start({
      cri: () => this.apiCri,
      summary: this.summary,
      pods: () => this.podManager.pods(),
      activePods: () => this.podManager.pods().filter((pod) => this.podWorkers!.phaseOf(pod.metadata?.uid ?? '') === 'syncing'),
      podGcState: (uid) => podGcState(uid, { podManager: this.podManager, podWorkers: this.podWorkers!, sourcesReady: () => this.storage?.sourcesReady(this.expectedSources) ?? false }),
      unfinishedPods: () => this.podManager.pods().filter((pod) => ['syncing', 'terminating'].includes(this.podWorkers!.phaseOf(pod.metadata?.uid ?? '') ?? '')),
      kill: (pod, gracePeriodSeconds) => this.podWorkers!.updatePod({ type: 'kill', pod, gracePeriodSeconds }),
      syncNodeStatus: () => this.cluster?.syncNodeStatus(),
      refreshStatus: (pod) => {
        const status = this.statuses.get(pod.metadata?.uid ?? '');
        if (status) this.statuses.set(pod, this.protection.statusOf(pod.metadata?.uid ?? '', status));
      },
      onPodEvent: (pod, event) => this.onPodEvent(pod, event),
      onNodeEvent: (type, reason, message) =>
        this.cluster?.events.record({ involvedObject: nodeObject(options.nodeName), type, reason, message, timestampMs: Date.now() }),
    });
  }

  /** Terminal records found at start whose pods no source has any more go, once the sources are ready. */
  private pruneTerminalRecordsOnce(): void {
    if (this.terminalRecordsPruned || !this.storage?.sourcesReady(this.expectedSources)) return;
    this.terminalRecordsPruned = true;
    this.terminalRecords.pruneExcept((uid) => this.podManager.get(uid) !== undefined || this.podWorkers!.has(uid));
  }

  /** One line a minute: pods by phase and each shard's sync counts, so a long run shows progress. */
  private logSummary(): void {
    const podsByPhase: Record<string, number> = {};
    for (const pod of this.podManager.pods()) {
      const phase = this.statuses.get(pod.metadata?.uid ?? '')?.phase ?? 'Pending';
      podsByPhase[phase] = (podsByPhase[phase] ?? 0) + 1;
    }
    this.logger.info({ pods: this.podManager.size, podsByPhase, shards: this.shardStats() }, 'Kubelet summary');
  }

  /** The first relist, before any source: what the runtime holds from before this start. */
  private async takeRuntimeInventory(): Promise<void> {
    try {
      // Its events and pod set went to the sync loop on the way (ShardPool's onRelist).
      const result = await this.shards!.relist();
      this.runtimeKnownPods.takeInventory((result.runtimePods ?? []).map((ref) => ref.uid));
    } catch (err) {
      // Without an inventory every sync reads the runtime first: slower, never wrong.
      this.syncLoop!.handleRelistError(err);
    }
  }

  /** One relist at a time: a slow runtime stretches the period instead of piling relists up. */
  private relist(): void {
    if (this.relistInFlight) return;
    this.relistInFlight = true;
    this.shards!.relist()
      .catch((err: unknown) => this.syncLoop!.handleRelistError(err))
      .finally(() => {
        this.relistInFlight = false;
      });
  }
}

