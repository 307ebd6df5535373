// The bench's command line. A bad flag or value exits non-zero naming it, before
// anything starts.
import { parseArgs } from 'node:util';
import { PERSONALITY_NAMES, type PersonalityName } from '../src/simruntime/personality.js';
import { SIM_PROFILE_NAMES, type SimProfileName } from '../src/simruntime/profiles.js';
import { parseRuntimeCreationLimit } from '../src/shared/runtime-creation/creation-limit-setting.js';
import { CONTAINERD_SCENARIO, SCENARIO_NAMES, SIM_SCENARIO_NAMES, type ScenarioName } from './scenario-names.js';

export type SourceKind = 'static' | 'api';

export interface BenchOptions {
  scenarios: ScenarioName[];
  /** Overrides every selected scenario's pod counts. */
  pods?: number[];
  /** Overrides every selected scenario's --workers values. */
  workers?: number[];
  /** Overrides the profile of the simulated scenarios other than kubelet-bound (always instant). */
  profile?: SimProfileName;
  /** Overrides every selected scenario's sources. */
  sources?: SourceKind[];
  quick: boolean;
  /** Runs of each scale row, for a median and spread (default 3; --quick 2). */
  repeats?: number;
  steadySeconds?: number;
  /** Length of the churn scenario's churn window. */
  churnSeconds?: number;
  /** The probes scenario: half the pods probe by exec (needs ExecSync in the runtime). */
  probesExec?: boolean;
  /** False: the simulated runtime answers GetContainerEvents with UNIMPLEMENTED, as containerd 1.6 (default: it serves events). */
  containerEvents?: boolean;
  /** The simulated runtime answers as this runtime (src/simruntime/personality.ts); its default without. */
  simPersonality?: PersonalityName;
  /**
   * shardlet's --runtime-creation-limit values to run each selected run with
   * (adaptive, off or a number), side by side against the same floor; shardlet's
   * default (adaptive) without.
   */
  creationLimits?: string[];
  /** Where results.json and the plots go; a fresh bench/results/<stamp>/ by default. */
  outDir?: string;
}

export const USAGE = `Usage: npm run bench -- [options]

Runs shardlet against the simulated runtime (or containerd) and prints a table per
scenario, writes results.json and SVG plots. See docs/bench.md.

Options:
  --scenarios LIST      ${SIM_SCENARIO_NAMES.join(',')} (default: all of these),
                        or ${CONTAINERD_SCENARIO}
  --runtime sim|containerd
                        containerd runs the ${CONTAINERD_SCENARIO} scenario (root; scripts/containerd/setup.sh)
  --pods LIST           pod counts, e.g. 250,500 (default per scenario)
  --workers LIST        shardlet --workers values, e.g. 0,2 (default per scenario)
  --profile NAME        simulated runtime profile: ${SIM_PROFILE_NAMES.join('|')} (default arm)
  --source KIND         static|api|both: static pod directory, test API server or both
  --repeats N           runs of each scale row, for its median and spread (default 3; --quick 2)
  --steady-seconds N    length of the steady-state window (default 30)
  --churn-seconds N     length of the churn scenario's churn window (default 600; --quick 20)
  --probes-exec         probes scenario: half the readiness probes exec (ExecSync), half httpGet
  --container-events on|off
                        whether the simulated runtime serves CRI container events
                        (default on, as containerd 1.7+; off answers UNIMPLEMENTED, as 1.6)
  --sim-personality NAME
                        the simulated runtime answers as ${PERSONALITY_NAMES.join(', ')}
                        (src/simruntime/personality.ts; crio without pod events)
  --creation-limit LIST shardlet --runtime-creation-limit values, e.g. off,adaptive: every run
                        once per value, against the same floor (default: shardlet's, adaptive)
  --quick               a small smoke run (20 pods) of the selected scenarios
  --out DIR             directory for results.json and the plots
  -h, --help            this text
`;

export class BenchUsageError extends Error {
  override readonly name = 'BenchUsageError';
}

/** Parses argv (without node and the script); throws BenchUsageError naming the bad flag. */
export function parseBenchOptions(argv: string[]): BenchOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        scenarios: { type: 'string' },
        runtime: { type: 'string' },
        pods: { type: 'string' },
        workers: { type: 'string' },
        profile: { type: 'string' },
        source: { type: 'string' },
        repeats: { type: 'string' },
        'steady-seconds': { type: 'string' },
        'churn-seconds': { type: 'string' },
        quick: { type: 'boolean', default: false },
        'probes-exec': { type: 'boolean', default: false },
        'container-events': { type: 'string' },
        'sim-personality': { type: 'string' },
        'creation-limit': { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    throw new BenchUsageError((err as Error).message);
  }
  if (values.help) return 'help';
  return {
    scenarios: scenarioList(values.scenarios, values.runtime),
    pods: integerList('--pods', values.pods, 1),
    workers: integerList('--workers', values.workers, 0),
    profile: oneOf('--profile', values.profile, SIM_PROFILE_NAMES),
    sources: sourceList(values.source),
    quick: values.quick,
    repeats: positiveInteger('--repeats', values.repeats),
    steadySeconds: positiveNumber('--steady-seconds', values['steady-seconds']),
    churnSeconds: positiveNumber('--churn-seconds', values['churn-seconds']),
    probesExec: values['probes-exec'],
    containerEvents: oneOf('--container-events', values['container-events'], ['on', 'off'] as const) !== 'off',
    simPersonality: oneOf('--sim-personality', values['sim-personality'], PERSONALITY_NAMES),
    creationLimits: creationLimitList(values['creation-limit']),
    outDir: values.out,
  };
}

function scenarioList(text: string | undefined, runtime: string | undefined): ScenarioName[] {
  const chosenRuntime = oneOf('--runtime', runtime, ['sim', 'containerd'] as const) ?? 'sim';
  if (text === undefined) return chosenRuntime === 'containerd' ? [CONTAINERD_SCENARIO] : [...SIM_SCENARIO_NAMES];
  const names = text.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(SCENARIO_NAMES as readonly string[]).includes(name)) {
      throw new BenchUsageError(`--scenarios: unknown scenario "${name}" (known: ${SCENARIO_NAMES.join(', ')})`);
    }
  }
  return [...new Set(names as ScenarioName[])];
}

function integerList(flag: string, text: string | undefined, min: number): number[] | undefined {
  if (text === undefined) return undefined;
  return text.split(',').map((part) => {
    const value = Number(part.trim());
    if (part.trim() === '' || !Number.isInteger(value) || value < min) {
      throw new BenchUsageError(`${flag}: "${part}" is not an integer ≥ ${min}`);
    }
    return value;
  });
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new BenchUsageError(`${flag}: "${value}" is not one of ${allowed.join(', ')}`);
  return value as T;
}

function sourceList(value: string | undefined): SourceKind[] | undefined {
  const source = oneOf('--source', value, ['static', 'api', 'both'] as const);
  if (source === undefined) return undefined;
  return source === 'both' ? ['static', 'api'] : [source];
}

/** Each value as shardlet's flag accepts it, in its own spelling; duplicates once. */
function creationLimitList(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const values = text.split(',').map((part) => part.trim());
  for (const value of values) {
    try {
      parseRuntimeCreationLimit(value);
    } catch (err) {
      throw new BenchUsageError(`--creation-limit: "${value}" ${(err as Error).message}`);
    }
  }
  return [...new Set(values)];
}

function positiveInteger(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < 1) throw new BenchUsageError(`${flag}: "${text}" is not an integer ≥ 1`);
  return value;
}

function positiveNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new BenchUsageError(`${flag}: "${text}" is not a number > 0`);
  return value;
}
