// The runtime contention guard at work, apart from `npm run bench`: real shard
// threads (a ShardPool) and the main thread's CreationLimitController against the
// simulated runtime in this process, `--pods` one-container pods synced at once,
// once per --runtime-creation-limit value. The sim's arm profile, with its runtime
// operation slots set by `--slots` (32 models a 64-core node; 1 or 2 what a 2-core
// runtime keeps busy), so creations queue in the runtime as on a busy one and their
// latency climbs. Prints all Running, the pods' start p50/p99, the most creations
// the runtime had at once, and how the adaptive limit moved.
//
//   npm run build && node dist/bench/creation-limit-trace.js [--pods 250] [--slots 2] [--workers 2] [--limits off,adaptive]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { PullCoordinator } from '../src/main/images/pull-coordinator.js';
import { CreationLimitController } from '../src/main/kuberuntime/creation-limit-controller.js';
import { ShardPool } from '../src/main/shards/shard-pool.js';
import { parseRuntimeCreationLimit } from '../src/shared/runtime-creation/creation-limit-setting.js';
import type { Pod } from '../src/shared/types.js';
import { SIM_PROFILES } from '../src/simruntime/profiles.js';
import { startSimRuntime } from '../src/simruntime/server.js';
import { inProcessShardSettings } from '../src/tools/in-process-shard-settings.js';
import { summarize } from './stats.js';

const IMAGE = 'registry.local/bench:1.0';
/** upstream's default runtime request timeout: a creation queued behind hundreds must not time out. */
const CALL_TIMEOUT_MS = 120_000;

const { values } = parseArgs({
  options: {
    pods: { type: 'string', default: '250' },
    slots: { type: 'string', default: '2' },
    workers: { type: 'string', default: '2' },
    limits: { type: 'string', default: 'off,adaptive' },
  },
});
const pods = Number(values.pods);
const slots = Number(values.slots);
const workers = Number(values.workers);

const pod = (i: number): Pod => ({
  metadata: { uid: `trace-${i}`, name: `trace-${i}`, namespace: 'bench' },
  spec: { containers: [{ name: 'app', image: IMAGE, imagePullPolicy: 'IfNotPresent' }] },
});

/** One start of every pod under one setting; the limit's moves as "seconds:before→after". */
async function runOnce(limitText: string): Promise<string> {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-creation-trace-'));
  const latency = { ...SIM_PROFILES.arm.latency, runtimeOperationSlots: slots, imageSizesBytes: { [IMAGE]: 0 } };
  const sim = await startSimRuntime({ socketPath: join(workDir, 'cri.sock'), latency });
  const startedAt = performance.now();
  const moves: string[] = [];
  const limitLog = pino({ level: 'debug' }, {
    write(line: string) {
      const entry = JSON.parse(line) as { limit?: number; before?: number };
      if (entry.before !== undefined) moves.push(`${((performance.now() - startedAt) / 1000).toFixed(2)}:${entry.before}→${entry.limit}`);
    },
  });
  const silent = pino({ level: 'silent' });
  const controller = new CreationLimitController({ setting: parseRuntimeCreationLimit(limitText), shards: Math.max(workers, 1), logger: limitLog });
  controller.start();
  const pool = new ShardPool({
    workers,
    settings: inProcessShardSettings(sim.endpoint, workDir, { runtimeCreationPermits: controller.shared, runtimeRequestTimeoutMs: CALL_TIMEOUT_MS }),
    pulls: new PullCoordinator({ serializeImagePulls: false, logger: silent }),
    logger: silent,
    onShardLost: (index) => controller.reclaimShard(index),
    onShardReplaced: () => undefined,
    onRelist: () => undefined,
  });
  try {
    const submittedAt = performance.now();
    const latenciesMs: number[] = [];
    let notRunning = 0;
    await Promise.all(
      Array.from({ length: pods }, (_, i) =>
        pool.sync({ kind: 'sync', pod: pod(i), runtimeKnownEmpty: true }).then((result) => {
          if (result.status.phase !== 'Running') notRunning++;
          latenciesMs.push(performance.now() - submittedAt);
        }),
      ),
    );
    const latency = summarize(latenciesMs);
    const seconds = (ms: number) => (ms / 1000).toFixed(2);
    const failed = notRunning > 0 ? `, ${notRunning} not Running` : '';
    return (
      `limit ${limitText.padEnd(8)} all Running ${seconds(latency.maxMs)} s, start p50 ${seconds(latency.p50Ms)} s p99 ${seconds(latency.p99Ms)} s, ` +
      `most creations in the runtime at once ${sim.stats().maxCreationsInFlight}${failed}` +
      (moves.length > 0 ? `\n  limit moves (s:before→after): ${moves.join(' ')}` : '')
    );
  } finally {
    controller.close();
    await pool.close();
    await sim.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}

process.stdout.write(`${pods} pods, arm profile with ${slots} runtime operation slot(s), --workers ${workers}\n`);
for (const limitText of values.limits.split(',')) process.stdout.write(`${await runOnce(limitText.trim())}\n`);
