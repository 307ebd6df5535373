// metadata.generation of pods as kube-apiserver keeps it (KEP 5067): 1 on create,
// +1 for each write that changes the spec, +1 when a graceful delete first marks
// the pod; never set by the client, and untouched by status writes, metadata-only
// changes and bindings.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { podManifest, startHarness, type Harness } from './harness.js';

const PODS = '/api/v1/namespaces/default/pods';
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';

describe('pod metadata.generation', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const generationOf = async (name: string) => (await h.request('GET', `${PODS}/${name}`)).body.metadata.generation as number;

  it('starts at 1 whatever the client sends', async () => {
    const created = await h.request('POST', PODS, { body: { ...podManifest('gen-create'), metadata: { name: 'gen-create', generation: 7 } } });
    assert.equal(created.status, 201);
    assert.equal(created.body.metadata.generation, 1);
  });

  it('moves on with each spec change, through PUT and both patch kinds, and only then', async () => {
    const created = (await h.request('POST', PODS, { body: podManifest('gen-spec', { nodeName: 'node-1' }) })).body;
    const relabelled = await h.request('PUT', `${PODS}/gen-spec`, { body: { ...created, metadata: { ...created.metadata, labels: { app: 'other' }, generation: 5 } } });
    assert.equal(relabelled.status, 200);
    assert.equal(relabelled.body.metadata.generation, 1, 'a metadata-only change, and a client-sent generation, leave it');
    const newImage = await h.request('PATCH', `${PODS}/gen-spec`, { contentType: STRATEGIC, body: { spec: { containers: [{ name: 'main', image: 'busybox:1.37' }] } } });
    assert.equal(newImage.status, 200);
    assert.equal(newImage.body.metadata.generation, 2);
    const deadline = await h.request('PATCH', `${PODS}/gen-spec`, { contentType: MERGE, body: { spec: { activeDeadlineSeconds: 600 } } });
    assert.equal(deadline.body.metadata.generation, 3);
    const same = await h.request('PATCH', `${PODS}/gen-spec`, { contentType: MERGE, body: { spec: { activeDeadlineSeconds: 600 } } });
    assert.equal(same.body.metadata.generation, 3, 'a write that leaves the spec as it was');
    const status = await h.request('PATCH', `${PODS}/gen-spec/status`, { contentType: STRATEGIC, body: { status: { phase: 'Running', observedGeneration: 3 } } });
    assert.equal(status.status, 200);
    assert.equal(status.body.metadata.generation, 3, 'a status write');
    assert.equal(status.body.status.observedGeneration, 3);
    const refused = await h.request('PATCH', `${PODS}/gen-spec`, { contentType: MERGE, body: { spec: { restartPolicy: 'Never' } } });
    assert.equal(refused.status, 422, 'a spec change validation refuses');
    assert.equal(await generationOf('gen-spec'), 3);
  });

  it('is left by a binding and moved on once by a graceful delete', async () => {
    assert.equal((await h.request('POST', PODS, { body: podManifest('gen-delete') })).status, 201);
    const bound = await h.request('POST', `${PODS}/gen-delete/binding`, { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'gen-delete' }, target: { kind: 'Node', name: 'node-1' } } });
    assert.equal(bound.status, 201);
    assert.equal(await generationOf('gen-delete'), 1);
    const marked = await h.request('DELETE', `${PODS}/gen-delete`, { body: { gracePeriodSeconds: 30 } });
    assert.equal(marked.status, 200);
    assert.ok(marked.body.metadata.deletionTimestamp);
    assert.equal(marked.body.metadata.generation, 2);
    const shortened = await h.request('DELETE', `${PODS}/gen-delete`, { body: { gracePeriodSeconds: 10 } });
    assert.equal(shortened.body.metadata.generation, 2, 'a shorter grace period later does not move it again');
  });
});
