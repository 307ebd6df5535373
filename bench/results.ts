// What a run and a floor measure; results.json holds these as they are.
import type { StartupCost } from './start-cost.js';
import type { ThreadCpuPerPod } from './thread-cpu.js';
import type { CriCallsByMethod } from './bench-runtime.js';
import type { FloorSpec, RunSpec } from './scenarios.js';
import type { LatencySummary } from './stats.js';

/** One pod's start. Latencies run from its submission (file written, POST sent) to Running observed by shardlet. */
export interface PodStart {
  /** namespace/name as shardlet reports it. */
  pod: string;
  submittedAtMs: number;
  runningAtMs: number;
  latencyMs: number;
  /** lastFinishedPulling − firstStartedPulling, when shardlet pulled for this pod. */
  pullMs?: number;
  /** latencyMs − pullMs: what the pod-startup SLO counts. */
  latencyExcludingPullsMs: number;
}

export interface StartMeasurement {
  /** From the first submission to the last pod Running. */
  allRunningMs: number;
  /** How long handing every pod to the source took (the first pod, the wait until shardlet saw it, the rest). */
  submitMs: number;
  /** From the first pod's submission until shardlet saw it; the other pods are submitted then. */
  firstSeenMs: number;
  latency: LatencySummary;
  latencyExcludingPulls: LatencySummary;
  podsPerSecond: number;
  /** shardlet's CPU from its launch until it saw the first pod: a fixed cost, kept out of the per-pod figures. */
  startup: StartupCost;
  /** shardlet's CPU time (all threads) from the first pod seen to all Running. */
  cpuSeconds: number;
  cpuMsPerPod: number;
  /** The same CPU per pod split by thread, with the main thread's ceiling; undefined when shardlet does not report it. */
  threadCpuPerPod?: ThreadCpuPerPod;
  peakRssMiB: number;
  /** Undefined when the runtime and shardlet both cannot count them. */
  criCalls?: CriCallsByMethod;
  /** shardlet's API writes by "<verb> <resource>" until all Running; empty for the static source. */
  apiWrites: Record<string, number>;
  /**
   * API source: pods whose status in the API server said Running when shardlet saw
   * the last one Running (status writes trail, paced by kubeAPIQPS).
   */
  apiPodsRunning?: number;
  pods: PodStart[];
}

export interface SteadyMeasurement {
  settleSeconds: number;
  windowSeconds: number;
  cpuSeconds: number;
  /** CPU seconds per second of the window, as % of one core. */
  cpuPercentOfCore: number;
  rssMiB: number;
  peakRssMiB: number;
  criCalls?: CriCallsByMethod;
  apiWrites: Record<string, number>;
  /** The window's CPU by thread kind, % of one core (each thread measures itself: /stats/threads). */
  threadCpuPercent?: { main: number; shards: number; pleg: number };
  /** The probes scenario: probes run in the window and how long each took (start to result, in the shard). */
  probes?: { perSecond: number; latency: LatencySummary; sampled: number };
}

/** What the churn left behind: runtime objects, directories and wanted pods, once the counts settled. */
export interface ChurnLeaks {
  /** Sandboxes of no wanted pod, and a wanted pod's sandboxes beyond its first. */
  sandboxes: number;
  /** Containers of no wanted pod. */
  containers: number;
  /** <root-dir>/pods/<uid> of no wanted pod. */
  podDirs: number;
  /** <podLogsDir>/<ns>_<name>_<uid> of no wanted pod. */
  logDirs: number;
  /** Wanted pods (manifests present) that shardlet did not show Running. */
  notRunning: number;
}

/** One stretch of the churn window: the pods submitted in it and how long they took to run. */
export interface ChurnWindow {
  /** Seconds from the start of the churn. */
  fromS: number;
  toS: number;
  started: number;
  latency: LatencySummary;
}

export interface ChurnSample {
  /** Seconds from the start of the churn. */
  atS: number;
  rssMiB: number;
  cpuSeconds: number;
}

/** shardlet's isolates at one moment of the churn, MiB: resident heap pages and live (used) heap. */
export interface ChurnHeapSample {
  atS: number;
  rssMiB: number;
  main: HeapMiB;
  /** Every shard thread together. */
  shards: HeapMiB;
  pleg: HeapMiB;
}

export interface HeapMiB {
  residentMiB: number;
  usedMiB: number;
  externalMiB: number;
}

/** Where the RSS went between warm-up and the end: each part's mean level over the same windows as the RSS's. */
export interface ChurnMemoryPart {
  part: 'main heap' | 'shard heaps' | 'PLEG heap' | 'outside the heaps';
  afterWarmupMiB: number;
  endMiB: number;
  /** Live heap (used) for the heaps; undefined outside them. */
  usedAfterWarmupMiB?: number;
  usedEndMiB?: number;
}

export interface ChurnMeasurement {
  seconds: number;
  perSecond: number;
  created: number;
  deleted: number;
  /** Deleted before shardlet saw them Running: no start latency. */
  deletedBeforeRunning: number;
  /** Start latency of every pod created in the churn that ran. */
  latency: LatencySummary;
  windows: ChurnWindow[];
  /** The first part of the churn, left out of growth and stability. */
  warmupSeconds: number;
  /** Mean RSS over the tenth of the window right after warm-up, and over the last tenth. */
  rssAfterWarmupMiB: number;
  rssEndMiB: number;
  rssGrowthPercent: number;
  /** The worst window's p99 over the median window's p99, windows after warm-up. */
  p99WorstOverMedian: number;
  samples: ChurnSample[];
  /** Each isolate's heap every few seconds (empty when this shardlet does not report it). */
  heapSamples: ChurnHeapSample[];
  /** The RSS growth split by isolate; empty without heap samples. */
  memoryParts: ChurnMemoryPart[];
  cpuPercentOfCore: number;
  criCalls?: CriCallsByMethod;
  /** How long the counts took to settle after the churn stopped. */
  settleSeconds: number;
  leaks: ChurnLeaks;
}

export interface RunResult {
  spec: RunSpec;
  /** Why the run stopped short; what was measured before stays. */
  error?: string;
  start?: StartMeasurement;
  steady?: SteadyMeasurement;
  churn?: ChurnMeasurement;
}

export interface FloorMeasurement {
  /** From the first call to the last app container started. */
  allRunningMs: number;
  latency: LatencySummary;
  podsPerSecond: number;
  criCalls: CriCallsByMethod;
  /** The bare client's own CPU time. */
  clientCpuSeconds: number;
  /** Per pod, from the client's start: the floor's latency distribution. */
  podLatenciesMs: number[];
}

export interface FloorResult {
  spec: FloorSpec;
  error?: string;
  measured?: FloorMeasurement;
}
