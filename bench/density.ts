// `npm run bench`: the density benchmark. For each pod count and --workers value
// it runs a scenario against the simulated runtime and its floor, then prints a
// table and writes JSON and an SVG plot to bench/results/.
//   npm run bench -- [--pods 250,500] [--workers 0,1,2,4] [--images 10] [--max-parallel-image-pulls 5]
//   npm run bench -- --runtime containerd --pods 50 --workers 0,2
// With --runtime containerd it runs against the containerd of scripts/containerd/setup.sh
// (busybox from the local registry, so one image); it has no floor or CRI call count.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { measureFloor, type FloorResult } from './floor.js';
import { renderPlot } from './plot.js';
import { containerdRuntime } from './containerd-runtime.js';
import { runScenario, simRuntime, type BenchRuntime, type ScenarioResult, type ScenarioSpec } from './scenario.js';

const RESULTS_DIR = fileURLToPath(new URL('../../bench/results/', import.meta.url));
const PROGRESS_BAR_WIDTH = 30;

function numbers(text: string): number[] {
  return text.split(',').map((part) => {
    const value = Number(part);
    if (!Number.isInteger(value) || value < 0) throw new Error(`bench: "${part}" is not a non-negative integer`);
    return value;
  });
}

let lastProgress = '';
function progress(label: string, done: number, total: number): void {
  const key = `${label} ${done}`;
  if (key === lastProgress) return;
  lastProgress = key;
  const filled = Math.round((done / total) * PROGRESS_BAR_WIDTH);
  process.stderr.write(`\r${label} [${'#'.repeat(filled)}${' '.repeat(PROGRESS_BAR_WIDTH - filled)}] ${done}/${total} Running`);
}

function row(result: ScenarioResult, floor: FloorResult): string {
  const cells = [
    result.pods,
    result.workers,
    (result.allRunningMs / 1000).toFixed(2),
    result.p50Ms.toFixed(0),
    result.p90Ms.toFixed(0),
    result.p99Ms.toFixed(0),
    result.podsPerSecond.toFixed(1),
    result.cpuSeconds.toFixed(2),
    result.peakRssMiB.toFixed(0),
    result.criCallsPerPod.toFixed(1),
    (floor.allRunningMs / 1000).toFixed(2),
    (result.allRunningMs / floor.allRunningMs).toFixed(2),
    (result.p99Ms / floor.p99Ms).toFixed(2),
  ];
  return cells.map((cell) => String(cell).padStart(9)).join(' ');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      pods: { type: 'string', default: '250,500' },
      workers: { type: 'string', default: '0,1,2,4' },
      images: { type: 'string', default: '10' },
      'max-parallel-image-pulls': { type: 'string', default: '5' },
      runtime: { type: 'string', default: 'sim' },
    },
  });
  if (values.runtime !== 'sim' && values.runtime !== 'containerd') throw new Error(`bench: --runtime must be sim or containerd`);
  const onContainerd = values.runtime === 'containerd';
  const podCounts = numbers(values.pods);
  const workerCounts = numbers(values.workers);
  const images = numbers(values.images)[0];
  const maxParallelImagePulls = numbers(values['max-parallel-image-pulls'])[0];
  const results: Array<ScenarioResult & { floor: FloorResult }> = [];
  const header = ['pods', 'workers', 'all(s)', 'p50ms', 'p90ms', 'p99ms', 'pods/s', 'cpu(s)', 'rssMiB', 'cri/pod', 'floor(s)', 'x floor', 'p99 x fl'];
  const lines: string[] = [];
  for (const pods of podCounts) {
    const floorSpec: ScenarioSpec = { pods, workers: 0, images, maxParallelImagePulls };
    const floor: FloorResult = onContainerd ? { allRunningMs: Number.NaN, p50Ms: Number.NaN, p99Ms: Number.NaN } : await measureFloor(floorSpec);
    for (const workers of workerCounts) {
      const spec: ScenarioSpec = { pods, workers, images, maxParallelImagePulls };
      const label = `${values.runtime}: ${pods} pods, --workers ${workers}`;
      const open = (workDir: string): Promise<BenchRuntime> => (onContainerd ? containerdRuntime() : simRuntime(workDir, images));
      const result = await runScenario(spec, open, (done) => progress(label, done, pods));
      process.stderr.write('\n');
      results.push({ ...result, floor });
      lines.push(row(result, floor));
    }
  }
  console.log(header.map((h) => h.padStart(9)).join(' '));
  for (const line of lines) console.log(line);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const jsonPath = join(RESULTS_DIR, `density-${stamp}.json`);
  const summary = { runtime: values.runtime, node: process.version, cpus: (await import('node:os')).availableParallelism(), results };
  writeFileSync(jsonPath, JSON.stringify(summary, null, 2));
  const svgPath = join(RESULTS_DIR, `density-${stamp}.svg`);
  writeFileSync(svgPath, renderPlot(results));
  console.log(`\nresults: ${jsonPath}\nplot:    ${svgPath}`);
}

main().catch((err) => {
  console.error(`bench failed: ${(err as Error).message}`);
  process.exit(1);
});
