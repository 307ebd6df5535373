// kubectl against a shardlet node on the simulated runtime (logs, exec, port-forward, stats, metrics, Prometheus).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimRuntime } from '../../src/simruntime/server.js';
import { kubectlScenario } from './kubectl-scenario.js';

kubectlScenario('sim', async () => {
  const sim = await startSimRuntime({ socketPath: join(mkdtempSync(join(tmpdir(), 'shardlet-kubectl-sim-')), 'sim.sock') });
  return { endpoint: sim.endpoint, image: 'busybox:1.35', realProcesses: false, stop: () => sim.close() };
});
