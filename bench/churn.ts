// The churn soak: with the run's pods Running, one pod is created and one deleted
// every 1/perSecond s (manifests written and removed) for the churn window, while
// shardlet's RSS is sampled and every new pod's start is timed. Then, once the
// counts settle, what was left behind: sandboxes, containers, pod directories and
// pod log directories of pods that are gone. Pods to delete are drawn uniformly
// from the live ones (seeded, so runs repeat), so a few go while still starting.
import { CriClient } from '../src/shared/cri/client.js';
import type { CriCallsByMethod } from './bench-runtime.js';
import { benchPod, benchPods, type BenchPod } from './bench-pods.js';
import { settledLeaks } from './churn-leaks.js';
import { removeStaticPod, staticPodKey, staticSubmitter } from './pod-submitters.js';
import { processCpuSeconds, processMemory } from './proc-stats.js';
import type { StepProgress } from './progress.js';
import type { HeapFigures, ThreadHeapReport } from '../src/shared/thread-heap.js';
import type { ChurnHeapSample, ChurnMeasurement, ChurnMemoryPart, ChurnSample, ChurnWindow, HeapMiB } from './results.js';
import type { RunSpec } from './scenarios.js';
import type { ShardletProcess } from './shardlet-process.js';
import { countsDelta, summarize } from './stats.js';

/** RSS, CPU and start records are read this often. */
const SAMPLE_PERIOD_MS = 1_000;
/** Each isolate's heap is read this often: a round trip to every thread, kept rare beside the starts it could delay. */
const HEAP_SAMPLE_PERIOD_MS = 5_000;
const BYTES_PER_MIB = 1024 * 1024;
/** The churn window is cut into this many windows for the p99 over time (a minute each at 10 minutes). */
const WINDOW_COUNT = 10;
/** The first part of the window, while allocations and JIT settle: left out of growth and stability. */
const WARMUP_FRACTION = 0.2;
/** RSS levels are means over a tenth of the window: after warm-up, and at the end. */
const RSS_LEVEL_FRACTION = 0.1;
/** How long the pods created last may take to run before the leak count starts. */
const PENDING_TIMEOUT_MS = 30_000;
/** shardlet notes a pod when its source delivers it; this covers the file watch's delay and clock reads. */
const SEEN_SLACK_MS = 1_000;
const CHURN_SEED = 8;

export interface ChurnRun {
  spec: RunSpec;
  shardlet: ShardletProcess;
  runtimeEndpoint: string;
  manifestDir: string;
  rootDir: string;
  podLogsDir: string;
  progress: StepProgress;
  criCalls(): Promise<CriCallsByMethod | undefined>;
}

interface TimedStart {
  submittedAtMs: number;
  latencyMs: number;
}

/** The pods churned in and out, and the starts seen so far. */
class ChurnState {
  readonly live: BenchPod[];
  readonly pendingSince = new Map<string, number>();
  readonly starts: TimedStart[] = [];
  created = 0;
  deleted = 0;
  deletedBeforeRunning = 0;
  private nextIndex: number;
  private readonly random = mulberry32(CHURN_SEED);

  constructor(private readonly run: ChurnRun) {
    this.live = benchPods(run.spec.pods, run.spec.imageSet.images);
    this.nextIndex = run.spec.pods;
  }

  /** One created, then one of those live before it deleted. */
  async step(): Promise<void> {
    const victimIndex = Math.floor(this.random() * this.live.length);
    const pod = benchPod(this.nextIndex++, this.run.spec.imageSet.images);
    const submitted = await staticSubmitter(this.run.manifestDir).submit([pod]);
    for (const [key, atMs] of submitted) this.pendingSince.set(key, atMs);
    this.created++;
    if (this.live.length > 0) {
      const [victim] = this.live.splice(victimIndex, 1);
      removeStaticPod(this.run.manifestDir, victim);
      if (this.pendingSince.delete(staticPodKey(victim))) this.deletedBeforeRunning++;
      this.deleted++;
    }
    this.live.push(pod);
  }

  /** Moves the pending pods shardlet now shows Running to the starts. */
  async collectStarts(): Promise<void> {
    if (this.pendingSince.size === 0) return;
    const oldest = Math.min(...this.pendingSince.values());
    for (const record of await this.run.shardlet.startupRecords(oldest - SEEN_SLACK_MS)) {
      const submittedAtMs = this.pendingSince.get(record.pod);
      if (submittedAtMs === undefined || record.runningAtMs === undefined) continue;
      this.starts.push({ submittedAtMs, latencyMs: record.runningAtMs - submittedAtMs });
      this.pendingSince.delete(record.pod);
    }
  }
}

export async function measureChurn(run: ChurnRun): Promise<ChurnMeasurement> {
  const { seconds, perSecond } = run.spec.churn!;
  const state = new ChurnState(run);
  const churned = await churnWindow(run, state);
  const settled = await leaksAfter(run, state);
  const windows = churnWindows(state.starts, churned.startedMs, seconds * 1000);
  const warmupSeconds = seconds * WARMUP_FRACTION;
  const levels = levelWindows(seconds);
  const rssAfterWarmupMiB = meanOf(churned.samples, (sample) => sample.rssMiB, levels.afterWarmup);
  const rssEndMiB = meanOf(churned.samples, (sample) => sample.rssMiB, levels.end);
  const afterWarmup = windows.filter((window) => window.fromS >= warmupSeconds - 1e-9 && window.started > 0);
  return {
    seconds: churned.seconds,
    perSecond,
    created: state.created,
    deleted: state.deleted,
    deletedBeforeRunning: state.deletedBeforeRunning,
    latency: summarize(state.starts.map((start) => start.latencyMs)),
    windows,
    warmupSeconds,
    rssAfterWarmupMiB,
    rssEndMiB,
    rssGrowthPercent: (rssEndMiB / rssAfterWarmupMiB - 1) * 100,
    p99WorstOverMedian: worstOverMedian(afterWarmup.map((window) => window.latency.p99Ms)),
    samples: churned.samples,
    heapSamples: churned.heapSamples,
    memoryParts: memoryParts(churned.heapSamples, levels),
    cpuPercentOfCore: (churned.cpuSeconds / churned.seconds) * 100,
    criCalls: churned.criCalls,
    settleSeconds: settled.settleSeconds,
    leaks: settled.leaks,
  };
}

/** The churn itself: a step every 1/perSecond s, RSS, CPU and start records every second. */
async function churnWindow(run: ChurnRun, state: ChurnState) {
  const { seconds, perSecond } = run.spec.churn!;
  const pid = run.shardlet.pid;
  const windowMs = seconds * 1000;
  const stepMs = 1000 / perSecond;
  const samples: ChurnSample[] = [];
  const heapSamples: ChurnHeapSample[] = [];
  const criBefore = await run.criCalls();
  const cpuBefore = processCpuSeconds(pid);
  const startedMs = Date.now();
  let steps = 0;
  let nextSampleMs = startedMs;
  let nextHeapSampleMs = startedMs;
  for (let elapsedMs = 0; elapsedMs < windowMs; elapsedMs = Date.now() - startedMs) {
    // Steps are due at fixed times, so a slow write or poll is caught up, not dropped.
    for (; steps * stepMs <= elapsedMs; steps++) await state.step();
    if (Date.now() >= nextSampleMs) {
      run.shardlet.assertRunning();
      samples.push({ atS: (Date.now() - startedMs) / 1000, rssMiB: processMemory(pid).rssMiB, cpuSeconds: processCpuSeconds(pid) - cpuBefore });
      await state.collectStarts();
      run.progress.update(Math.floor(elapsedMs / 1000), seconds, `s churn, ${state.created} created, ${state.deleted} deleted`);
      nextSampleMs += SAMPLE_PERIOD_MS;
    }
    if (Date.now() >= nextHeapSampleMs) {
      const heaps = await run.shardlet.threadHeaps();
      if (heaps) heapSamples.push(heapSample((Date.now() - startedMs) / 1000, heaps));
      nextHeapSampleMs += HEAP_SAMPLE_PERIOD_MS;
    }
    const untilNext = Math.min(startedMs + steps * stepMs, nextSampleMs, startedMs + windowMs) - Date.now();
    await sleep(Math.max(untilNext, 0));
  }
  const cpuSeconds = processCpuSeconds(pid) - cpuBefore;
  const criAfter = await run.criCalls();
  const criCalls = criBefore && criAfter ? countsDelta(criAfter, criBefore) : undefined;
  return { startedMs, seconds: (Date.now() - startedMs) / 1000, cpuSeconds, criCalls, samples, heapSamples };
}

/** Lets the last pods created run (their starts count), then reads the settled leak counts. */
async function leaksAfter(run: ChurnRun, state: ChurnState) {
  const pendingDeadline = Date.now() + PENDING_TIMEOUT_MS;
  while (state.pendingSince.size > 0 && Date.now() < pendingDeadline) {
    await sleep(SAMPLE_PERIOD_MS);
    run.shardlet.assertRunning();
    await state.collectStarts();
  }
  const cri = new CriClient(run.runtimeEndpoint, { timeoutMs: 30_000 });
  try {
    const wantedKeys = new Set(state.live.map(staticPodKey));
    return await settledLeaks({ cri, pods: () => run.shardlet.pods(), rootDir: run.rootDir, podLogsDir: run.podLogsDir, wantedKeys });
  } finally {
    cri.close();
  }
}

/** The starts grouped by when the pod was submitted, WINDOW_COUNT equal windows. */
function churnWindows(starts: TimedStart[], startedMs: number, windowMs: number): ChurnWindow[] {
  const lengthMs = windowMs / WINDOW_COUNT;
  return Array.from({ length: WINDOW_COUNT }, (_, i) => {
    const inWindow = starts.filter((start) => Math.min(Math.floor((start.submittedAtMs - startedMs) / lengthMs), WINDOW_COUNT - 1) === i);
    return {
      fromS: (i * lengthMs) / 1000,
      toS: ((i + 1) * lengthMs) / 1000,
      started: inWindow.length,
      latency: summarize(inWindow.map((start) => start.latencyMs)),
    };
  });
}

interface LevelWindows {
  afterWarmup: [number, number];
  end: [number, number];
}

/** Where memory levels are read: the tenth of the window right after warm-up, and the last tenth. */
function levelWindows(seconds: number): LevelWindows {
  const warmupSeconds = seconds * WARMUP_FRACTION;
  return {
    afterWarmup: [warmupSeconds, warmupSeconds + seconds * RSS_LEVEL_FRACTION],
    end: [seconds * (1 - RSS_LEVEL_FRACTION), Infinity],
  };
}

/** Mean of `value` over the samples taken in [fromS, toS); the closest sample's when none was. */
function meanOf<T extends { atS: number }>(samples: T[], value: (sample: T) => number, [fromS, toS]: [number, number]): number {
  const inRange = samples.filter((sample) => sample.atS >= fromS && sample.atS < toS);
  if (inRange.length > 0) return inRange.reduce((sum, sample) => sum + value(sample), 0) / inRange.length;
  const closest = [...samples].sort((a, b) => Math.abs(a.atS - fromS) - Math.abs(b.atS - fromS))[0];
  return closest ? value(closest) : Number.NaN;
}

function heapSample(atS: number, report: ThreadHeapReport): ChurnHeapSample {
  const mib = (figures: HeapFigures[]): HeapMiB => ({
    residentMiB: figures.reduce((sum, f) => sum + f.residentBytes, 0) / BYTES_PER_MIB,
    usedMiB: figures.reduce((sum, f) => sum + f.usedBytes, 0) / BYTES_PER_MIB,
    externalMiB: figures.reduce((sum, f) => sum + f.externalBytes, 0) / BYTES_PER_MIB,
  });
  return { atS, rssMiB: report.rssBytes / BYTES_PER_MIB, main: mib([report.main]), shards: mib(report.shards), pleg: mib(report.pleg ? [report.pleg] : []) };
}

/** The RSS split into each isolate's resident heap and the rest, at the two levels. */
function memoryParts(samples: ChurnHeapSample[], levels: LevelWindows): ChurnMemoryPart[] {
  if (samples.length === 0) return [];
  const heapPart = (part: ChurnMemoryPart['part'], heap: (sample: ChurnHeapSample) => HeapMiB): ChurnMemoryPart => ({
    part,
    afterWarmupMiB: meanOf(samples, (sample) => heap(sample).residentMiB, levels.afterWarmup),
    endMiB: meanOf(samples, (sample) => heap(sample).residentMiB, levels.end),
    usedAfterWarmupMiB: meanOf(samples, (sample) => heap(sample).usedMiB, levels.afterWarmup),
    usedEndMiB: meanOf(samples, (sample) => heap(sample).usedMiB, levels.end),
  });
  const outside = (sample: ChurnHeapSample) => sample.rssMiB - sample.main.residentMiB - sample.shards.residentMiB - sample.pleg.residentMiB;
  return [
    heapPart('main heap', (sample) => sample.main),
    heapPart('shard heaps', (sample) => sample.shards),
    heapPart('PLEG heap', (sample) => sample.pleg),
    { part: 'outside the heaps', afterWarmupMiB: meanOf(samples, outside, levels.afterWarmup), endMiB: meanOf(samples, outside, levels.end) },
  ];
}

function worstOverMedian(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  return sorted[sorted.length - 1] / median;
}

/** A small seeded PRNG (mulberry32): the same victims on every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
