// Pods with never-started containers, left in the simulated runtime (which keeps
// containerd's contract: StopContainer leaves a CREATED container created).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe } from 'node:test';
import { startSimRuntime } from '../../src/simruntime/server.js';
import type { RuntimeUnderTest } from './scenarios.js';
import { strandedScenarios } from './stranded-scenarios.js';

describe('never-started containers on the simulated runtime', () => {
  let sim: Awaited<ReturnType<typeof startSimRuntime>> | undefined;
  strandedScenarios(async (): Promise<RuntimeUnderTest> => {
    const socketPath = join(mkdtempSync(join(tmpdir(), 'shardlet-sim-')), 'sim.sock');
    sim = await startSimRuntime({ socketPath });
    return { name: 'sim', endpoint: `unix://${socketPath}`, image: 'busybox:1.35', realProcesses: false };
  });
  // After the scenarios' own clean-up, which needs the runtime.
  after(async () => sim?.close());
});
