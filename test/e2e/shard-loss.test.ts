// A shard thread that dies is replaced and its pods are resynced from the runtime:
// no second sandbox, no restart of a healthy container, and what changed while the
// shard was lost (a manifest edited in the middle of its sync, a container that
// died) reaches its new state. Runs the kubelet in this process (so the test can end
// a shard thread on purpose) against the simulated runtime over its real socket.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { Kubelet } from '../../src/main/kubelet.js';
import { SYNC_ERROR_BACKOFF_MS } from '../../src/main/podworkers/pod-workers.js';
import { parseFlags } from '../../src/main/options/flags.js';
import { mergeFlags } from '../../src/main/options/kubelet-config.js';
import { CriClient } from '../../src/shared/cri/client.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { waitUntil } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';
import type { Pod } from '../../src/shared/types.js';

const WORKERS = 2;
const PODS = 8;
/** An image whose pull takes about 2.5 s at the sim's default registry bandwidth (100 MB/s). */
const SLOW_IMAGE = 'busybox:1.36';
const SLOW_IMAGE_BYTES = 250_000_000;

let sim: SimRuntime;
let kubelet: Kubelet;
let cri: CriClient;
let manifestDir: string;

function runningPods(): number {
  return kubelet.podManager.pods().filter((pod) => kubelet.statuses.get(pod.metadata!.uid!)?.phase === 'Running').length;
}

/** Syncs the shard threads completed so far. */
function completedSyncs(): number {
  return kubelet.shardStats().reduce((sum, shard) => sum + shard.completed, 0);
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
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock'), latency: { imageSizesBytes: { [SLOW_IMAGE]: SLOW_IMAGE_BYTES } } });
  const flags = parseFlags([
    `--container-runtime-endpoint=unix://${join(workDir, 'sim.sock')}`,
    `--pod-manifest-path=${manifestDir}`,
    `--root-dir=${join(workDir, 'root')}`,
    '--read-only-port=0',
    // In the test's process: no :10250 server, no fixed healthz port.
    '--enable-server=false',
    '--healthz-port=0',
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
  const syncsBefore = completedSyncs();

  await kubelet.crashShard(0);
  await kubelet.crashShard(1);
  // A new pod after the loss proves the replacement shards take work.
  writeFileSync(join(manifestDir, 'late.yaml'), manifest('late', { containers: [{ name: 'main', image: 'busybox:1.35', command: ['sleep', 'infinity'] }] }));
  await waitUntil(async () => runningPods() === PODS + 1, 60_000, 'the late pod Running');
  // The replacements resync every pod of theirs: one completed sync per pod, plus the late pod's.
  await waitUntil(async () => completedSyncs() >= syncsBefore + PODS + 1, 60_000, 'the resync of every pod');

  const afterLoss = await runtimeIds();
  for (const [uid, ids] of before) assert.deepEqual(afterLoss.get(uid), ids, `pod ${uid} kept its sandbox and containers`);
  assert.equal(sim.stats().calls.RunPodSandbox, sandboxesCreated + 1, 'only the late pod got a sandbox');
  assert.equal(sim.stats().calls.CreateContainer, containersCreated + 1, 'only the late pod got a container');
  assert.equal(runningPods(), PODS + 1);
});

/** The pod's status as shardlet reports it, found by its static pod name. */
function podNamed(name: string): Pod | undefined {
  const pod = kubelet.podManager.pods().find((candidate) => candidate.metadata?.name === `${name}-loss-node`);
  return pod && { ...pod, status: kubelet.statuses.get(pod.metadata!.uid!) };
}

function mainContainer(name: string) {
  return podNamed(name)?.status?.containerStatuses?.find((status) => status.name === 'main');
}

test('what changed while a shard was lost in the middle of its syncs reaches its new state: the replacement resynced it', async () => {
  const spec = (containers: Array<{ name: string; image: string }>) => ({
    containers: containers.map((container) => ({ ...container, command: ['sleep', 'infinity'] })),
  });
  const editedUid = '0f8e2d4c-6b1a-4c3e-9d2f-5a7b8c9d0e01';
  writeFileSync(join(manifestDir, 'edited.yaml'), manifest('edited', spec([{ name: 'main', image: 'busybox:1.35' }]), { uid: editedUid }));
  writeFileSync(join(manifestDir, 'dies.yaml'), manifest('dies', spec([{ name: 'main', image: 'busybox:1.35' }])));
  await waitUntil(async () => mainContainer('edited')?.state?.running && mainContainer('dies')?.state?.running, 60_000, 'both pods Running');
  const mainBefore = mainContainer('edited')!.containerID;
  const diesBefore = mainContainer('dies')!.containerID!;

  // The edit adds a container whose image takes a while to pull: its sync is in the
  // pull, and has changed nothing in the runtime (so no PLEG event will wake the pod), when both shards are lost.
  const pullsBefore = sim.stats().calls.PullImage ?? 0;
  writeFileSync(
    join(manifestDir, 'edited.yaml'),
    manifest('edited', spec([{ name: 'main', image: 'busybox:1.35' }, { name: 'extra', image: SLOW_IMAGE }]), { uid: editedUid }),
  );
  await waitUntil(async () => (sim.stats().calls.PullImage ?? 0) > pullsBefore, 30_000, "the edit's sync pulling the new image");
  // Meanwhile a container dies, as an OOM kill would.
  await cri.stopContainer({ container_id: diesBefore.replace(/^[a-z-]+:\/\//, ''), timeout: 0 });
  await kubelet.crashShard(0);
  await kubelet.crashShard(1);

  // The lost sync failed: left to itself the pod would be retried after the error backoff.
  // Only the replacement's resync of its pods reaches the new state before that.
  await waitUntil(
    async () => podNamed('edited')?.status?.containerStatuses?.find((status) => status.name === 'extra')?.state?.running,
    SYNC_ERROR_BACKOFF_MS,
    'the edited pod running its new container, before the error backoff would have retried it',
  );
  await waitUntil(
    async () => {
      const dies = mainContainer('dies');
      return dies?.state?.running && dies.containerID !== diesBefore && dies.restartCount === 1;
    },
    30_000,
    'the container that died restarted',
  );
  assert.equal(mainContainer('edited')!.containerID, mainBefore, 'the unchanged container kept running');
  for (const name of ['edited', 'dies']) {
    const uid = podNamed(name)!.metadata!.uid!;
    const selector = { label_selector: { 'io.kubernetes.pod.uid': uid } };
    assert.equal((await cri.listPodSandbox({ filter: selector })).items.length, 1, `${name}: one sandbox`);
    const running = (await cri.listContainers({ filter: selector })).containers.filter((container) => container.state === 'CONTAINER_RUNNING');
    assert.equal(running.length, name === 'edited' ? 2 : 1, `${name}: each container running once`);
  }
});
