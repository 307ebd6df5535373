// A shard thread that dies is replaced and its pods are resynced from the runtime:
// no second sandbox, no restart of a healthy container. Runs the kubelet in this
// process (so the test can end a shard thread on purpose) against the simulated
// runtime over its real socket.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { Kubelet } from '../../src/main/kubelet.js';
import { parseFlags } from '../../src/main/options/flags.js';
import { mergeFlags } from '../../src/main/options/kubelet-config.js';
import { CriClient } from '../../src/shared/cri/client.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { waitUntil } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

const WORKERS = 2;
const PODS = 8;

let sim: SimRuntime;
let kubelet: Kubelet;
let cri: CriClient;
let manifestDir: string;

function runningPods(): number {
  return kubelet.podManager.pods().filter((pod) => kubelet.statuses.get(pod.metadata!.uid!)?.phase === 'Running').length;
}

/** Sandbox and container IDs per pod UID, as the runtime holds them. */
async function runtimeIds(): Promise<Map<string, string[]>> {
  const idsByUid = new Map<string, string[]>();
  const sandboxes = await cri.listPodSandbox({});
  const containers = await cri.listContainers({});
  for (const item of [...sandboxes.items, ...containers.containers]) {
    const uid = item.labels['io.kubernetes.pod.uid'];
    idsByUid.set(uid, [...(idsByUid.get(uid) ?? []), item.id].sort());
  }
  return idsByUid;
}

before(async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-shard-loss-'));
  manifestDir = join(workDir, 'manifests');
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  const flags = parseFlags([
    `--container-runtime-endpoint=unix://${join(workDir, 'sim.sock')}`,
    `--pod-manifest-path=${manifestDir}`,
    `--root-dir=${join(workDir, 'root')}`,
    '--read-only-port=0',
    `--workers=${WORKERS}`,
    '--hostname-override=loss-node',
    '--file-check-frequency=1s',
    '--fault-injection',
  ]);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(manifestDir);
  for (let i = 0; i < PODS; i++) {
    writeFileSync(join(manifestDir, `p${i}.yaml`), manifest(`p${i}`, { containers: [{ name: 'main', image: 'busybox:1.35', command: ['sleep', 'infinity'] }] }));
  }
  kubelet = new Kubelet(mergeFlags(undefined, flags), pino({ level: 'warn' }));
  await kubelet.start();
  cri = new CriClient(sim.endpoint, { timeoutMs: 10_000 });
});

after(async () => {
  cri.close();
  await kubelet.stop();
  await sim.close();
});

test('a shard thread that dies is replaced and its pods resynced without duplicates or restarts', async () => {
  await waitUntil(async () => runningPods() === PODS, 60_000, 'all pods Running');
  const before = await runtimeIds();
  const sandboxesCreated = sim.stats().calls.RunPodSandbox ?? 0;
  const containersCreated = sim.stats().calls.CreateContainer ?? 0;

  await kubelet.crashShard(0);
  await kubelet.crashShard(1);
  // A new pod after the loss proves the replacement shards take work.
  writeFileSync(join(manifestDir, 'late.yaml'), manifest('late', { containers: [{ name: 'main', image: 'busybox:1.35', command: ['sleep', 'infinity'] }] }));
  await waitUntil(async () => runningPods() === PODS + 1, 60_000, 'the late pod Running');
  // Give the resync of every pod (triggered by the replacement) time to run.
  await new Promise((resolve) => setTimeout(resolve, 3_000));

  const afterLoss = await runtimeIds();
  for (const [uid, ids] of before) assert.deepEqual(afterLoss.get(uid), ids, `pod ${uid} kept its sandbox and containers`);
  assert.equal(sim.stats().calls.RunPodSandbox, sandboxesCreated + 1, 'only the late pod got a sandbox');
  assert.equal(sim.stats().calls.CreateContainer, containersCreated + 1, 'only the late pod got a container');
  assert.equal(runningPods(), PODS + 1);
});
