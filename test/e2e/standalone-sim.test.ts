// The standalone scenarios against the simulated runtime, over its real unix socket.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe } from 'node:test';
import { startSimRuntime } from '../../src/simruntime/server.js';
import { standaloneScenarios, type RuntimeUnderTest } from './scenarios.js';

// Once with shard threads and once with --workers 0 (the same code on the main thread).
for (const workers of [2, 0]) {
  describe(`standalone shardlet on the simulated runtime, --workers ${workers}`, () => {
    let sim: Awaited<ReturnType<typeof startSimRuntime>> | undefined;
    after(async () => sim?.close());
    standaloneScenarios(async (): Promise<RuntimeUnderTest> => {
      const socketPath = join(mkdtempSync(join(tmpdir(), 'shardlet-sim-')), 'sim.sock');
      sim = await startSimRuntime({ socketPath });
      return { name: 'sim', endpoint: `unix://${socketPath}`, image: 'busybox:1.35', realProcesses: false };
    }, workers);
  });
}
