// API semantics over HTTPS: Status errors, conflicts, selectors, filtered
// watches, 410 Gone, bookmarks, pod deletion rules, leases, restart.
import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, describe, it } from 'node:test';
import { eventually, podManifest, startHarness, type Harness } from './harness.js';

/** Opens a raw watch and collects its events until closed. */
async function openWatch(h: Harness, urlPath: string): Promise<{ events: Array<{ type: string; object: any }>; close(): void }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const admin = await h.server.clientCredentials({ user: 'admin' });
  const events: Array<{ type: string; object: any }> = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  let buffered = '';
  const req = https.get(new URL(urlPath, h.server.url), { ca: admin.caPem, cert: admin.certPem, key: admin.keyPem }, (res) => {
    res.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) events.push(JSON.parse(line));
    });
  });
  req.on('error', () => {});
  return { events, close: () => req.destroy() };
}

describe('test apiserver semantics', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ watchHistorySize: 5, bookmarkIntervalMs: 100 });
  });
  after(() => h.close());

  it('answers NotFound, AlreadyExists and Conflict with Status objects', async () => {
    const missing = await h.request('GET', '/api/v1/namespaces/default/pods/nope');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.kind, 'Status');
    assert.equal(missing.body.apiVersion, 'v1');
    assert.equal(missing.body.reason, 'NotFound');
    assert.equal(missing.body.message, 'pods "nope" not found');
    assert.deepEqual(missing.body.details, { name: 'nope', kind: 'pods' });

    assert.equal((await h.request('POST', '/api/v1/namespaces/default/pods', { body: podManifest('a') })).status, 201);
    const dup = await h.request('POST', '/api/v1/namespaces/default/pods', { body: podManifest('a') });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.reason, 'AlreadyExists');

    const noNamespace = await h.request('POST', '/api/v1/namespaces/ghost/pods', { body: podManifest('a') });
    assert.equal(noNamespace.status, 404);
    assert.equal(noNamespace.body.message, 'namespaces "ghost" not found');
  });

  it('enforces resourceVersion on lease updates', async () => {
    const base = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
    const created = await h.request('POST', base, { body: { metadata: { name: 'node-1' }, spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40 } } });
    assert.equal(created.status, 201);
    const renewed = await h.request('PUT', `${base}/node-1`, { body: { ...created.body, spec: { ...created.body.spec, renewTime: '2025-01-01T00:00:00.000000Z' } } });
    assert.equal(renewed.status, 200);
    const stale = await h.request('PUT', `${base}/node-1`, { body: created.body });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, 'Conflict');
    const list = await h.request('GET', base);
    assert.equal(list.body.kind, 'LeaseList');
    assert.equal(list.body.items.length, 1);
  });

  it('filters lists by field and label selectors', async () => {
    await h.request('POST', '/api/v1/namespaces/default/pods', { body: { ...podManifest('b', { nodeName: 'n2' }), metadata: { name: 'b', labels: { app: 'b', tier: 'db' } } } });
    const byNode = await h.request('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn2');
    assert.deepEqual(byNode.body.items.map((p: { metadata: { name: string } }) => p.metadata.name), ['b']);
    const unbound = await h.request('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3D,metadata.namespace%3Ddefault');
    assert.deepEqual(unbound.body.items.map((p: { metadata: { name: string } }) => p.metadata.name), ['a']);
    const bySet = await h.request('GET', `/api/v1/namespaces/default/pods?labelSelector=${encodeURIComponent('app in (a,b),tier notin (web),!gone')}`);
    assert.equal(bySet.body.items.length, 2);
    const byExists = await h.request('GET', `/api/v1/namespaces/default/pods?labelSelector=tier`);
    assert.equal(byExists.body.items.length, 1);
  });

  it('shows a filtered watch a pod being bound as ADDED, and sends bookmarks', async () => {
    const list = await h.request('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1');
    const watch = await openWatch(h, `/api/v1/pods?watch=1&allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dn1&resourceVersion=${list.body.metadata.resourceVersion}`);
    try {
      const bound = await h.request('POST', '/api/v1/namespaces/default/pods/a/binding', { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'a' }, target: { kind: 'Node', name: 'n1' } } });
      assert.equal(bound.status, 201);
      await eventually(() => watch.events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'a'));
      await eventually(() => watch.events.some((e) => e.type === 'BOOKMARK'));
      const bookmark = watch.events.find((e) => e.type === 'BOOKMARK');
      assert.equal(bookmark?.object.kind, 'Pod');
      assert.ok(Number(bookmark?.object.metadata.resourceVersion) >= Number(list.body.metadata.resourceVersion));
      assert.ok(!watch.events.some((e) => e.object.metadata?.name === 'b'), 'pods on other nodes stay out');
    } finally {
      watch.close();
    }
  });

  it('deletes an unbound pod at once, and marks a bound one until grace 0', async () => {
    await h.request('POST', '/api/v1/namespaces/default/pods', { body: podManifest('unbound') });
    assert.equal((await h.request('DELETE', '/api/v1/namespaces/default/pods/unbound')).status, 200);
    assert.equal((await h.request('GET', '/api/v1/namespaces/default/pods/unbound')).status, 404);

    const marked = await h.request('DELETE', '/api/v1/namespaces/default/pods/b', { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 10 } });
    assert.equal(marked.status, 200, JSON.stringify(marked.body));
    assert.equal(marked.body.metadata.deletionGracePeriodSeconds, 10);
    const longer = await h.request('DELETE', '/api/v1/namespaces/default/pods/b?gracePeriodSeconds=20');
    assert.equal(longer.body.metadata.deletionGracePeriodSeconds, 10, 'a longer grace period does not extend it');
    assert.equal((await h.request('DELETE', '/api/v1/namespaces/default/pods/b?gracePeriodSeconds=0')).status, 200);
    assert.equal((await h.request('GET', '/api/v1/namespaces/default/pods/b')).status, 404);
  });

  it('answers a watch from a resourceVersion older than the history with 410 Expired', async () => {
    for (let i = 0; i < 8; i++) await h.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `cm-${i}` } } });
    const watch = await openWatch(h, '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=2');
    try {
      await eventually(() => watch.events.length > 0);
      assert.equal(watch.events[0].type, 'ERROR');
      assert.deepEqual({ code: watch.events[0].object.code, reason: watch.events[0].object.reason }, { code: 410, reason: 'Expired' });
    } finally {
      watch.close();
    }
  });

  it('keeps state and port across a restart', async () => {
    const before = await h.request('GET', '/api/v1/namespaces/default/configmaps');
    const url = h.server.url;
    await h.server.restart();
    assert.equal(h.server.url, url);
    const afterRestart = await h.request('GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(afterRestart.body.metadata.resourceVersion, before.body.metadata.resourceVersion);
    assert.equal(afterRestart.body.items.length, before.body.items.length);
    assert.ok((h.server.requestCount()['list configmaps'] ?? 0) >= 2);
  });
});
