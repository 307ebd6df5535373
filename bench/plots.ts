// The plots a person looks at: per scenario, the pod start latency distribution
// (CDF) with one line per --workers value and the floor's as a dashed line, one
// panel per pod count and source; and for the sweep, pods/s and shardlet CPU per
// pod against --workers; for the churn, RSS and start p99 over the churn window.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FloorResult, RunResult } from './results.js';
import type { BenchPlan, ScenarioPlan } from './scenarios.js';
import { renderPanels, type Chart, type Series } from './svg-chart.js';
import type { ThreadCpuPerPod } from './thread-cpu.js';

const WORKER_COLORS: Record<number, string> = { 0: '#1f77b4', 1: '#ff7f0e', 2: '#2ca02c', 4: '#d62728', 8: '#9467bd' };
const OTHER_COLORS = ['#8c564b', '#e377c2', '#17becf', '#bcbd22'];
const FLOOR_COLOR = '#7f7f7f';
const PROFILE_COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd'];
const PANEL_COLUMNS = 2;

export interface PlotInputs {
  plan: BenchPlan;
  runsById: Map<string, RunResult>;
  floorsById: Map<string, FloorResult>;
}

/** Writes the SVG files into outDir; resolves with their paths. */
export function writePlots(outDir: string, inputs: PlotInputs): string[] {
  const written: string[] = [];
  for (const scenario of inputs.plan.scenarios) {
    if (scenario.kind !== 'start') continue;
    const charts = latencyCharts(scenario, inputs);
    if (charts.length === 0) continue;
    const path = join(outDir, `${scenario.name}-latency.svg`);
    writeFileSync(path, renderPanels(charts, PANEL_COLUMNS));
    written.push(path);
  }
  const sweep = inputs.plan.scenarios.find((scenario) => scenario.name === 'sweep');
  if (sweep) {
    const charts = sweepCharts(sweep, inputs);
    if (charts.length > 0) {
      const path = join(outDir, 'sweep-pods-per-second.svg');
      writeFileSync(path, renderPanels(charts, PANEL_COLUMNS));
      written.push(path);
    }
  }
  const churn = inputs.plan.scenarios.find((scenario) => scenario.name === 'churn');
  const churnPanels = churn ? churnCharts(churn, inputs) : [];
  if (churnPanels.length > 0) {
    const path = join(outDir, 'churn-over-time.svg');
    writeFileSync(path, renderPanels(churnPanels, PANEL_COLUMNS));
    written.push(path);
  }
  return written;
}

/** shardlet's RSS at each sample, and each window's start p99 at the window's middle, a line per run. */
function churnCharts(churn: ScenarioPlan, { runsById }: PlotInputs): Chart[] {
  const runs = churn.rows.map((row) => runsById.get(row.runId)).filter((run): run is RunResult => run?.churn !== undefined);
  if (runs.length === 0) return [];
  const label = (run: RunResult) => `${run.spec.pods} pods, --workers ${run.spec.workers}`;
  const rss: Series[] = runs.map((run) => ({
    label: label(run),
    color: colorOfWorkers(run.spec.workers),
    points: run.churn!.samples.map((sample): [number, number] => [sample.atS, sample.rssMiB]),
  }));
  const p99: Series[] = runs.map((run) => ({
    label: label(run),
    color: colorOfWorkers(run.spec.workers),
    dots: true,
    points: run.churn!.windows.filter((w) => w.started > 0).map((w): [number, number] => [(w.fromS + w.toS) / 2, w.latency.p99Ms / 1000]),
  }));
  return [
    { title: 'shardlet RSS during the churn', xLabel: 'seconds of churn', yLabel: 'RSS MiB', series: rss },
    { title: 'start latency p99 per window during the churn', xLabel: 'seconds of churn (window middle)', yLabel: 'p99 seconds', series: p99 },
  ];
}

function colorOfWorkers(workers: number): string {
  return WORKER_COLORS[workers] ?? OTHER_COLORS[workers % OTHER_COLORS.length];
}

/** Fraction of pods Running against seconds since submission. */
function cdfPoints(latenciesMs: number[]): Array<[number, number]> {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return [[0, 0], ...sorted.map((ms, i): [number, number] => [ms / 1000, (i + 1) / sorted.length])];
}

/** One panel per group of runs that differ only in --workers (and --runtime-creation-limit, when the bench sweeps it). */
function latencyCharts(scenario: ScenarioPlan, { runsById, floorsById }: PlotInputs): Chart[] {
  const groups = new Map<string, RunResult[]>();
  for (const row of scenario.rows) {
    const run = runsById.get(row.runId);
    if (!run?.start) continue;
    const limitSuffix = run.spec.creationLimit ? ` limit ${run.spec.creationLimit}` : '';
    const label = limitSuffix && row.label.endsWith(limitSuffix) ? row.label.slice(0, -limitSuffix.length) : row.label;
    const title = `${label}, ${run.spec.pods} pods, ${run.spec.source}`;
    groups.set(title, [...(groups.get(title) ?? []), run]);
  }
  return [...groups].map(([title, runs]) => {
    const sweepsLimit = runs.some((run) => run.spec.creationLimit !== undefined);
    const series: Series[] = runs
      .sort((a, b) => a.spec.workers - b.spec.workers)
      .map((run, i) => ({
        label: `--workers ${run.spec.workers}${run.spec.creationLimit ? `, limit ${run.spec.creationLimit}` : ''}`,
        color: sweepsLimit ? OTHER_COLORS[i % OTHER_COLORS.length] : colorOfWorkers(run.spec.workers),
        points: cdfPoints(run.start!.pods.map((pod) => pod.latencyMs)),
      }));
    const floor = floorsById.get(runs[0].spec.floorId)?.measured;
    if (floor) series.push({ label: 'floor (bare client)', color: FLOOR_COLOR, dashed: true, points: cdfPoints(floor.podLatenciesMs) });
    return { title, xLabel: 'seconds from submission to Running', yLabel: 'fraction of pods Running', series, yMax: 1 };
  });
}

/** pods/s and CPU ms per pod start against --workers, a line per profile and source. */
function sweepCharts(sweep: ScenarioPlan, { runsById, floorsById }: PlotInputs): Chart[] {
  const runs = sweep.rows.map((row) => runsById.get(row.runId)).filter((run): run is RunResult => run?.start !== undefined);
  if (runs.length === 0) return [];
  const workers = [...new Set(runs.map((run) => run.spec.workers))].sort((a, b) => a - b);
  const lines = new Map<string, RunResult[]>();
  for (const run of runs) {
    const key = `${run.spec.profile} ${run.spec.pods} pods ${run.spec.source}`;
    lines.set(key, [...(lines.get(key) ?? []), run]);
  }
  const seriesOf = (pick: (run: RunResult) => number, withFloor: boolean): Series[] =>
    [...lines].flatMap(([label, lineRuns], i) => {
      const color = PROFILE_COLORS[i % PROFILE_COLORS.length];
      const sorted = lineRuns.sort((a, b) => a.spec.workers - b.spec.workers);
      const series: Series[] = [{ label, color, dots: true, points: sorted.map((run) => [run.spec.workers, pick(run)]) }];
      const floor = floorsById.get(sorted[0].spec.floorId)?.measured;
      if (withFloor && floor) {
        series.push({ label: `floor, ${sorted[0].spec.profile}`, color, dashed: true, points: [[workers[0], floor.podsPerSecond], [workers[workers.length - 1], floor.podsPerSecond]] });
      }
      return series;
    });
  return [
    { title: 'pods/s to all Running against --workers', xLabel: '--workers', yLabel: 'pods/s', xCategories: workers, series: seriesOf((run) => run.start!.podsPerSecond, true) },
    { title: 'shardlet CPU per pod start against --workers', xLabel: '--workers', yLabel: 'CPU ms per pod', xCategories: workers, series: seriesOf((run) => run.start!.cpuMsPerPod, false) },
    ...threadBreakdownCharts(lines, workers),
  ];
}

/** Per profile and source: CPU ms per pod of the main thread, the shards, the PLEG and the rest, against --workers. */
function threadBreakdownCharts(lines: Map<string, RunResult[]>, workers: number[]): Chart[] {
  const parts: Array<[string, string, (perPod: ThreadCpuPerPod) => number]> = [
    ['main thread', '#d62728', (perPod) => perPod.mainMs],
    ['shard threads', '#1f77b4', (perPod) => perPod.shardsMs],
    ['PLEG thread', '#2ca02c', (perPod) => perPod.plegMs],
    ['other (GC, libuv)', '#7f7f7f', (perPod) => perPod.otherMs],
  ];
  return [...lines].flatMap(([label, lineRuns]) => {
    const measured = lineRuns.filter((run) => run.start?.threadCpuPerPod).sort((a, b) => a.spec.workers - b.spec.workers);
    if (measured.length === 0) return [];
    const series: Series[] = parts.map(([part, color, pick]) => ({
      label: part,
      color,
      dots: true,
      points: measured.map((run) => [run.spec.workers, pick(run.start!.threadCpuPerPod!)] as [number, number]),
    }));
    return [{ title: `CPU per pod start by thread against --workers, ${label}`, xLabel: '--workers', yLabel: 'CPU ms per pod', xCategories: workers, series }];
  });
}
