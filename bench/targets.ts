// The targets for a 2-core machine (the density bench's, tightened by issue 13's
// "make the sharded design pay"; issue 22's in scale-targets.ts), judged on this
// invocation's figures. The bench reports them; a missed target never makes it fail.
import type { RunResult } from './results.js';
import { scaleTargets } from './scale-targets.js';
import type { ScenarioName } from './scenarios.js';
import type { TargetCheck, TargetInputs } from './target-check.js';

export type { TargetCheck, TargetStatus } from './target-check.js';

const DENSITY_TARGETS_GROUP = 'density bench (issue 13)';

const TARGET_PODS = 500;
const CONTAINERD_TARGET_PODS = 250;
/** All Running with shard threads (--workers 2): what sharding must reach. */
const KUBELET_BOUND_SHARDED_WORKERS = 2;
const KUBELET_BOUND_MAX_ALL_RUNNING_MS = 1_500;
const KUBELET_BOUND_MAX_CPU_MS_PER_POD = 1.5;
/** The main thread's CPU per pod start: 0.3 ms is a ceiling of 3,000 pods/s on a node with cores to spare. */
const KUBELET_BOUND_MAX_MAIN_THREAD_MS_PER_POD = 0.3;
/** Pods/s at --workers 2 over --workers 0 on the kubelet-bound run. */
const MIN_SHARDED_SPEEDUP = 1.3;
const KUBELET_BOUND_MAX_PEAK_RSS_MIB = 200;
const ARM_MAX_FLOOR_RATIO = 1.1;
const ARM_MAX_P99_EXCLUDING_PULLS_MS = 5_000;
const STEADY_MAX_PERCENT_OF_CORE = 2;
const CONTAINERD_MAX_FLOOR_RATIO = 1.0;
const CHURN_MAX_RSS_GROWTH_PERCENT = 10;
/** "p99 stable": no window after warm-up more than half again as slow as the median window. */
const CHURN_MAX_P99_WORST_OVER_MEDIAN = 1.5;

type Inputs = TargetInputs;

/** Runs of a scenario with `pods` pods that measured their start, in table order. */
function runsOf({ plan, runsById }: Inputs, scenario: ScenarioName, pods: number): RunResult[] {
  const rows = plan.scenarios.find((s) => s.name === scenario)?.rows ?? [];
  return rows.map((row) => runsById.get(row.runId)!).filter((run) => run.spec.pods === pods && run.start);
}

function judge(met: boolean, text: string): TargetCheck {
  return { status: met ? 'met' : 'not met', text, group: DENSITY_TARGETS_GROUP };
}

/** The scenario a target needs was not part of this invocation. */
function notRun(text: string): TargetCheck {
  return { status: 'not run', text, group: DENSITY_TARGETS_GROUP };
}

function notMeasured(text: string): TargetCheck {
  return { status: 'not measured', text, group: DENSITY_TARGETS_GROUP };
}

function tag(run: RunResult): string {
  return `${run.spec.pods} pods ${run.spec.source}, --workers ${run.spec.workers}`;
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export function checkTargets(inputs: Inputs): TargetCheck[] {
  const density = [...kubeletBound(inputs), ...workersRatio(inputs), ...armProfile(inputs), ...steady(inputs), ...churn(inputs), ...containerd(inputs)];
  return [...density, ...scaleTargets(inputs)];
}

function kubeletBound(inputs: Inputs): TargetCheck[] {
  const runs = runsOf(inputs, 'kubelet-bound', TARGET_PODS).filter((run) => run.spec.source === 'static');
  if (runs.length === 0) return [notRun(`kubelet-bound ${TARGET_PODS} pods static (scenario kubelet-bound)`)];
  return runs.flatMap((run) => {
    const start = run.start!;
    const main = start.threadCpuPerPod?.mainMs;
    return [
      ...(run.spec.workers === KUBELET_BOUND_SHARDED_WORKERS
        ? [judge(start.allRunningMs <= KUBELET_BOUND_MAX_ALL_RUNNING_MS, `kubelet-bound ${tag(run)}: all Running ${s(start.allRunningMs)} (≤ ${s(KUBELET_BOUND_MAX_ALL_RUNNING_MS)})`)]
        : []),
      judge(start.cpuMsPerPod <= KUBELET_BOUND_MAX_CPU_MS_PER_POD, `kubelet-bound ${tag(run)}: shardlet CPU ${start.cpuMsPerPod.toFixed(2)} ms per pod start (≤ ${KUBELET_BOUND_MAX_CPU_MS_PER_POD} ms)`),
      main === undefined
        ? notMeasured(`kubelet-bound ${tag(run)}: main-thread CPU per pod start (shardlet reported no thread figures)`)
        : judge(
            main <= KUBELET_BOUND_MAX_MAIN_THREAD_MS_PER_POD,
            `kubelet-bound ${tag(run)}: main thread ${main.toFixed(2)} ms per pod start, a ceiling of ${start.threadCpuPerPod!.ceilingPodsPerSecond.toFixed(0)} pods/s (≤ ${KUBELET_BOUND_MAX_MAIN_THREAD_MS_PER_POD} ms)`,
          ),
      judge(start.peakRssMiB <= KUBELET_BOUND_MAX_PEAK_RSS_MIB, `kubelet-bound ${tag(run)}: peak RSS ${start.peakRssMiB.toFixed(0)} MiB (≤ ${KUBELET_BOUND_MAX_PEAK_RSS_MIB} MiB)`),
    ];
  });
}

/** Every arm-profile run with 500 pods, density and the --workers sweep alike: the floor ratio must hold at every --workers. */
function armProfile(inputs: Inputs): TargetCheck[] {
  const runs = [...runsOf(inputs, 'density', TARGET_PODS), ...runsOf(inputs, 'sweep', TARGET_PODS)].filter((run) => run.spec.profile === 'arm');
  if (runs.length === 0) return [notRun(`arm profile ${TARGET_PODS} pods (scenario density, profile arm)`)];
  return runs.flatMap((run) => {
    const start = run.start!;
    const floor = inputs.floorsById.get(run.spec.floorId)?.measured;
    const p99 = start.latencyExcludingPulls.p99Ms;
    const p99Check = judge(p99 <= ARM_MAX_P99_EXCLUDING_PULLS_MS, `arm ${tag(run)}: p99 start latency excluding pulls ${s(p99)} (≤ ${s(ARM_MAX_P99_EXCLUDING_PULLS_MS)})`);
    if (!floor) return [notMeasured(`arm ${tag(run)}: all Running against the floor (the floor failed)`), p99Check];
    const ratio = start.allRunningMs / floor.allRunningMs;
    return [
      judge(ratio <= ARM_MAX_FLOOR_RATIO, `arm ${tag(run)}: all Running ${s(start.allRunningMs)} = ${ratio.toFixed(2)} × floor ${s(floor.allRunningMs)} (≤ ${ARM_MAX_FLOOR_RATIO} ×)`),
      p99Check,
    ];
  });
}

function steady(inputs: Inputs): TargetCheck[] {
  const runs = runsOf(inputs, 'steady', TARGET_PODS).filter((run) => run.steady);
  if (runs.length === 0) return [notRun(`steady state with ${TARGET_PODS} running pods (scenario steady)`)];
  return runs.map((run) => {
    const steadyState = run.steady!;
    return judge(
      steadyState.cpuPercentOfCore <= STEADY_MAX_PERCENT_OF_CORE,
      `steady ${tag(run)}: ${steadyState.cpuPercentOfCore.toFixed(2)} % of one core over ${steadyState.windowSeconds.toFixed(0)} s (≤ ${STEADY_MAX_PERCENT_OF_CORE} %)`,
    );
  });
}

/** The soak: nothing left behind, RSS flat after warm-up, start p99 the same in every window. Any pod count. */
function churn({ plan, runsById }: Inputs): TargetCheck[] {
  const rows = plan.scenarios.find((scenario) => scenario.name === 'churn')?.rows ?? [];
  const runs = rows.map((row) => runsById.get(row.runId)!).filter((run) => run.churn);
  if (runs.length === 0) return [notRun(`churn soak, ${TARGET_PODS} pods (scenario churn)`)];
  return runs.flatMap((run) => {
    const soak = run.churn!;
    const what = `churn ${tag(run)}, ${soak.seconds.toFixed(0)} s at ${soak.perSecond}/s`;
    const { sandboxes, containers, podDirs, logDirs, notRunning } = soak.leaks;
    const leaked = sandboxes + containers + podDirs + logDirs;
    return [
      judge(
        leaked === 0 && notRunning === 0,
        `${what}: leaked ${sandboxes} sandboxes, ${containers} containers, ${podDirs} pod dirs, ${logDirs} log dirs; ${notRunning} wanted pods not Running (all 0)`,
      ),
      judge(
        soak.rssGrowthPercent < CHURN_MAX_RSS_GROWTH_PERCENT,
        `${what}: RSS growth after ${soak.warmupSeconds.toFixed(0)} s warm-up ${soak.rssGrowthPercent.toFixed(1)} % (${soak.rssAfterWarmupMiB.toFixed(0)} → ${soak.rssEndMiB.toFixed(0)} MiB; < ${CHURN_MAX_RSS_GROWTH_PERCENT} %)`,
      ),
      judge(
        soak.p99WorstOverMedian <= CHURN_MAX_P99_WORST_OVER_MEDIAN,
        `${what}: start p99, worst window after warm-up / median window = ${soak.p99WorstOverMedian.toFixed(2)} (≤ ${CHURN_MAX_P99_WORST_OVER_MEDIAN})`,
      ),
    ];
  });
}

function containerd(inputs: Inputs): TargetCheck[] {
  const runs = runsOf(inputs, 'containerd', CONTAINERD_TARGET_PODS);
  if (runs.length === 0) {
    return [notRun(`containerd ${CONTAINERD_TARGET_PODS} pods against the bare client (npm run bench -- --runtime containerd)`)];
  }
  return runs.map((run) => {
    const floor = inputs.floorsById.get(run.spec.floorId)?.measured;
    if (!floor) return notMeasured(`containerd ${tag(run)}: the bare client run failed`);
    const ratio = run.start!.allRunningMs / floor.allRunningMs;
    return judge(
      ratio <= CONTAINERD_MAX_FLOOR_RATIO,
      `containerd ${tag(run)}: all Running ${s(run.start!.allRunningMs)} = ${ratio.toFixed(2)} × bare client ${s(floor.allRunningMs)} (≤ ${CONTAINERD_MAX_FLOOR_RATIO} ×)`,
    );
  });
}

/** What sharding buys when only the kubelet's cost counts: pods/s at --workers 2 over --workers 0, from one scenario's runs. */
function workersRatio(inputs: Inputs): TargetCheck[] {
  return (['kubelet-bound', 'sweep'] as const).flatMap((scenario) => workersRatioOf(inputs, scenario));
}

function workersRatioOf(inputs: Inputs, scenario: 'kubelet-bound' | 'sweep'): TargetCheck[] {
  const runs = runsOf(inputs, scenario, TARGET_PODS).filter((run) => run.spec.profile === 'instant' && run.spec.source === 'static');
  const at = (workers: number) => runs.find((run) => run.spec.workers === workers)?.start;
  const [w0, w2] = [at(0), at(2)];
  if (!w0 || !w2) {
    return scenario === 'kubelet-bound' ? [notRun(`${scenario}: ${TARGET_PODS} pods static on the instant profile at --workers 0 and 2`)] : [];
  }
  const ratio = w2.podsPerSecond / w0.podsPerSecond;
  return [
    judge(
      ratio >= MIN_SHARDED_SPEEDUP,
      `${scenario} ${TARGET_PODS} pods static, instant: pods/s at --workers 2 / --workers 0 = ${ratio.toFixed(2)} (${w2.podsPerSecond.toFixed(0)} / ${w0.podsPerSecond.toFixed(0)}; ≥ ${MIN_SHARDED_SPEEDUP})`,
    ),
  ];
}

/** The targets under a heading per group, in the order the groups first appear. */
export function renderTargets(checks: TargetCheck[]): string {
  const groups = [...new Set(checks.map((check) => check.group))];
  const lines = groups.flatMap((group) => [` ${group}:`, ...checks.filter((check) => check.group === group).map((check) => `  ${check.status.padEnd(12)} ${check.text}`)]);
  return ['targets (2-core machine; reported, never enforced)', ...lines].join('\n');
}
