// The PLEG relist against the simulated runtime over a real socket: what a relist
// reports for each change of a pod's sandbox and container, and that the pod set
// only travels when it changed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { PlegEvent } from '../../../src/shared/shard-protocol.js';
import { Relister } from '../../../src/workers/pleg/relist.js';
import { TEST_IMAGE, containerConfig, sandboxConfig, startHarness, type SimHarness } from '../../simruntime/harness.js';

const UID = 'uid-relist';
let harness: SimHarness;
let relister: Relister;

before(async () => {
  harness = await startHarness({ scale: 0 }, { preloadImages: [TEST_IMAGE] });
  relister = new Relister(harness.client);
});

after(() => harness.close());

const brief = (events: PlegEvent[]) => events.map((event) => `${event.type}:${event.id}:${event.state}`).sort();

test('each change of a pod in the runtime is one event, and the pod set comes only when it changed', async () => {
  const empty = await relister.relist();
  assert.deepEqual(empty.events, []);
  assert.ok(empty.startedAtMs <= Date.now());

  const config = sandboxConfig('relist', { uid: UID, labels: { 'io.kubernetes.pod.uid': UID, 'io.kubernetes.pod.namespace': 'default' } });
  const sandboxId = (await harness.client.runPodSandbox({ config })).pod_sandbox_id;
  const containerId = (
    await harness.client.createContainer({
      pod_sandbox_id: sandboxId,
      config: containerConfig('app', ['sleep', '3600'], { labels: { 'io.kubernetes.pod.uid': UID } }),
      sandbox_config: config,
    })
  ).container_id;
  const created = await relister.relist();
  assert.deepEqual(brief(created.events), [`ContainerChanged:${containerId}:created`, `PodSandboxChanged:${sandboxId}:running`].sort());
  assert.deepEqual(created.runtimePods, [{ uid: UID, name: 'relist', namespace: 'default', active: true }]);

  await harness.client.startContainer({ container_id: containerId });
  const started = await relister.relist();
  assert.deepEqual(brief(started.events), [`ContainerStarted:${containerId}:running`]);
  assert.equal(started.runtimePods, undefined, 'the pod set did not change');

  await harness.client.stopContainer({ container_id: containerId, timeout: 0 });
  assert.deepEqual(brief((await relister.relist()).events), [`ContainerDied:${containerId}:exited`]);

  await harness.client.removeContainer({ container_id: containerId });
  assert.deepEqual(brief((await relister.relist()).events), [`ContainerRemoved:${containerId}:none`]);

  await harness.client.stopPodSandbox({ pod_sandbox_id: sandboxId });
  const stopped = await relister.relist();
  assert.deepEqual(brief(stopped.events), [`PodSandboxChanged:${sandboxId}:exited`]);
  assert.deepEqual(stopped.runtimePods, [{ uid: UID, name: 'relist', namespace: 'default', active: false }]);

  await harness.client.removePodSandbox({ pod_sandbox_id: sandboxId });
  const gone = await relister.relist();
  assert.deepEqual(brief(gone.events), [`PodSandboxChanged:${sandboxId}:none`]);
  assert.deepEqual(gone.runtimePods, []);
});

test('one pod\'s relist reports that pod only; the full relist after it reports the rest, and nothing twice', async () => {
  const ids: Record<string, string> = {};
  for (const uid of ['pod-a', 'pod-b']) {
    const config = sandboxConfig(uid, { uid, labels: { 'io.kubernetes.pod.uid': uid } });
    const sandboxId = (await harness.client.runPodSandbox({ config })).pod_sandbox_id;
    ids[uid] = (
      await harness.client.createContainer({
        pod_sandbox_id: sandboxId,
        config: containerConfig('app', ['sleep', '3600'], { labels: { 'io.kubernetes.pod.uid': uid } }),
        sandbox_config: config,
      })
    ).container_id;
  }
  await relister.relist();
  for (const id of Object.values(ids)) await harness.client.startContainer({ container_id: id });

  const podA = await relister.relistPod('pod-a');
  assert.equal(podA.podUid, 'pod-a');
  assert.equal(podA.runtimePods, undefined, 'a per-pod relist says nothing of the pod set');
  assert.deepEqual(brief(podA.events), [`ContainerStarted:${ids['pod-a']}:running`]);
  const full = await relister.relist();
  assert.deepEqual(brief(full.events), [`ContainerStarted:${ids['pod-b']}:running`]);
});
