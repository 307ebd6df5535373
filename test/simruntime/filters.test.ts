// ListPodSandbox / ListContainers filters: each set field must match (AND), label
// selectors match exact key=value pairs, IDs match in full or by prefix.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FullCriClient } from '../helpers/full-cri.js';
import { containerConfig, sandboxConfig, startHarness, TEST_IMAGE, type SimHarness } from './harness.js';

describe('simulated runtime: list filters', () => {
  let h: SimHarness;
  let frontId: string;
  let backId: string;
  let stoppedId: string;
  let webId: string;
  let sidecarId: string;
  let createdOnlyId: string;

  before(async () => {
    h = await startHarness();
    await h.client.pullImage({ image: { image: TEST_IMAGE } });
    frontId = (await h.client.runPodSandbox({ config: sandboxConfig('front', { labels: { tier: 'front', app: 'shop' } }) })).pod_sandbox_id;
    backId = (await h.client.runPodSandbox({ config: sandboxConfig('back', { labels: { tier: 'back', app: 'shop' } }) })).pod_sandbox_id;
    stoppedId = (await h.client.runPodSandbox({ config: sandboxConfig('old', { labels: { tier: 'front', app: 'shop' } }) })).pod_sandbox_id;
    await h.client.stopPodSandbox({ pod_sandbox_id: stoppedId });

    webId = (await h.client.createContainer({ pod_sandbox_id: frontId, config: containerConfig('web', ['sleep', '3600'], { labels: { kind: 'main' } }) }))
      .container_id;
    sidecarId = (await h.client.createContainer({ pod_sandbox_id: frontId, config: containerConfig('proxy', ['sleep', '3600'], { labels: { kind: 'sidecar' } }) }))
      .container_id;
    createdOnlyId = (await h.client.createContainer({ pod_sandbox_id: backId, config: containerConfig('db', ['sleep', '3600'], { labels: { kind: 'main' } }) }))
      .container_id;
    await h.client.startContainer({ container_id: webId });
    await h.client.startContainer({ container_id: sidecarId });
  });
  after(async () => h.close());

  const sandboxIds = async (filter: object) => (await h.client.listPodSandbox({ filter })).items.map((s) => s.id).sort();
  const containerIds = async (filter: object) => (await h.client.listContainers({ filter })).containers.map((c) => c.id).sort();

  it('lists everything without a filter', async () => {
    assert.equal((await h.client.listPodSandbox()).items.length, 3);
    assert.equal((await h.client.listContainers()).containers.length, 3);
  });

  it('filters sandboxes by id, id prefix, state and labels', async () => {
    assert.deepEqual(await sandboxIds({ id: frontId }), [frontId]);
    assert.deepEqual(await sandboxIds({ id: frontId.slice(0, 12) }), [frontId]);
    assert.deepEqual(await sandboxIds({ state: { state: 'SANDBOX_NOTREADY' } }), [stoppedId]);
    assert.deepEqual(await sandboxIds({ state: { state: 'SANDBOX_READY' } }), [frontId, backId].sort());
    assert.deepEqual(await sandboxIds({ label_selector: { tier: 'front' } }), [frontId, stoppedId].sort());
    assert.deepEqual(await sandboxIds({ label_selector: { tier: 'front' }, state: { state: 'SANDBOX_READY' } }), [frontId]);
    assert.deepEqual(await sandboxIds({ label_selector: { tier: 'fro' } }), [], 'values match exactly, not by prefix');
    assert.deepEqual(await sandboxIds({ label_selector: { tier: 'front', app: 'other' } }), [], 'all pairs must match');
    assert.deepEqual(await sandboxIds({ id: 'ffff' }), []);
  });

  it('filters containers by sandbox, state, id and labels', async () => {
    assert.deepEqual(await containerIds({ pod_sandbox_id: frontId }), [webId, sidecarId].sort());
    assert.deepEqual(await containerIds({ state: { state: 'CONTAINER_CREATED' } }), [createdOnlyId]);
    assert.deepEqual(await containerIds({ state: { state: 'CONTAINER_RUNNING' } }), [webId, sidecarId].sort());
    assert.deepEqual(await containerIds({ id: webId }), [webId]);
    assert.deepEqual(await containerIds({ label_selector: { kind: 'main' } }), [webId, createdOnlyId].sort());
    assert.deepEqual(await containerIds({ label_selector: { kind: 'main' }, pod_sandbox_id: backId }), [createdOnlyId]);
    assert.deepEqual(await containerIds({ label_selector: { 'io.kubernetes.container.name': 'proxy' } }), [sidecarId]);
  });

  it('returns labels and annotations exactly as they were given', async () => {
    const [web] = (await h.client.listContainers({ filter: { id: webId } })).containers;
    const expected = containerConfig('web', ['sleep', '3600'], { labels: { kind: 'main' } });
    assert.deepEqual(web.labels, expected.labels);
    assert.deepEqual(web.annotations, expected.annotations);
    assert.equal(web.pod_sandbox_id, frontId);
    assert.deepEqual(web.metadata, { name: 'web', attempt: 0 });
    // CriClient does not decode a listed sandbox's annotations: read the whole reply.
    const full = new FullCriClient(h.socketPath);
    const [front] = (await full.listPodSandbox({ filter: { id: frontId } }).finally(() => full.close())).items;
    assert.deepEqual(front.annotations, sandboxConfig('front').annotations);
  });
});
