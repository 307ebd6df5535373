// The node-wide dead container limit (--maximum-dead-containers) on the simulated
// runtime; the same scenario runs on containerd in container-gc-containerd.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { deadContainerLimitScenario } from './container-gc-scenario.js';

// Three restarts: the crash backoff waits 10 s, then 20 s.
const TIMEOUT_MS = 90_000;

let workDir: string;
let sim: SimRuntime;

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-containergc-sim-'));
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock'), latency: { scale: 0 } });
});

after(async () => {
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

test('--maximum-dead-containers holds the node at the limit while crash-looping pods keep restarting', async (t) => {
  await deadContainerLimitScenario(t, { endpoint: sim.endpoint, image: 'busybox:1.36' }, TIMEOUT_MS);
});
