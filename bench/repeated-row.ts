// A row run several times (the scale scenario), reduced to each figure's median
// and spread over its runs; the scale table prints it and results.json keeps it.
import type { CriCallsByMethod } from './bench-runtime.js';
import type { FloorResult, RunResult } from './results.js';
import type { RunSpec, ScenarioRow } from './scenarios.js';
import { spreadOf, type Spread } from './spread.js';
import { sumOf } from './stats.js';

export interface RepeatedRowSummary {
  label: string;
  spec: Pick<RunSpec, 'profile' | 'pods' | 'source' | 'workers'>;
  runIds: string[];
  /** Runs that measured their start; the others' errors. */
  measured: number;
  errors: string[];
  allRunningMs?: Spread;
  floorRatio?: Spread;
  podsPerSecond?: Spread;
  p99Ms?: Spread;
  startupCpuSeconds?: Spread;
  startupByThread?: { main?: Spread; shards?: Spread; pleg?: Spread; other?: Spread };
  cpuMsPerPod?: Spread;
  byThreadMsPerPod?: { main?: Spread; shards?: Spread; pleg?: Spread; other?: Spread };
  peakRssMiB?: Spread;
  criCallsPerPod?: Spread;
  /** Each method's median calls per pod over the runs. */
  criCallsPerPodByMethod?: CriCallsByMethod;
}

export function summarizeRepeatedRow(row: ScenarioRow, runsById: Map<string, RunResult>, floorsById: Map<string, FloorResult>): RepeatedRowSummary {
  const runIds = row.runIds ?? [row.runId];
  const runs = runIds.map((id) => runsById.get(id)).filter((run): run is RunResult => run !== undefined);
  const starts = runs.flatMap((run) => (run.start ? [{ run, start: run.start }] : []));
  const over = (figure: (entry: (typeof starts)[number]) => number | undefined) => spreadOf(starts.map(figure));
  const { profile, pods, source, workers } = runs[0].spec;
  const floorMs = (run: RunResult) => floorsById.get(run.spec.floorId)?.measured?.allRunningMs;
  const withCalls = starts.filter(({ start }) => start.criCalls);
  return {
    label: row.label,
    spec: { profile, pods, source, workers },
    runIds,
    measured: starts.length,
    errors: runs.flatMap((run) => (run.error ? [run.error] : [])),
    allRunningMs: over(({ start }) => start.allRunningMs),
    floorRatio: over(({ run, start }) => (floorMs(run) ? start.allRunningMs / floorMs(run)! : undefined)),
    podsPerSecond: over(({ start }) => start.podsPerSecond),
    p99Ms: over(({ start }) => start.latency.p99Ms),
    startupCpuSeconds: over(({ start }) => start.startup.cpuSeconds),
    startupByThread: {
      main: over(({ start }) => start.startup.byThread?.main),
      shards: over(({ start }) => start.startup.byThread?.shards),
      pleg: over(({ start }) => start.startup.byThread?.pleg),
      other: over(({ start }) => start.startup.byThread?.other),
    },
    cpuMsPerPod: over(({ start }) => start.cpuMsPerPod),
    byThreadMsPerPod: {
      main: over(({ start }) => start.threadCpuPerPod?.mainMs),
      shards: over(({ start }) => start.threadCpuPerPod?.shardsMs),
      pleg: over(({ start }) => start.threadCpuPerPod?.plegMs),
      other: over(({ start }) => start.threadCpuPerPod?.otherMs),
    },
    peakRssMiB: over(({ start }) => start.peakRssMiB),
    criCallsPerPod: spreadOf(withCalls.map(({ start }) => sumOf(start.criCalls!) / pods)),
    criCallsPerPodByMethod: withCalls.length > 0 ? medianPerMethod(withCalls.map(({ start }) => start.criCalls!), pods) : undefined,
  };
}

function medianPerMethod(calls: CriCallsByMethod[], pods: number): CriCallsByMethod {
  const methods = [...new Set(calls.flatMap((counts) => Object.keys(counts)))];
  // A run without a call of the method made 0 of them: it counts in the median.
  return Object.fromEntries(methods.map((method) => [method, spreadOf(calls.map((counts) => (counts[method] ?? 0) / pods))!.median]));
}
