// What a target's judgement holds, and the inputs every target reads: this
// invocation's plan and figures. A target whose scenario did not run is "not run",
// never met; one whose run failed or lacks the figure is "not measured".
import type { FloorResult, RunResult } from './results.js';
import type { BenchPlan, ScenarioName, ScenarioRow } from './scenarios.js';

export type TargetStatus = 'met' | 'not met' | 'not run' | 'not measured' | 'reported';

export interface TargetCheck {
  status: TargetStatus;
  /** What was judged, with the figures and the run they came from. */
  text: string;
  /** The set of targets it belongs to, printed as a heading: the issue that set it. */
  group: string;
  /** The figure judged (a median for a repeated row) and its limit, in `unit`; absent when there is none. */
  figure?: number;
  limit?: number;
  unit?: string;
  /** The runs the figure came from (their spec.id in results.json). */
  runIds?: string[];
}

export interface TargetInputs {
  plan: BenchPlan;
  runsById: Map<string, RunResult>;
  floorsById: Map<string, FloorResult>;
}

/** A scenario's rows with their runs (every repetition), in table order; empty when the scenario did not run. */
export function rowsWithRuns({ plan, runsById }: TargetInputs, scenario: ScenarioName): Array<{ row: ScenarioRow; runs: RunResult[] }> {
  const rows = plan.scenarios.find((s) => s.name === scenario)?.rows ?? [];
  return rows.map((row) => ({ row, runs: (row.runIds ?? [row.runId]).map((id) => runsById.get(id)).filter((run): run is RunResult => run !== undefined) }));
}

export function scenarioRan({ plan }: TargetInputs, scenario: ScenarioName): boolean {
  return plan.scenarios.some((s) => s.name === scenario);
}
