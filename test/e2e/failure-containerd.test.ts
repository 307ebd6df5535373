// The failure suite on real containerd: shardlet killed with SIGKILL with 50 pods
// Running and again in the middle of a 30-pod start (manifests deleted and edited
// while it was down), and containerd itself SIGKILLed in the middle of a 30-pod
// start and brought back. After each: nothing restarted that was running, no pod
// with two sandboxes or a container running twice, nothing left in CREATED, every
// wanted pod Running, and what was deleted is gone. Needs root (setup.sh).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { CriClient } from '../../src/shared/cri/client.js';
import { ensureContainerd, killContainerd, killLeakedTasks, type ProjectContainerd } from '../../src/tools/containerd-env.js';
import { startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import {
  criCalls,
  duplicatesAndLeftovers,
  isRunning,
  names,
  podsByName,
  runningContainerIds,
  runtimeInventory,
  sleeperManifest,
  writeSleepers,
} from './failure-inventory.js';
import { removeRuntimePod } from './stranded-pods.js';

const NODE = 'fail-node';
/** The bound for pods to be Running again after a restart. */
const BACK_RUNNING_MS = 30_000;
const FIRST_START_MS = 180_000;

let containerd: ProjectContainerd;
let cri: CriClient;
let kubelet: KubeletProcess;
const workDir = mkdtempSync(join(tmpdir(), 'shardlet-failure-'));

const start = () => startKubelet({ runtimeEndpoint: containerd.endpoint, workers: 2, workDir, nodeName: NODE });
const manifestPath = (name: string) => join(workDir, 'manifests', `${name}.yaml`);

async function uidsByName(): Promise<Map<string, string>> {
  return new Map([...(await podsByName(kubelet, NODE))].map(([name, pod]) => [name, pod.metadata!.uid!]));
}

async function allRunning(wanted: string[]): Promise<boolean> {
  const pods = await podsByName(kubelet, NODE);
  return wanted.every((name) => isRunning(pods.get(name)));
}

async function goneFromRuntime(uids: string[]): Promise<boolean> {
  const inventory = await runtimeInventory(cri, NODE);
  return uids.every((uid) => !inventory.has(uid));
}

/** The number of Created events shardlet logged for pods whose name starts with the prefix. */
function containersCreated(prefix: string): number {
  return kubelet.logs.filter((line) => line.msg === 'Event' && line.reason === 'Created' && String(line.pod).startsWith(`default/${prefix}`)).length;
}

/**
 * Every manifest removed and every pod gone from the runtime, so the next scenario
 * starts clean. A container whose StartContainer the kill -9 cancelled can keep a
 * task containerd 1.6 will not remove over the CRI (shardlet names it,
 * SHARDLET_RUNTIME_TASK_LEAKED): its task is ended with ctr, as an operator would,
 * and said in the test's output.
 */
async function removeAll(t?: TestContext): Promise<void> {
  for (const file of readdirSync(join(workDir, 'manifests'))) rmSync(join(workDir, 'manifests', file));
  const removedAtMs = Date.now();
  const leakedIds = () => kubelet.logs.filter((line) => line.code === 'SHARDLET_RUNTIME_TASK_LEAKED').map((line) => String(line.containerId));
  const ended = new Set<string>();
  try {
    await waitUntil(async () => {
      const fresh = leakedIds().filter((id) => !ended.has(id));
      for (const id of killLeakedTasks(containerd, fresh)) {
        ended.add(id);
        t?.diagnostic(`containerd 1.6 kept the task of ${id} (a StartContainer the kill cancelled); ended with ctr`);
      }
      return (await runtimeInventory(cri, NODE)).size === 0;
    }, 120_000, 'every test pod removed from the runtime');
  } catch (err) {
    // What is left, and what shardlet said of trouble since, so a failure here can be understood.
    const left = [...(await runtimeInventory(cri, NODE))].map(([uid, objects]) => ({ uid, ...objects }));
    const trouble = kubelet.logs.filter((line) => Number(line.level) >= 40 && Number(line.time) >= removedAtMs).slice(-40);
    throw new Error(`${(err as Error).message}\nleft in the runtime: ${JSON.stringify(left)}\nwarnings since: ${trouble.map((line) => JSON.stringify(line)).join('\n')}`, { cause: err });
  }
}

before(async () => {
  containerd = ensureContainerd();
  cri = new CriClient(containerd.endpoint, { timeoutMs: 30_000 });
  kubelet = await start();
});

after(async () => {
  await removeAll().catch(() => undefined);
  await kubelet.stop();
  // Leave containerd as it was found even if shardlet did not clean up.
  for (const uid of (await runtimeInventory(cri, NODE)).keys()) await removeRuntimePod(cri, uid);
  cri.close();
});

test('kill -9 with 50 pods Running: nothing restarted or duplicated, and pods deleted meanwhile are stopped once', async (t) => {
  const all = names('run', 50);
  writeSleepers(join(workDir, 'manifests'), all, containerd.busyboxImage);
  await waitUntil(() => allRunning(all), FIRST_START_MS, '50 pods Running');
  const uids = await uidsByName();
  const runningBefore = runningContainerIds(await runtimeInventory(cri, NODE));

  await kubelet.kill9();
  const deleted = all.slice(0, 5);
  const kept = all.slice(5);
  for (const name of deleted) rmSync(manifestPath(name));
  const restartedAtMs = Date.now();
  kubelet = await start();
  await waitUntil(() => allRunning(kept), BACK_RUNNING_MS, 'the 45 kept pods Running after the restart');
  await waitUntil(() => goneFromRuntime(deleted.map((name) => uids.get(name)!)), BACK_RUNNING_MS, 'the 5 deleted pods removed');
  t.diagnostic(`kept pods Running and deleted ones removed ${Date.now() - restartedAtMs} ms after the restart`);

  const inventory = await runtimeInventory(cri, NODE);
  assert.deepEqual(duplicatesAndLeftovers(inventory), []);
  const runningAfter = runningContainerIds(inventory);
  for (const name of kept) {
    const uid = uids.get(name)!;
    assert.deepEqual(runningAfter.get(uid), runningBefore.get(uid), `${name} kept its running container`);
  }
  const calls = await criCalls(kubelet);
  assert.equal(calls.RunPodSandbox ?? 0, 0, 'no sandbox created');
  assert.equal(calls.CreateContainer ?? 0, 0, 'no container created');
  assert.equal(calls.StopContainer ?? 0, deleted.length, "each deleted pod's container stopped once");
  assert.equal(calls.StopPodSandbox ?? 0, deleted.length, "each deleted pod's sandbox stopped once");
  await removeAll(t);
});

test('kill -9 in the middle of a 30-pod start, manifests deleted and edited meanwhile: all applied, nothing left half-made', async (t) => {
  const batch = names('start', 30);
  writeSleepers(join(workDir, 'manifests'), batch, containerd.busyboxImage);
  await waitUntil(async () => containersCreated('start') >= 8, 60_000, 'the start under way');
  const uids = await uidsByName();
  await kubelet.kill9();
  const atKill = await runtimeInventory(cri, NODE);
  const createdAtKill = [...atKill.values()].flatMap((o) => o.containers).filter((c) => c.state === 'CONTAINER_CREATED').length;
  t.diagnostic(`at the kill: ${atKill.size} pods in the runtime, ${createdAtKill} containers in CREATED`);

  const deleted = batch.slice(0, 5);
  const edited = batch.slice(5, 10);
  for (const name of deleted) rmSync(manifestPath(name));
  for (const name of edited) writeFileSync(manifestPath(name), sleeperManifest(name, containerd.busyboxImage, 7200));
  const restartedAtMs = Date.now();
  kubelet = await start();
  const wanted = batch.slice(5);
  await waitUntil(async () => {
    const pods = await podsByName(kubelet, NODE);
    return wanted.every((name) => isRunning(pods.get(name))) && edited.every((name) => pods.get(name)!.metadata!.uid !== uids.get(name));
  }, BACK_RUNNING_MS, 'every wanted pod Running, the edited ones at their new spec');
  const replaced = [...deleted, ...edited].map((name) => uids.get(name)!);
  await waitUntil(() => goneFromRuntime(replaced), BACK_RUNNING_MS, 'deleted pods and the old versions of edited ones removed');
  t.diagnostic(`all applied ${Date.now() - restartedAtMs} ms after the restart`);

  const pods = await podsByName(kubelet, NODE);
  for (const name of edited) assert.deepEqual(pods.get(name)!.spec!.containers[0].command, ['sleep', '7200'], `${name} runs its edited spec`);
  for (const name of deleted) assert.equal(pods.get(name), undefined, `${name} is gone`);
  assert.deepEqual(duplicatesAndLeftovers(await runtimeInventory(cri, NODE)), []);
  await removeAll(t);
});

test('containerd killed in the middle of a 30-pod start and brought back: every pod Running once, no leaked sandbox', async (t) => {
  const batch = names('crash', 30);
  writeSleepers(join(workDir, 'manifests'), batch, containerd.busyboxImage);
  await waitUntil(async () => containersCreated('crash') >= 8, 60_000, 'the start under way');
  const logsBefore = kubelet.logs.length;
  await killContainerd(containerd);
  try {
    const notReady = await waitUntil(
      async () => kubelet.logs.slice(logsBefore).find((line) => line.code === 'SHARDLET_CRI_UNAVAILABLE'),
      30_000,
      'shardlet saying the runtime is not ready',
    );
    t.diagnostic(`logged: ${String(notReady.msg)}`);
  } finally {
    // containerd is shared: it comes back whatever this test found.
    containerd = ensureContainerd('ignore');
  }
  const backAtMs = Date.now();
  await waitUntil(() => allRunning(batch), 90_000, 'every pod Running after containerd came back');
  t.diagnostic(`all Running ${Date.now() - backAtMs} ms after containerd came back`);
  await waitUntil(async () => kubelet.logs.slice(logsBefore).some((line) => line.msg === 'Container runtime ready again: PLEG relist works'), 10_000, 'shardlet saying the runtime is ready again');

  const uids = [...(await uidsByName()).values()];
  const inventory = await runtimeInventory(cri, NODE);
  assert.deepEqual(duplicatesAndLeftovers(inventory), []);
  assert.deepEqual([...inventory.keys()].sort(), [...uids].sort(), 'the runtime holds the 30 pods and nothing else');
  for (const [uid, objects] of inventory) {
    assert.deepEqual(objects.sandboxes.map((s) => s.state), ['SANDBOX_READY'], `${uid}: one ready sandbox`);
    assert.equal(objects.containers.filter((c) => c.state === 'CONTAINER_RUNNING').length, 1, `${uid}: one running container`);
  }
  await removeAll(t);
});
