// What the bench plans: the runs, their floors, the scenarios' rows, and the
// catalog's rows as its builders make them (scenarios.ts) before the plan (plan.ts).
import type { PersonalityName } from '../src/simruntime/personality.js';
import type { SimProfileName } from '../src/simruntime/profiles.js';
import type { SourceKind } from './options.js';
import type { ScenarioName } from './scenario-names.js';

/** The runtime a run talks to: a simulated one with a latency profile, or the project's containerd. */
export type RuntimeProfile = SimProfileName | 'containerd';

export interface ImageSet {
  /** Short name for run ids. */
  name: string;
  /** For titles: "25 images of 50–500 MB". */
  description: string;
  images: string[];
  /** Size of each image in the simulated registry (containerd has its own). */
  sizesBytes: Record<string, number>;
}

/** After the start: `perSecond` pods created and as many deleted each second, for `seconds`. */
export interface ChurnSpec {
  seconds: number;
  perSecond: number;
}

/** The readiness probes of the probes scenario's pods. */
export type ProbeMode = 'none' | 'http' | 'http+exec';

/** serializeImagePulls, or a maxParallelImagePulls limit. */
export type ImagePulls = { serialize: true } | { serialize: false; maxParallel: number };

export interface FloorSpec {
  id: string;
  profile: RuntimeProfile;
  pods: number;
  imageSet: ImageSet;
  imagePulls: ImagePulls;
}

export interface RunSpec extends Omit<FloorSpec, 'id'> {
  /** Identifies the run across scenarios. */
  id: string;
  floorId: string;
  source: SourceKind;
  workers: number;
  /** Seconds to keep shardlet running after all pods are Running, measuring; 0 for none. */
  steadySeconds: number;
  /** Pod churn after the start (and the steady window), when set. */
  churn?: ChurnSpec;
  /**
   * The probes scenario: each pod's readiness probe (none: the same run without
   * probes, for comparison; http+exec: every other pod by exec).
   */
  probes?: { readiness: ProbeMode; periodSeconds: number };
  /** False: the simulated runtime has no container events (UNIMPLEMENTED, as containerd 1.6). */
  containerEvents?: boolean;
  /** The simulated runtime's personality (src/simruntime/personality.ts); its default without. */
  simPersonality?: PersonalityName;
  /** shardlet's --runtime-creation-limit for this run (--creation-limit); shardlet's default without. */
  creationLimit?: string;
  /** The 2nd, 3rd, … run of a repeated row (the scale scenario); absent for the first, which other scenarios may share. */
  repetition?: number;
}

export interface ScenarioRow {
  /** The table's scenario column, e.g. density-500 or pulls parallel-5. */
  label: string;
  runId: string;
  /** Every run of a repeated row, runId first; absent when the row is run once. */
  runIds?: string[];
}

export interface ScenarioPlan {
  name: ScenarioName;
  /** Printed above the table: what the runs do. */
  title: string;
  /**
   * Start-up tables report pod start; scale the same for rows run several times, by
   * median and spread; steady reports the running node; churn the soak under pod churn.
   */
  kind: 'start' | 'scale' | 'steady' | 'churn';
  rows: ScenarioRow[];
}

export interface BenchPlan {
  scenarios: ScenarioPlan[];
  /** Every distinct run once, each after its floor. */
  runs: RunSpec[];
  floors: FloorSpec[];
}

export type BuiltRow = ScenarioRow & { run: RunSpec };
/** A scenario as its builder makes it: each row with its run, and how often the plan runs each row (once without). */
export type BuiltScenario = Omit<ScenarioPlan, 'rows'> & { rows: BuiltRow[]; repeats?: number };
