// What every bench table shares: the column layout, number formats and the CRI
// call breakdown with its legend. Fits 120 columns.
import type { CriCallsByMethod } from './bench-runtime.js';
import type { RunResult } from './results.js';
import { sumOf, type LatencySummary } from './stats.js';

/** Short names for the CRI breakdown, in the order a pod start makes the calls. */
const CRI_ABBREVIATIONS: ReadonlyArray<[string, string]> = [
  ['RunPodSandbox', 'Run'],
  ['ImageStatus', 'ImgSt'],
  ['PullImage', 'Pull'],
  ['CreateContainer', 'Cre'],
  ['StartContainer', 'Sta'],
  ['ContainerStatus', 'CS'],
  ['PodSandboxStatus', 'PSS'],
  ['ListPodSandbox', 'LPS'],
  ['ListContainers', 'LC'],
  ['ListImages', 'LI'],
  ['ImageFsInfo', 'IFs'],
  ['StopContainer', 'StopC'],
  ['StopPodSandbox', 'StopP'],
  ['RemoveContainer', 'RmC'],
  ['RemovePodSandbox', 'RmP'],
  ['RemoveImage', 'RmI'],
  ['Version', 'Ver'],
  ['Status', 'St'],
  ['UpdateRuntimeConfig', 'URC'],
  ['UpdateContainerResources', 'UCR'],
  ['ExecSync', 'Exec'],
  ['GetContainerEvents', 'Ev'],
];

const LINE_WIDTH = 120;

/** The abbreviations, wrapped to the line width. */
export function criLegend(): string {
  const lines = ['CRI calls:'];
  for (const entry of CRI_ABBREVIATIONS.map(([method, short]) => `${short}=${method}`)) {
    if (lines[lines.length - 1].length + entry.length + 1 > LINE_WIDTH) lines.push(' ');
    lines[lines.length - 1] += ` ${entry}`;
  }
  return lines.join('\n');
}

export interface Column<T> {
  /** Two header lines, so that columns stay narrow. */
  header: [string, string];
  cell: (row: T) => string;
  alignLeft?: boolean;
}

export function renderTable<T>(columns: Column<T>[], rows: T[]): string[] {
  const cells = rows.map((row) => columns.map((column) => column.cell(row)));
  const widths = columns.map((column, i) => Math.max(...column.header.map((h) => h.length), ...cells.map((row) => row[i].length)));
  const line = (values: string[]) =>
    values
      .map((value, i) => (columns[i].alignLeft ? value.padEnd(widths[i]) : value.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header[0])), line(columns.map((c) => c.header[1])), ...cells.map(line)];
}

export function seconds(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '–';
  return (ms / 1000).toFixed(ms < 10_000 ? 2 : 1);
}

export function triple(summary: LatencySummary): string {
  return [summary.p50Ms, summary.p90Ms, summary.p99Ms].map(seconds).join('/');
}

export function fixed(value: number | undefined, digits: number): string {
  return value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
}

export function ratio(value: number | undefined, floor: number | undefined): string {
  return value === undefined || floor === undefined ? '–' : (value / floor).toFixed(2);
}

/** "total 14.2: Run 1.00 ImgSt 1.33 …" per pod, or per second for steady windows; n/a when nobody counted. */
export function criBreakdown(calls: CriCallsByMethod | undefined, divisor: number): string {
  if (!calls) return 'n/a (neither the runtime nor this shardlet counts CRI calls)';
  const known = new Map(CRI_ABBREVIATIONS);
  const parts = Object.entries(calls)
    .filter(([, count]) => (count ?? 0) > 0)
    .sort(([a], [b]) => order(a) - order(b))
    .map(([method, count]) => `${known.get(method) ?? method} ${per(count!, divisor)}`);
  return `total ${per(sumOf(calls), divisor)}: ${parts.join(' ')}`;
}

function order(method: string): number {
  const index = CRI_ABBREVIATIONS.findIndex(([name]) => name === method);
  return index < 0 ? CRI_ABBREVIATIONS.length : index;
}

function per(count: number, divisor: number): string {
  const value = count / divisor;
  return value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

export function runTag(run: RunResult): string {
  return `${run.spec.source} wk ${run.spec.workers}`;
}
