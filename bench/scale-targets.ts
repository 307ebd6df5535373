// Issue 22's targets (2,500 pods on one node), judged on this invocation's figures:
// a repeated row by its median, with the spread beside it. Reported, never enforced.
import type { CriCallsByMethod } from './bench-runtime.js';
import type { RunResult } from './results.js';
import { SCALE_TARGET_PODS, SCALE_WORKERS, TARGET_PODS, type RunSpec, type ScenarioName } from './scenarios.js';
import { formatSpread, spreadOf, type Spread } from './spread.js';
import { sumOf } from './stats.js';
import { rowsWithRuns, scenarioRan, type TargetCheck, type TargetInputs } from './target-check.js';

export const SCALE_TARGETS_GROUP = 'issue 22: 2,500 pods on one node';
const MAX_FLOOR_RATIO = 2.0;
const MAX_PEAK_RSS_MIB = 700;
const STEADY_MAX_PERCENT_OF_CORE_BY_PODS: ReadonlyArray<[pods: number, maxPercent: number]> = [
  [SCALE_TARGET_PODS, 8],
  [TARGET_PODS, 3],
];
const KUBELET_BOUND_MAX_CPU_MS_PER_POD = 4;
const KUBELET_BOUND_MAX_CRI_CALLS_PER_POD = 6;
const CONTAINERD_TARGET_PODS = 250;
const CONTAINERD_MAX_FLOOR_RATIO = 1.05;
/** The steady targets name the methods making most of the calls. */
const STEADY_METHODS_SHOWN = 3;

export function scaleTargets(inputs: TargetInputs): TargetCheck[] {
  return [...scaleStart(inputs), ...steady(inputs), ...kubeletBound(inputs), ...containerd(inputs)];
}

/** The runs (every repetition) of the first row of `scenario` whose run matches. */
function rowRuns(inputs: TargetInputs, scenario: ScenarioName, matches: (spec: RunSpec) => boolean): RunResult[] | undefined {
  return rowsWithRuns(inputs, scenario).find(({ runs }) => runs.length > 0 && matches(runs[0].spec))?.runs;
}

const isTargetRun = (pods: number) => (spec: RunSpec) => spec.pods === pods && spec.profile === 'instant' && spec.source === 'static' && spec.workers === SCALE_WORKERS;

function describe(runs: RunResult[]): string {
  const { spec } = runs[0];
  const measured = runs.filter((run) => run.start).length;
  const repeated = runs.length > 1 ? `, median of ${measured} run${measured === 1 ? '' : 's'}${measured < runs.length ? ` (${runs.length - measured} failed)` : ''}` : '';
  return `${spec.pods} pods ${spec.profile} ${spec.source} --workers ${spec.workers}${repeated}`;
}

interface Judged {
  what: string;
  figure: Spread | undefined;
  limit: number;
  unit: string;
  digits: number;
  runs: RunResult[];
  /** The limit as printed, when it is more than a number (another figure). */
  limitText?: string;
}

/** met / not met on the median; not measured when no run gave the figure. */
function judge({ what, figure, limit, unit, digits, runs, limitText }: Judged): TargetCheck {
  const runIds = runs.map((run) => run.spec.id);
  const bound = limitText ?? `≤ ${limit}${unit === '×' ? ' ×' : ` ${unit}`}`;
  if (!figure) return { status: 'not measured', text: `${what}: no figure (${runs.find((run) => run.error)?.error ?? 'not reported'}; ${bound})`, group: SCALE_TARGETS_GROUP, limit, unit, runIds };
  return {
    status: figure.median <= limit ? 'met' : 'not met',
    text: `${what}: ${formatSpread(figure, digits)}${unit === '×' ? ' ×' : ` ${unit}`} (${bound})`,
    group: SCALE_TARGETS_GROUP,
    figure: figure.median,
    limit,
    unit,
    runIds,
  };
}

function notRun(text: string): TargetCheck {
  return { status: 'not run', text, group: SCALE_TARGETS_GROUP };
}

/** 2,500 pods instant static --workers 2: the floor ratio, the main thread's cost per pod against 500's, peak RSS. */
function scaleStart(inputs: TargetInputs): TargetCheck[] {
  const target = `scale ${SCALE_TARGET_PODS} pods instant static --workers ${SCALE_WORKERS}`;
  const runs = rowRuns(inputs, 'scale', isTargetRun(SCALE_TARGET_PODS));
  if (!runs) {
    return [
      notRun(`${target}: all Running / floor (≤ ${MAX_FLOOR_RATIO} ×; npm run bench -- --scenarios scale)`),
      notRun(`${target}: main-thread ms per pod ≤ its value at ${TARGET_PODS} pods`),
      notRun(`${target}: peak RSS (≤ ${MAX_PEAK_RSS_MIB} MiB)`),
    ];
  }
  const floorRatio = (run: RunResult) => {
    const floor = inputs.floorsById.get(run.spec.floorId)?.measured;
    return run.start && floor ? run.start.allRunningMs / floor.allRunningMs : undefined;
  };
  const where = `scale ${describe(runs)}`;
  return [
    judge({ what: `${where}: all Running / floor`, figure: spreadOf(runs.map(floorRatio)), limit: MAX_FLOOR_RATIO, unit: '×', digits: 2, runs }),
    mainThreadAgainstReference(inputs, runs),
    judge({ what: `${where}: peak RSS`, figure: spreadOf(runs.map((run) => run.start?.peakRssMiB)), limit: MAX_PEAK_RSS_MIB, unit: 'MiB', digits: 0, runs }),
  ];
}

const mainMsPerPod = (runs: RunResult[]) => spreadOf(runs.map((run) => run.start?.threadCpuPerPod?.mainMs));

/** The 500-pod figure from the scale scenario's reference row, else kubelet-bound's or the sweep's run of the same kind. */
function mainThreadAgainstReference(inputs: TargetInputs, runs: RunResult[]): TargetCheck {
  const scenarios: ScenarioName[] = ['scale', 'kubelet-bound', 'sweep'];
  const referenceRuns = scenarios.map((scenario) => rowRuns(inputs, scenario, isTargetRun(TARGET_PODS))).find((found) => found !== undefined);
  const what = `scale ${describe(runs)}: main-thread ms per pod (after the first pod seen)`;
  const reference = referenceRuns && mainMsPerPod(referenceRuns);
  if (!referenceRuns) return notRun(`${what}: no ${TARGET_PODS}-pod instant static --workers ${SCALE_WORKERS} run to compare with`);
  if (!reference) return { status: 'not measured', text: `${what}: the ${TARGET_PODS}-pod run gave no main-thread figure`, group: SCALE_TARGETS_GROUP };
  return judge({
    what,
    figure: mainMsPerPod(runs),
    limit: reference.median,
    unit: 'ms',
    digits: 2,
    runs: [...runs, ...referenceRuns],
    limitText: `≤ ${formatSpread(reference, 2)} ms at ${describe(referenceRuns)}`,
  });
}

function steady(inputs: TargetInputs): TargetCheck[] {
  const rows = rowsWithRuns(inputs, 'steady');
  return STEADY_MAX_PERCENT_OF_CORE_BY_PODS.flatMap(([pods, maxPercent]) => {
    const found = rows.filter(({ runs }) => runs[0]?.spec.pods === pods);
    if (found.length === 0) return [notRun(`steady state, ${pods} running pods (≤ ${maxPercent} % of a core; scenario steady${scenarioRan(inputs, 'steady') ? ` with ${pods} pods` : ''})`)];
    return found.map(({ runs }) => {
      const check = judge({
        what: `steady ${describe(runs)}`,
        figure: spreadOf(runs.map((run) => run.steady?.cpuPercentOfCore)),
        limit: maxPercent,
        unit: '% of a core',
        digits: 2,
        runs,
      });
      const window = runs[0].steady;
      return window?.criCalls ? { ...check, text: `${check.text}; ${topCallRates(window.criCalls, window.windowSeconds)}` } : check;
    });
  });
}

/** "CRI 97.1 calls/s: ContainerStatus 70.2, ListContainers 6.8, …" */
export function topCallRates(calls: CriCallsByMethod, windowSeconds: number): string {
  const rate = (count: number) => (count / windowSeconds).toFixed(1);
  const top = Object.entries(calls)
    .filter((entry): entry is [string, number] => (entry[1] ?? 0) > 0)
    .sort(([, a], [, b]) => b - a)
    .slice(0, STEADY_METHODS_SHOWN)
    .map(([method, count]) => `${method} ${rate(count)}`);
  return `CRI ${rate(sumOf(calls))} calls/s${top.length > 0 ? `: ${top.join(', ')}` : ''}`;
}

/** Kubelet-bound 500, static, each --workers value: CPU per pod start (after the first pod seen) and CRI calls per pod. */
function kubeletBound(inputs: TargetInputs): TargetCheck[] {
  const rows = rowsWithRuns(inputs, 'kubelet-bound').filter(({ runs }) => runs[0]?.spec.pods === TARGET_PODS && runs[0].spec.source === 'static');
  if (rows.length === 0) {
    return [
      notRun(`kubelet-bound ${TARGET_PODS} pods static: shardlet CPU per pod start (≤ ${KUBELET_BOUND_MAX_CPU_MS_PER_POD} ms)`),
      notRun(`kubelet-bound ${TARGET_PODS} pods static: CRI calls per pod (≤ ${KUBELET_BOUND_MAX_CRI_CALLS_PER_POD})`),
    ];
  }
  return rows.flatMap(({ runs }) => {
    const where = `kubelet-bound ${describe(runs)}`;
    const callsPerPod = (run: RunResult) => (run.start?.criCalls ? sumOf(run.start.criCalls) / run.spec.pods : undefined);
    return [
      judge({
        what: `${where}: shardlet CPU per pod start (after the first pod seen)`,
        figure: spreadOf(runs.map((run) => run.start?.cpuMsPerPod)),
        limit: KUBELET_BOUND_MAX_CPU_MS_PER_POD,
        unit: 'ms',
        digits: 2,
        runs,
      }),
      judge({ what: `${where}: CRI calls per pod`, figure: spreadOf(runs.map(callsPerPod)), limit: KUBELET_BOUND_MAX_CRI_CALLS_PER_POD, unit: 'calls', digits: 2, runs }),
    ];
  });
}

function containerd(inputs: TargetInputs): TargetCheck[] {
  const rows = rowsWithRuns(inputs, 'containerd').filter(({ runs }) => runs[0]?.spec.pods === CONTAINERD_TARGET_PODS);
  if (rows.length === 0) {
    return [notRun(`containerd ${CONTAINERD_TARGET_PODS} pods: all Running / bare client in the same run (≤ ${CONTAINERD_MAX_FLOOR_RATIO} ×; npm run bench -- --runtime containerd)`)];
  }
  return rows.map(({ runs }) => {
    const ratio = (run: RunResult) => {
      const floor = inputs.floorsById.get(run.spec.floorId)?.measured;
      return run.start && floor ? run.start.allRunningMs / floor.allRunningMs : undefined;
    };
    return judge({ what: `containerd ${describe(runs)}: all Running / bare client`, figure: spreadOf(runs.map(ratio)), limit: CONTAINERD_MAX_FLOOR_RATIO, unit: '×', digits: 2, runs });
  });
}
