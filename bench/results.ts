// What a run and a floor measure; results.json holds these as they are.
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
  /** How long handing every pod to the source took. */
  submitMs: number;
  latency: LatencySummary;
  latencyExcludingPulls: LatencySummary;
  podsPerSecond: number;
  /** shardlet's CPU time (all threads) from just before submitting to all Running. */
  cpuSeconds: number;
  cpuMsPerPod: number;
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
}

export interface RunResult {
  spec: RunSpec;
  /** Why the run stopped short; what was measured before stays. */
  error?: string;
  start?: StartMeasurement;
  steady?: SteadyMeasurement;
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
