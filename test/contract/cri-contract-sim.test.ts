// The CRI contract table against the simulated runtime over a real unix socket.
// Every call is instant except a pull, which costs what the latency model says a
// 50 MB image over the registry link costs, so that a pull's deadline can pass.
// The two busybox tags are one image in the simulated registry, as they are in
// the project's local registry (scripts/containerd/build-images.sh).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { CriClient } from '../../src/shared/cri/client.js';
import { DEFAULT_CALL_LATENCY_MS, type RpcName } from '../../src/simruntime/latency-model.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { FullCriClient } from '../helpers/full-cri.js';
import type { ContractTarget } from './contract-context.js';
import { registerContractCases } from './run-contract.js';

const BUSYBOX = '127.0.0.1:5000/busybox:1.35';
const BUSYBOX_OTHER_TAG = '127.0.0.1:5000/busybox:latest';
/** The sim's catalog gives an image whose name says `nonroot` the user 65532:65532 (distroless's). */
const NON_ROOT = { image: '127.0.0.1:5000/busybox-nonroot:1.35', uid: 65532 };
/** Every call instant but PullImage's manifest resolution. */
const CALL_LATENCY_MS = Object.fromEntries(Object.keys(DEFAULT_CALL_LATENCY_MS).map((rpc) => [rpc, rpc === 'PullImage' ? 30 : 0])) as Record<RpcName, number>;

let workDir: string;
let sim: SimRuntime;
let target: ContractTarget;

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-cri-contract-sim-'));
  sim = await startSimRuntime({
    socketPath: join(workDir, 'cri.sock'),
    latency: { scale: 1, jitter: 0, callLatencyMs: CALL_LATENCY_MS },
    preloadImages: [BUSYBOX, NON_ROOT.image],
    sameImages: [[BUSYBOX, BUSYBOX_OTHER_TAG]],
  });
  target = {
    kind: 'sim',
    client: new CriClient(sim.endpoint, { timeoutMs: 10_000 }),
    full: new FullCriClient(sim.endpoint),
    busybox: BUSYBOX,
    busyboxOtherTag: BUSYBOX_OTHER_TAG,
    nonRoot: NON_ROOT,
    workDir,
    runId: 'sim',
  };
});

after(async () => {
  target?.client.close();
  target?.full.close();
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

registerContractCases('CRI contract: simulated runtime', () => target);
