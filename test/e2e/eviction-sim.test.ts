// Node-pressure eviction on the simulated runtime (modelled memory figures: 8Mi per container without a limit).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimRuntime } from '../../src/simruntime/server.js';
import { evictionScenario } from './eviction-scenario.js';

evictionScenario(async () => {
  const sim = await startSimRuntime({ socketPath: join(mkdtempSync(join(tmpdir(), 'shardlet-eviction-sim-')), 'sim.sock') });
  return { endpoint: sim.endpoint, image: 'busybox:1.35', hogCommand: ['sleep', '3600'], stop: () => sim.close() };
});
