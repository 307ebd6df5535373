// The tables the bench prints: one per scenario, each row one run (a repeated row:
// scale-table.ts), with under it the CRI calls per pod by method for each run and
// its floor. Fits 120 columns.
import type { ChurnMeasurement, FloorResult, RunResult } from './results.js';
import { renderScaleTable } from './scale-table.js';
import type { BenchPlan, ScenarioPlan } from './scenarios.js';
import { startupLine } from './start-cost.js';
import { sumOf } from './stats.js';
import { criBreakdown, criLegend, fixed, ratio, renderTable, runTag, seconds, triple, type Column } from './table-format.js';
import { threadCpuLine } from './thread-cpu.js';

interface StartRow {
  label: string;
  run: RunResult;
  floor?: FloorResult;
}

const START_COLUMNS: Column<StartRow>[] = [
  { header: ['', 'scenario'], cell: (r) => r.label, alignLeft: true },
  { header: ['', 'source'], cell: (r) => r.run.spec.source, alignLeft: true },
  { header: ['', 'pods'], cell: (r) => String(r.run.spec.pods) },
  { header: ['', 'wk'], cell: (r) => String(r.run.spec.workers) },
  { header: ['all', 'Running'], cell: (r) => (r.run.start ? `${seconds(r.run.start.allRunningMs)} s` : 'error') },
  { header: ['start latency s', 'p50/p90/p99'], cell: (r) => (r.run.start ? triple(r.run.start.latency) : '') },
  { header: ['excl. pulls s', 'p50/p90/p99'], cell: (r) => (r.run.start ? triple(r.run.start.latencyExcludingPulls) : '') },
  { header: ['', 'pods/s'], cell: (r) => fixed(r.run.start?.podsPerSecond, 1) },
  { header: ['start-up', 'CPU s'], cell: (r) => fixed(r.run.start?.startup.cpuSeconds, 2) },
  { header: ['CPU', 's'], cell: (r) => fixed(r.run.start?.cpuSeconds, 2) },
  { header: ['CPU', 'ms/pod'], cell: (r) => fixed(r.run.start?.cpuMsPerPod, 2) },
  { header: ['RSS', 'MiB'], cell: (r) => fixed(r.run.start?.peakRssMiB, 0) },
  { header: ['API', 'writes'], cell: (r) => (r.run.start ? String(sumOf(r.run.start.apiWrites)) : '') },
  { header: ['floor', 's'], cell: (r) => seconds(r.floor?.measured?.allRunningMs) },
  { header: ['×', 'floor'], cell: (r) => ratio(r.run.start?.allRunningMs, r.floor?.measured?.allRunningMs) },
];

function renderStartTable(scenario: ScenarioPlan, runsById: Map<string, RunResult>, floorsById: Map<string, FloorResult>): string[] {
  const rows: StartRow[] = scenario.rows.map((row) => {
    const run = runsById.get(row.runId)!;
    return { label: row.label, run, floor: floorsById.get(run.spec.floorId) };
  });
  const lines = [scenario.title, '', ...renderTable(START_COLUMNS, rows)];
  for (const row of rows.filter((r) => r.run.error)) lines.push(`  ${row.label} ${runTag(row.run)}: ${row.run.error}`);
  lines.push('', 'CRI calls per pod:');
  const labelWidth = Math.max(...rows.map((r) => `${r.label} ${runTag(r.run)}`.length), 'floor'.length + 10);
  const shownFloors = new Set<string>();
  for (const row of rows) {
    if (row.floor && !shownFloors.has(row.floor.spec.id)) {
      shownFloors.add(row.floor.spec.id);
      const floorTag = `floor ${row.label}`.padEnd(labelWidth);
      lines.push(`  ${floorTag}  ${row.floor.measured ? criBreakdown(row.floor.measured.criCalls, row.floor.spec.pods) : `error: ${row.floor.error}`}`);
    }
    if (row.run.start) lines.push(`  ${`${row.label} ${runTag(row.run)}`.padEnd(labelWidth)}  ${criBreakdown(row.run.start.criCalls, row.run.spec.pods)}`);
  }
  const threadRows = rows.filter((r) => r.run.start);
  if (threadRows.length > 0) lines.push('', 'shardlet CPU per pod start by thread after the first pod seen (each thread measures itself), and start-up CPU:');
  for (const row of threadRows) {
    const tag = `${row.label} ${runTag(row.run)}`.padEnd(labelWidth);
    lines.push(`  ${tag}  ${threadCpuLine(row.run.start!.threadCpuPerPod)}`, `  ${' '.repeat(labelWidth)}  start-up ${startupLine(row.run.start!.startup)}`);
  }
  const apiRows = rows.filter((r) => r.run.start?.apiPodsRunning !== undefined);
  if (apiRows.length > 0) lines.push('', 'API writes until all Running, and pods the API server showed Running then:');
  for (const row of apiRows) {
    const start = row.run.start!;
    const writes = Object.entries(start.apiWrites).map(([key, count]) => `${key} ${count}`).join(', ') || 'none';
    lines.push(`  ${`${row.label} ${runTag(row.run)}`.padEnd(labelWidth)}  ${start.apiPodsRunning}/${row.run.spec.pods} Running; ${writes}`);
  }
  return lines;
}

const STEADY_COLUMNS: Column<{ label: string; run: RunResult }>[] = [
  { header: ['', 'scenario'], cell: (r) => r.label, alignLeft: true },
  { header: ['', 'source'], cell: (r) => r.run.spec.source, alignLeft: true },
  { header: ['running', 'pods'], cell: (r) => String(r.run.spec.pods) },
  { header: ['', 'wk'], cell: (r) => String(r.run.spec.workers) },
  { header: ['window', 's'], cell: (r) => fixed(r.run.steady?.windowSeconds, 1) },
  { header: ['CPU', '% core'], cell: (r) => fixed(r.run.steady?.cpuPercentOfCore, 2) },
  { header: ['CPU', 'ms/s'], cell: (r) => fixed(r.run.steady && (r.run.steady.cpuSeconds * 1000) / r.run.steady.windowSeconds, 1) },
  { header: ['RSS', 'MiB'], cell: (r) => fixed(r.run.steady?.rssMiB, 0) },
  { header: ['peak RSS', 'MiB'], cell: (r) => fixed(r.run.steady?.peakRssMiB, 0) },
  { header: ['CRI', 'calls/s'], cell: (r) => fixed(r.run.steady?.criCalls && sumOf(r.run.steady.criCalls) / r.run.steady.windowSeconds, 2) },
  { header: ['API', 'writes/s'], cell: (r) => fixed(r.run.steady && sumOf(r.run.steady.apiWrites) / r.run.steady.windowSeconds, 2) },
];

function renderSteadyTable(scenario: ScenarioPlan, runsById: Map<string, RunResult>): string[] {
  const rows = scenario.rows.map((row) => ({ label: row.label, run: runsById.get(row.runId)! }));
  const lines = [scenario.title, '', ...renderTable(STEADY_COLUMNS, rows)];
  for (const row of rows.filter((r) => r.run.error)) lines.push(`  ${row.label} ${runTag(row.run)}: ${row.run.error}`);
  lines.push('', 'CRI calls per second:');
  for (const row of rows) {
    if (row.run.steady) lines.push(`  ${row.label} ${runTag(row.run)}  ${criBreakdown(row.run.steady.criCalls, row.run.steady.windowSeconds)}`);
  }
  const threads = rows.filter((row) => row.run.steady?.threadCpuPercent);
  if (threads.length > 0) lines.push('', 'CPU by thread, % of a core:');
  for (const row of threads) {
    const { main, shards, pleg } = row.run.steady!.threadCpuPercent!;
    lines.push(`  ${row.label} ${runTag(row.run)}  main ${main.toFixed(2)}  shards ${shards.toFixed(2)}  pleg ${pleg.toFixed(2)}`);
  }
  const probed = rows.filter((row) => row.run.steady?.probes);
  if (probed.length > 0) lines.push('', 'Probes (each timed in its shard, start to result):');
  for (const row of probed) {
    const { perSecond, latency, sampled } = row.run.steady!.probes!;
    lines.push(
      `  ${row.label} ${runTag(row.run)}  ${perSecond.toFixed(1)} probes/s; latency p50 ${latency.p50Ms.toFixed(1)} p99 ${latency.p99Ms.toFixed(1)} max ${latency.maxMs.toFixed(1)} ms (${sampled} probes)`,
    );
  }
  return lines;
}

type ChurnRow = { label: string; run: RunResult };
const churnOf = (r: ChurnRow) => r.run.churn;

const CHURN_COLUMNS: Column<ChurnRow>[] = [
  { header: ['', 'scenario'], cell: (r) => r.label, alignLeft: true },
  { header: ['', 'source'], cell: (r) => r.run.spec.source, alignLeft: true },
  { header: ['', 'pods'], cell: (r) => String(r.run.spec.pods) },
  { header: ['', 'wk'], cell: (r) => String(r.run.spec.workers) },
  { header: ['churn', 's'], cell: (r) => fixed(churnOf(r)?.seconds, 0) },
  { header: ['created', '/deleted'], cell: (r) => (churnOf(r) ? `${churnOf(r)!.created}/${churnOf(r)!.deleted}` : 'error') },
  { header: ['start s', 'p50/p99'], cell: (r) => (churnOf(r) ? `${seconds(churnOf(r)!.latency.p50Ms)}/${seconds(churnOf(r)!.latency.p99Ms)}` : '') },
  { header: ['p99 worst', '/median'], cell: (r) => fixed(churnOf(r)?.p99WorstOverMedian, 2) },
  { header: ['RSS MiB', 'warm→end'], cell: (r) => (churnOf(r) ? `${fixed(churnOf(r)!.rssAfterWarmupMiB, 0)}→${fixed(churnOf(r)!.rssEndMiB, 0)}` : '') },
  { header: ['RSS', 'growth'], cell: (r) => (churnOf(r) ? `${fixed(churnOf(r)!.rssGrowthPercent, 1)} %` : '') },
  { header: ['CPU', '% core'], cell: (r) => fixed(churnOf(r)?.cpuPercentOfCore, 1) },
  { header: ['leaked sb/ctr/', 'podDir/logDir'], cell: (r) => (churnOf(r) ? leakCells(churnOf(r)!) : '') },
  { header: ['not', 'Running'], cell: (r) => fixed(churnOf(r)?.leaks.notRunning, 0) },
];

function leakCells(churn: ChurnMeasurement): string {
  const { sandboxes, containers, podDirs, logDirs } = churn.leaks;
  return [sandboxes, containers, podDirs, logDirs].join('/');
}

/** The soak: a row per run, then per run its p99 per window and CRI calls per pod churned in. */
function renderChurnTable(scenario: ScenarioPlan, runsById: Map<string, RunResult>): string[] {
  const rows = scenario.rows.map((row) => ({ label: row.label, run: runsById.get(row.runId)! }));
  const lines = [scenario.title, '', ...renderTable(CHURN_COLUMNS, rows)];
  for (const row of rows.filter((r) => r.run.error)) lines.push(`  ${row.label} ${runTag(row.run)}: ${row.run.error}`);
  for (const row of rows.filter((r) => r.run.churn)) {
    const churn = row.run.churn!;
    const windows = churn.windows.map((w) => (w.started > 0 ? seconds(w.latency.p99Ms) : '–')).join(' ');
    lines.push(
      '',
      `  ${row.label} ${runTag(row.run)}: start p99 per ${seconds((churn.windows[0].toS - churn.windows[0].fromS) * 1000)} s window (warm-up ${churn.warmupSeconds.toFixed(0)} s): ${windows}`,
      `    ${churn.deletedBeforeRunning} deleted before Running; leak counts read ${churn.settleSeconds.toFixed(0)} s after the churn stopped`,
      `    CRI calls per pod churned in: ${criBreakdown(churn.criCalls, Math.max(churn.created, 1))}`,
      `    memory after warm-up → end: ${memoryPartsLine(churn.memoryParts)}`,
    );
  }
  return lines;
}

/** The RSS growth by isolate: resident MiB, and the live heap in parentheses. */
function memoryPartsLine(parts: ChurnMeasurement['memoryParts']): string {
  if (parts.length === 0) return 'not reported by this shardlet';
  const mib = (value: number) => value.toFixed(1);
  return parts
    .map(({ part, afterWarmupMiB, endMiB, usedAfterWarmupMiB, usedEndMiB }) => {
      const live = usedAfterWarmupMiB === undefined || usedEndMiB === undefined ? '' : ` (live ${mib(usedAfterWarmupMiB)}→${mib(usedEndMiB)})`;
      return `${part} ${mib(afterWarmupMiB)}→${mib(endMiB)}${live}`;
    })
    .join(', ');
}

/** Every scenario's table, in the order asked for. */
export function renderTables(plan: BenchPlan, runsById: Map<string, RunResult>, floorsById: Map<string, FloorResult>): string {
  const render = (scenario: ScenarioPlan): string[] => {
    if (scenario.kind === 'steady') return renderSteadyTable(scenario, runsById);
    if (scenario.kind === 'churn') return renderChurnTable(scenario, runsById);
    if (scenario.kind === 'scale') return renderScaleTable(scenario, runsById, floorsById);
    return renderStartTable(scenario, runsById, floorsById);
  };
  const blocks = plan.scenarios.map((scenario) => render(scenario).join('\n'));
  return `${blocks.join('\n\n')}\n\n${criLegend()}\n`;
}
