// The scale scenario's tables: a row per repeated run, each figure its median over
// the runs with the spread (min–max) in parentheses; start and cost in two tables
// to fit the line, then per row the CRI calls and the CPU by thread.
import type { FloorResult, RunResult } from './results.js';
import { summarizeRepeatedRow, type RepeatedRowSummary } from './repeated-row.js';
import type { ScenarioPlan } from './scenarios.js';
import { formatSpread, type Spread } from './spread.js';
import { criBreakdown, renderTable, type Column } from './table-format.js';

const SECONDS_PER_MS = 1 / 1000;

function scaled(spread: Spread | undefined, factor: number): Spread | undefined {
  return spread && { ...spread, median: spread.median * factor, min: spread.min * factor, max: spread.max * factor };
}

const KEY_COLUMNS: Column<RepeatedRowSummary>[] = [
  { header: ['', 'scenario'], cell: (r) => r.label, alignLeft: true },
  { header: ['', 'profile'], cell: (r) => r.spec.profile, alignLeft: true },
  { header: ['', 'source'], cell: (r) => r.spec.source, alignLeft: true },
  { header: ['', 'wk'], cell: (r) => String(r.spec.workers) },
  { header: ['', 'runs'], cell: (r) => `${r.measured}/${r.runIds.length}` },
];

const START_COLUMNS: Column<RepeatedRowSummary>[] = [
  ...KEY_COLUMNS,
  { header: ['all Running', 's'], cell: (r) => formatSpread(scaled(r.allRunningMs, SECONDS_PER_MS), 2) },
  { header: ['', '× floor'], cell: (r) => formatSpread(r.floorRatio, 2) },
  { header: ['', 'pods/s'], cell: (r) => formatSpread(r.podsPerSecond, 0) },
  { header: ['start latency', 'p99 s'], cell: (r) => formatSpread(scaled(r.p99Ms, SECONDS_PER_MS), 2) },
];

const COST_COLUMNS: Column<RepeatedRowSummary>[] = [
  ...KEY_COLUMNS,
  { header: ['start-up', 'CPU s'], cell: (r) => formatSpread(r.startupCpuSeconds, 2) },
  { header: ['CPU after first pod', 'ms/pod'], cell: (r) => formatSpread(r.cpuMsPerPod, 2) },
  { header: ['main thread', 'ms/pod'], cell: (r) => formatSpread(r.byThreadMsPerPod?.main, 2) },
  { header: ['peak RSS', 'MiB'], cell: (r) => formatSpread(r.peakRssMiB, 0) },
];

export function renderScaleTable(scenario: ScenarioPlan, runsById: Map<string, RunResult>, floorsById: Map<string, FloorResult>): string[] {
  const rows = scenario.rows.map((row) => summarizeRepeatedRow(row, runsById, floorsById));
  const tag = (row: RepeatedRowSummary) => `${row.label} ${row.spec.profile} ${row.spec.source} wk ${row.spec.workers}`;
  const width = Math.max(...rows.map((row) => tag(row).length));
  const lines = [scenario.title, '', ...renderTable(START_COLUMNS, rows), '', ...renderTable(COST_COLUMNS, rows)];
  for (const row of rows) for (const error of row.errors) lines.push(`  ${tag(row)}: ${error}`);
  lines.push('', 'CRI calls per pod (median of the runs, by method):');
  for (const row of rows) lines.push(`  ${tag(row).padEnd(width)}  ${criBreakdown(row.criCallsPerPodByMethod, 1)}`);
  lines.push('', 'CPU by thread, medians: per pod after the first pod seen (ms), and start-up until it (s):');
  for (const row of rows) {
    const perPod = row.byThreadMsPerPod;
    const startup = row.startupByThread;
    const median = (spread: Spread | undefined) => (spread ? spread.median.toFixed(2) : '–');
    lines.push(
      `  ${tag(row).padEnd(width)}  per pod main ${median(perPod?.main)} shards ${median(perPod?.shards)} pleg ${median(perPod?.pleg)} other ${median(perPod?.other)} ms; ` +
        `start-up main ${median(startup?.main)} shards ${median(startup?.shards)} pleg ${median(startup?.pleg)} other ${median(startup?.other)} s`,
    );
  }
  return lines;
}
