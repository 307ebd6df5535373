// runAsNonRoot against the image's user, on the simulated runtime over its real
// socket: its catalog gives busybox no user (root), distroless-style `:nonroot`
// images uid 65532 and `named-user` images the user name "app".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe } from 'node:test';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { runAsNonRootScenarios } from './run-as-non-root-scenarios.js';

describe('attack: runAsNonRoot with a root image, simulated runtime', () => {
  let sim: SimRuntime | undefined;
  let dir: string | undefined;
  after(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  runAsNonRootScenarios(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shardlet-attack-sim-'));
    sim = await startSimRuntime({ socketPath: join(dir, 'sim.sock'), latency: { scale: 0 } });
    return {
      name: 'sim',
      endpoint: sim.endpoint,
      rootImage: 'busybox:1.35',
      nonRootImage: { image: 'gcr.io/distroless/static:nonroot', uid: 65532 },
      namedUserImage: { image: 'registry.local/named-user/app:1', username: 'app' },
      realProcesses: false,
    };
  });
});
