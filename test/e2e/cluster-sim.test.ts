// Cluster mode on the simulated runtime, over its real socket.
import { join } from 'node:path';
import { describe } from 'node:test';
import { startSimRuntime } from '../../src/simruntime/server.js';
import { clusterScenarios } from './cluster-scenarios.js';

describe('cluster mode on the simulated runtime', () => {
  clusterScenarios(async (workDir) => {
    const sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
    return { name: 'sim', endpoint: sim.endpoint, image: 'busybox:1.35', realProcesses: false, close: () => sim.close() };
  });
});
