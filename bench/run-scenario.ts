// One run: a fresh runtime, the test API server for the API source, a shardlet
// process, every pod submitted at once, then the wait for all of them to be
// Running and the figures the pod-startup SLO and the design ask for; with a steady
// window, shardlet's cost while nothing changes; with churn, the soak (churn.ts).
// Everything it started is stopped and removed afterwards, whatever happened.
import { threadCpuPercent } from './thread-cpu.js';
import { splitStartCost, type CpuSnapshot } from './start-cost.js';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchApiServer } from './api-source.js';
import { BENCH_NAMESPACE, benchPods, withReadiness } from './bench-pods.js';
import { startProbeTarget, steadyProbeFigures, type ProbeTarget } from './probe-target.js';
import { measureChurn } from './churn.js';
import { openBenchRuntime, type BenchRuntime, type ContainerdTarget, type CriCallsByMethod } from './bench-runtime.js';
import { staticSubmitter, type PodSubmitter } from './pod-submitters.js';
import { processCpuSeconds, processMemory } from './proc-stats.js';
import type { StepProgress } from './progress.js';
import type { PodStart, RunResult, StartMeasurement, SteadyMeasurement } from './results.js';
import { MAX_PODS_HEADROOM, type RunSpec } from './scenarios.js';
import { ShardletProcess, shardletDirs, type StartupRecord } from './shardlet-process.js';
import { countsDelta, summarize } from './stats.js';
import { removeWorkDir } from './work-dir.js';

const RUNNING_POLL_MS = 200;
/** The wait for shardlet to see the first pod holds back the others: poll it tightly. */
const FIRST_SEEN_POLL_MS = 5;
const START_TIMEOUT_MS = 5 * 60_000;
/** Lets the last status updates and PLEG events of the start-up pass before the steady window opens. */
const STEADY_SETTLE_MS = 3_000;
const STEADY_PROGRESS_PERIOD_MS = 1_000;

/** What stays running while a run measures, and how to read it. */
interface RunUnderTest {
  spec: RunSpec;
  shardlet: ShardletProcess;
  runtime: BenchRuntime;
  api?: BenchApiServer;
  submitter: PodSubmitter;
  progress: StepProgress;
  /** The probes scenario: the HTTP server the pods' httpGet readiness probes reach. */
  probeTarget?: ProbeTarget;
}

export async function runScenario(spec: RunSpec, containerd: ContainerdTarget | undefined, progress: StepProgress): Promise<RunResult> {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-bench-'));
  // Undone in reverse: shardlet stops before its API server and runtime go away.
  const teardown: Array<() => Promise<unknown>> = [];
  const result: RunResult = { spec };
  try {
    const runtime = await openBenchRuntime(
      spec.profile,
      spec.imageSet,
      workDir,
      containerd,
      { 'io.kubernetes.pod.namespace': BENCH_NAMESPACE },
      spec.containerEvents ?? true,
      spec.simPersonality,
    );
    teardown.push(() => runtime.close());
    let api: BenchApiServer | undefined;
    let manifestDir: string | undefined;
    if (spec.source === 'api') {
      api = await BenchApiServer.start(workDir);
      teardown.push(() => api!.stop());
    } else {
      manifestDir = join(workDir, 'manifests');
      mkdirSync(manifestDir);
    }
    const shardlet = await ShardletProcess.start({
      endpoint: runtime.endpoint,
      workDir,
      workers: spec.workers,
      maxPods: spec.pods + MAX_PODS_HEADROOM,
      imagePulls: spec.imagePulls,
      manifestDir,
      kubeconfig: api?.nodeKubeconfig,
      creationLimit: spec.creationLimit,
    });
    teardown.push(() => shardlet.stop());
    // Last of all: on containerd the pods (and their processes) leave the run's cgroups only when the runtime closes.
    teardown.unshift(() => shardlet.removeCgroups());
    await api?.waitForKubelet(() => shardlet.assertRunning());
    const run: RunUnderTest = { spec, shardlet, runtime, api, submitter: api?.submitter ?? staticSubmitter(manifestDir!), progress };
    if (spec.probes && spec.probes.readiness !== 'none') {
      const probeTarget = await startProbeTarget();
      teardown.push(() => probeTarget.close());
      run.probeTarget = probeTarget;
    }
    result.start = await measureStart(run);
    if (spec.steadySeconds > 0) result.steady = await measureSteady(run);
    if (spec.churn) {
      if (!manifestDir) throw new Error('bench: churn needs the static source (it deletes pods by removing their manifests)');
      const churn = { spec, shardlet, runtimeEndpoint: runtime.endpoint, manifestDir, progress, criCalls: () => criCallsOf(run) };
      result.churn = await measureChurn({ ...churn, ...shardletDirs(workDir) });
    }
  } catch (err) {
    result.error = (err as Error).message;
  } finally {
    for (const undo of teardown.reverse()) await undo().catch((err: Error) => (result.error ??= `teardown: ${err.message}`));
    await removeWorkDir(workDir);
  }
  return result;
}

async function measureStart(run: RunUnderTest): Promise<StartMeasurement> {
  const { spec, shardlet, api } = run;
  const plain = benchPods(spec.pods, spec.imageSet.images);
  const pods = run.probeTarget && spec.probes ? withReadiness(plain, run.probeTarget.port, spec.probes.readiness === 'http+exec', spec.probes.periodSeconds) : plain;
  const criBefore = await criCallsOf(run);
  api?.resetRequestCount();
  // The first pod alone, then the rest once shardlet has seen it: its CPU at that
  // moment is the start-up cost, everything after it the pods'.
  const [firstPod, ...otherPods] = pods;
  const firstSubmittedMs = Date.now();
  const submittedFirst = await run.submitter.submit([firstPod]);
  const firstSeen = await snapshotWhenFirstSeen(run, firstSubmittedMs);
  const submittedOthers = await run.submitter.submit(otherPods);
  const submittedAtMs = new Map([...submittedFirst, ...submittedOthers]);
  const submitMs = Date.now() - firstSubmittedMs;
  const records = await waitAllRunning(run, submittedAtMs);
  const atAllRunning: CpuSnapshot = { processSeconds: processCpuSeconds(shardlet.pid), threads: await shardlet.threadCpu() };
  const criAfter = await criCallsOf(run);
  const starts = records.map((record) => podStart(record, submittedAtMs.get(record.pod)!));
  const allRunningMs = Math.max(...starts.map((start) => start.runningAtMs)) - firstSubmittedMs;
  const cost = splitStartCost(firstSeen.snapshot, atAllRunning, spec.pods);
  return {
    allRunningMs,
    submitMs,
    firstSeenMs: firstSeen.seenAtMs - firstSubmittedMs,
    latency: summarize(starts.map((start) => start.latencyMs)),
    latencyExcludingPulls: summarize(starts.map((start) => start.latencyExcludingPullsMs)),
    podsPerSecond: spec.pods / (allRunningMs / 1000),
    startup: cost.startup,
    cpuSeconds: cost.cpuSeconds,
    cpuMsPerPod: cost.cpuMsPerPod,
    threadCpuPerPod: cost.threadCpuPerPod,
    peakRssMiB: processMemory(shardlet.pid).peakRssMiB,
    criCalls: criBefore && criAfter ? countsDelta(criAfter, criBefore) : undefined,
    apiWrites: api?.kubeletWrites(spec.pods) ?? {},
    apiPodsRunning: api?.podsRunning(),
    pods: starts,
  };
}

/** Polls shardlet's start records until it has seen a pod submitted since `sinceMs`; its CPU then, and when it saw the pod. */
async function snapshotWhenFirstSeen(run: RunUnderTest, sinceMs: number): Promise<{ snapshot: CpuSnapshot; seenAtMs: number }> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    run.shardlet.assertRunning();
    const [first] = await run.shardlet.startupRecords(sinceMs);
    if (first) {
      const processSeconds = processCpuSeconds(run.shardlet.pid);
      return { snapshot: { processSeconds, threads: await run.shardlet.threadCpu() }, seenAtMs: first.seenAtMs };
    }
    if (Date.now() > deadline) throw new Error(`shardlet did not see the first pod within ${START_TIMEOUT_MS / 1000} s`);
    await sleep(FIRST_SEEN_POLL_MS);
  }
}

/** Polls shardlet's start records until every submitted pod is Running; resolves with those records. */
async function waitAllRunning(run: RunUnderTest, submittedAtMs: Map<string, number>): Promise<StartupRecord[]> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    run.shardlet.assertRunning();
    const running = (await run.shardlet.startupRecords()).filter((record) => submittedAtMs.has(record.pod) && record.runningAtMs !== undefined);
    run.progress.update(running.length, submittedAtMs.size, 'Running');
    if (running.length >= submittedAtMs.size) return running;
    if (Date.now() > deadline) throw new Error(`only ${running.length} of ${submittedAtMs.size} pods Running after ${START_TIMEOUT_MS / 1000} s`);
    await sleep(RUNNING_POLL_MS);
  }
}

function podStart(record: StartupRecord, submittedAtMs: number): PodStart {
  const runningAtMs = record.runningAtMs!;
  const latencyMs = runningAtMs - submittedAtMs;
  const pulled = record.firstStartedPullingAtMs !== undefined && record.lastFinishedPullingAtMs !== undefined;
  const pullMs = pulled ? record.lastFinishedPullingAtMs! - record.firstStartedPullingAtMs! : undefined;
  return { pod: record.pod, submittedAtMs, runningAtMs, latencyMs, pullMs, latencyExcludingPullsMs: latencyMs - (pullMs ?? 0) };
}

async function measureSteady(run: RunUnderTest): Promise<SteadyMeasurement> {
  const { spec, shardlet, api } = run;
  // Probed pods turn Ready at their first probe, up to a period after they run (the start-up jitter): that sync is
  // start-up, not steady state. The probes scenario's run without probes waits as long, so both windows see the same resyncs.
  const settleMs = STEADY_SETTLE_MS + (spec.probes ? spec.probes.periodSeconds * 1000 : 0);
  await sleep(settleMs);
  const criBefore = await criCallsOf(run);
  api?.resetRequestCount();
  const cpuBefore = processCpuSeconds(shardlet.pid);
  const threadsBefore = await shardlet.threadCpu();
  const probesBefore = run.probeTarget ? await shardlet.probeStats() : undefined;
  const startedMs = Date.now();
  const windowMs = spec.steadySeconds * 1000;
  while (Date.now() - startedMs < windowMs) {
    run.progress.update(Math.floor((Date.now() - startedMs) / 1000), spec.steadySeconds, 's steady');
    await sleep(Math.min(STEADY_PROGRESS_PERIOD_MS, windowMs - (Date.now() - startedMs)));
    shardlet.assertRunning();
  }
  const windowSeconds = (Date.now() - startedMs) / 1000;
  const cpuSeconds = processCpuSeconds(shardlet.pid) - cpuBefore;
  const threadsAfter = await shardlet.threadCpu();
  const criAfter = await criCallsOf(run);
  const memory = processMemory(shardlet.pid);
  const probes = probesBefore ? steadyProbeFigures(probesBefore, await shardlet.probeStats(), windowSeconds) : undefined;
  return {
    settleSeconds: settleMs / 1000,
    windowSeconds,
    cpuSeconds,
    cpuPercentOfCore: (cpuSeconds / windowSeconds) * 100,
    rssMiB: memory.rssMiB,
    peakRssMiB: memory.peakRssMiB,
    criCalls: criBefore && criAfter ? countsDelta(criAfter, criBefore) : undefined,
    apiWrites: api?.kubeletWrites(0) ?? {},
    threadCpuPercent: threadsBefore && threadsAfter ? threadCpuPercent(threadsBefore, threadsAfter, windowSeconds) : undefined,
    ...(probes ? { probes } : {}),
  };
}

/** The sim counts what it serves; on containerd, shardlet's own counters (absent in older builds). */
async function criCallsOf(run: RunUnderTest): Promise<CriCallsByMethod | undefined> {
  return run.runtime.criCalls?.() ?? (await run.shardlet.criCalls());
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
