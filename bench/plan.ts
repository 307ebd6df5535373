// The plan: the scenarios asked for, each distinct run once (a run that two
// scenarios share, such as density-500 static --workers 2 in density, sweep and
// steady, is measured once and shown in each table), grouped right after the floor
// it is compared with; the rows of a repeated scenario once per repetition.
import type { BenchOptions } from './options.js';
import { buildScenario, type BenchPlan, type BuiltRow, type BuiltScenario, type FloorSpec, type RunSpec } from './scenarios.js';

type PlannedRow = BuiltRow & { repetitions: RunSpec[] };

/** The scenarios asked for, and each distinct run once, grouped after its floor. */
export function planBench(options: BenchOptions, containerdImage?: string): BenchPlan {
  const built = options.scenarios.map((name) => withRepetitions(withCreationLimits(buildScenario(name, options, containerdImage), options.creationLimits)));
  const runsById = new Map<string, RunSpec>();
  const floorsById = new Map<string, FloorSpec>();
  for (const run of runsInOrder(built.map((scenario) => scenario.rows))) {
    const known = runsById.get(run.id);
    if (known) {
      known.steadySeconds = Math.max(known.steadySeconds, run.steadySeconds);
      known.churn ??= run.churn;
    } else {
      runsById.set(run.id, {
        ...run,
        ...(options.containerEvents === false ? { containerEvents: false } : {}),
        ...(options.simPersonality && run.profile !== 'containerd' ? { simPersonality: options.simPersonality } : {}),
      });
    }
    if (!floorsById.has(run.floorId)) {
      floorsById.set(run.floorId, { id: run.floorId, profile: run.profile, pods: run.pods, imageSet: run.imageSet, imagePulls: run.imagePulls });
    }
  }
  const runs = [...floorsById.keys()].flatMap((floorId) => [...runsById.values()].filter((run) => run.floorId === floorId));
  const scenarios = built.map(({ rows, repeats: _repeats, ...scenario }) => ({
    ...scenario,
    rows: rows.map(({ label, runId, repetitions }) => ({ label, runId, ...(repetitions.length > 1 ? { runIds: repetitions.map((run) => run.id) } : {}) })),
  }));
  return { scenarios, runs, floors: [...floorsById.values()] };
}

/**
 * A scenario's first repetitions, then its second ones, …: the repetitions of one row
 * are spread over the row's floor group instead of back to back, so a burst of other
 * load on the shared machine lands on different rows' runs rather than one row's all.
 */
function runsInOrder(scenarios: PlannedRow[][]): RunSpec[] {
  return scenarios.flatMap((rows) => {
    const most = Math.max(0, ...rows.map((row) => row.repetitions.length));
    return Array.from({ length: most }, (_, i) => rows.flatMap((row) => row.repetitions[i] ?? [])).flat();
  });
}

/** Each row's run `repeats` times: the first keeps its id (other scenarios may share it), the others get `:rep<n>`. */
function withRepetitions(scenario: BuiltScenario): Omit<BuiltScenario, 'rows'> & { rows: PlannedRow[] } {
  const repeats = scenario.repeats ?? 1;
  const rows = scenario.rows.map((row) => ({
    ...row,
    repetitions: Array.from({ length: repeats }, (_, i) => (i === 0 ? row.run : { ...row.run, id: `${row.run.id}:rep${i + 1}`, repetition: i + 1 })),
  }));
  return { ...scenario, rows };
}

/**
 * Each row once per --creation-limit value, next to each other and against the
 * same floor, so that the guard off and on are compared in one run.
 */
function withCreationLimits(scenario: BuiltScenario, creationLimits: string[] | undefined): BuiltScenario {
  if (!creationLimits) return scenario;
  const rows = scenario.rows.flatMap((row) =>
    creationLimits.map((creationLimit) => ({
      label: `${row.label} limit ${creationLimit}`,
      runId: `${row.runId}:limit-${creationLimit}`,
      run: { ...row.run, id: `${row.run.id}:limit-${creationLimit}`, creationLimit },
    })),
  );
  return { ...scenario, rows };
}
