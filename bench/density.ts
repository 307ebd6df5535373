// `npm run bench`: the density benchmark. Options → plan → run each floor and the
// runs compared with it → a table per scenario, the targets, results.json and SVG
// plots under bench/results/<stamp>/ (or --out). See docs/bench.md.
import { availableParallelism, cpus } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CriClient } from '../src/shared/cri/client.js';
import { SIM_PROFILES } from '../src/simruntime/profiles.js';
import { ensureContainerd } from '../src/tools/containerd-env.js';
import { BENCH_NAMESPACE } from './bench-pods.js';
import type { ContainerdTarget } from './bench-runtime.js';
import { FLOOR_NAMESPACE } from './floor-job.js';
import { measureFloor } from './floor.js';
import { BenchUsageError, parseBenchOptions, USAGE, type BenchOptions } from './options.js';
import { writePlots } from './plots.js';
import { Progress } from './progress.js';
import { summarizeRepeatedRow } from './repeated-row.js';
import { renderTables } from './report-table.js';
import type { FloorResult, RunResult } from './results.js';
import { runScenario } from './run-scenario.js';
import { planBench } from './plan.js';
import { CONTAINERD_SCENARIO, describeFloor, describeRun, type BenchPlan } from './scenarios.js';
import { checkTargets, renderTargets } from './targets.js';

const RESULTS_ROOT = fileURLToPath(new URL('../../bench/results/', import.meta.url));
const EXIT_USAGE = 2;
const EXIT_RUN_FAILED = 1;

async function main(argv: string[]): Promise<number> {
  let options: BenchOptions | 'help';
  try {
    options = parseBenchOptions(argv);
  } catch (err) {
    if (!(err instanceof BenchUsageError)) throw err;
    process.stderr.write(`bench: ${err.message}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  if (options === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const startedAt = new Date();
  const containerd = options.scenarios.includes(CONTAINERD_SCENARIO) ? await setUpContainerd() : undefined;
  const plan = planBench(options, containerd?.image);
  const outDir = resolve(options.outDir ?? join(RESULTS_ROOT, startedAt.toISOString().replace(/[:.]/g, '-')));
  mkdirSync(outDir, { recursive: true });

  const { runsById, floorsById } = await runPlan(plan, containerd);
  const targets = checkTargets({ plan, runsById, floorsById });
  process.stdout.write(`\n${renderTables(plan, runsById, floorsById)}\n${renderTargets(targets)}\n`);

  const finishedAt = new Date();
  const jsonPath = join(outDir, 'results.json');
  const results = {
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    wallSeconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
    machine: { node: process.version, cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? '', platform: `${process.platform}/${process.arch}` },
    options,
    profiles: SIM_PROFILES,
    scenarios: plan.scenarios,
    floors: [...floorsById.values()],
    runs: [...runsById.values()],
    /** The repeated rows (scale), each figure's median and spread over the row's runs. */
    repeatedRows: repeatedRowsOf(plan, runsById, floorsById),
    targets,
  };
  writeFileSync(jsonPath, `${JSON.stringify(results, null, 1)}\n`);
  const plots = writePlots(outDir, { plan, runsById, floorsById });
  process.stdout.write(`\nresults: ${jsonPath}\n${plots.map((path) => `plot:    ${path}`).join('\n')}\n`);
  process.stdout.write(`bench took ${results.wallSeconds.toFixed(0)} s\n`);
  const failed = [...runsById.values(), ...floorsById.values()].some((result) => result.error);
  return failed ? EXIT_RUN_FAILED : 0;
}

/** Each floor, then the runs compared with it (on containerd: right before them, in this invocation). */
async function runPlan(plan: BenchPlan, containerd: ContainerdTarget | undefined) {
  const progress = new Progress(plan.floors.length + plan.runs.length);
  const runsById = new Map<string, RunResult>();
  const floorsById = new Map<string, FloorResult>();
  for (const floorSpec of plan.floors) {
    progress.begin(describeFloor(floorSpec));
    const floor = await measureFloor(floorSpec, containerd, progress);
    floorsById.set(floorSpec.id, floor);
    progress.end(floor.measured ? `all started in ${(floor.measured.allRunningMs / 1000).toFixed(2)} s` : `error: ${floor.error}`);
    for (const spec of plan.runs.filter((run) => run.floorId === floorSpec.id)) {
      progress.begin(describeRun(spec));
      const run = await runScenario(spec, containerd, progress);
      runsById.set(spec.id, run);
      progress.end(summaryOf(run));
    }
  }
  return { runsById, floorsById };
}

function summaryOf(run: RunResult): string {
  const parts: string[] = [];
  if (run.start) {
    const start = run.start;
    parts.push(
      `all Running in ${(start.allRunningMs / 1000).toFixed(2)} s, p99 ${(start.latency.p99Ms / 1000).toFixed(2)} s, ` +
        `start-up CPU ${start.startup.cpuSeconds.toFixed(2)} s, then ${start.cpuMsPerPod.toFixed(2)} ms per pod, peak RSS ${start.peakRssMiB.toFixed(0)} MiB`,
    );
  }
  if (run.steady) parts.push(`steady ${run.steady.cpuPercentOfCore.toFixed(2)} % of a core`);
  if (run.churn) {
    const { leaks, rssGrowthPercent, created, deleted } = run.churn;
    parts.push(
      `churn ${created} created/${deleted} deleted, RSS ${rssGrowthPercent.toFixed(1)} %, ` +
        `leaked ${leaks.sandboxes} sandboxes ${leaks.containers} containers ${leaks.podDirs} pod dirs ${leaks.logDirs} log dirs`,
    );
  }
  if (run.error) parts.push(`error: ${run.error}`);
  return parts.join('; ');
}

function repeatedRowsOf(plan: BenchPlan, runsById: Map<string, RunResult>, floorsById: Map<string, FloorResult>) {
  return plan.scenarios.flatMap((scenario) =>
    scenario.rows.filter((row) => row.runIds).map((row) => ({ scenario: scenario.name, ...summarizeRepeatedRow(row, runsById, floorsById) })),
  );
}

async function setUpContainerd(): Promise<ContainerdTarget> {
  process.stderr.write('bringing up containerd (scripts/containerd/setup.sh) …\n');
  const { endpoint, busyboxImage } = ensureContainerd('ignore');
  const others = await countForeignSandboxes(endpoint);
  if (others > 0) {
    // shardlet owns the node's runtime: its housekeeping stops pods no source wants.
    process.stderr.write(`warning: containerd holds ${others} pod sandbox(es) that are not the bench's; shardlet will stop them as orphans, and those calls count in its CRI calls\n`);
  }
  return { endpoint, image: busyboxImage };
}

async function countForeignSandboxes(endpoint: string): Promise<number> {
  const cri = new CriClient(endpoint, { timeoutMs: 30_000 });
  try {
    const { items } = await cri.listPodSandbox({});
    return items.filter((sandbox) => ![BENCH_NAMESPACE, FLOOR_NAMESPACE].includes(sandbox.metadata?.namespace ?? '')).length;
  } finally {
    cri.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(EXIT_RUN_FAILED);
  },
);
