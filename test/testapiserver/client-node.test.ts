// The test API server over real HTTPS through @kubernetes/client-node, the way
// the kubelet's API source and status manager will use it: an admin creates the
// pods, the node lists its own and writes their status.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, KubeConfig, ListWatch, PatchStrategy, Watch, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { eventually, podManifest, startHarness, type Harness } from './harness.js';

describe('test apiserver with @kubernetes/client-node', () => {
  let h: Harness;
  let kc: KubeConfig;
  let core: CoreV1Api;
  let adminKc: KubeConfig;
  let admin: CoreV1Api;

  before(async () => {
    h = await startHarness({ defaultNodeName: 'node-a' });
    const file = await h.server.writeKubeconfig(path.join(h.dir, 'node-a.kubeconfig'), { user: 'kubelet', nodeName: 'node-a' });
    kc = new KubeConfig();
    kc.loadFromFile(file);
    core = kc.makeApiClient(CoreV1Api);
    adminKc = new KubeConfig();
    adminKc.loadFromFile(h.adminKubeconfig);
    admin = adminKc.makeApiClient(CoreV1Api);
  });
  after(() => h.close());

  it('creates, lists and patches pod status with a strategic merge patch', async () => {
    const created = await admin.createNamespacedPod({ namespace: 'default', body: podManifest('p1') as V1Pod });
    assert.equal(created.spec?.nodeName, 'node-a');
    assert.equal(created.status?.phase, 'Pending');
    assert.equal(created.spec?.containers[0].imagePullPolicy, 'IfNotPresent');

    const list = await core.listNamespacedPod({ namespace: 'default', fieldSelector: 'spec.nodeName=node-a' });
    assert.deepEqual(list.items.map((p) => p.metadata?.name), ['p1']);
    assert.ok(Number(list.metadata?.resourceVersion) >= Number(created.metadata?.resourceVersion));

    const patch = {
      metadata: { uid: created.metadata?.uid },
      status: {
        '$setElementOrder/conditions': [{ type: 'PodScheduled' }, { type: 'Ready' }],
        phase: 'Running',
        podIP: '10.0.0.9',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [{ name: 'main', ready: true, restartCount: 0, image: 'busybox:1.36', imageID: '', state: { running: {} } }],
      },
    };
    const patched = await core.patchNamespacedPodStatus({ name: 'p1', namespace: 'default', body: patch }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch));
    assert.equal(patched.status?.phase, 'Running');
    const types = patched.status?.conditions?.map((c) => c.type);
    assert.deepEqual(types, ['PodScheduled', 'Ready'], 'conditions merge by type: the scheduler condition stays');
    assert.equal(patched.spec?.containers.length, 1);
  });

  it('rejects a status patch whose UID precondition names another pod', async () => {
    await assert.rejects(
      core.patchNamespacedPodStatus({ name: 'p1', namespace: 'default', body: { metadata: { uid: 'other' }, status: { phase: 'Failed' } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)),
      (err: { code?: number }) => err.code === 409,
    );
  });

  it('resumes a watch from a resourceVersion', async () => {
    const list = await admin.listNamespacedPod({ namespace: 'default' });
    await admin.createNamespacedPod({ namespace: 'default', body: podManifest('p2') as V1Pod });
    await admin.deleteNamespacedPod({ name: 'p2', namespace: 'default', gracePeriodSeconds: 0 });
    const seen: string[] = [];
    const watch = new Watch(adminKc);
    const req = await watch.watch('/api/v1/namespaces/default/pods', { resourceVersion: list.metadata?.resourceVersion }, (type, obj: V1Pod) => seen.push(`${type} ${obj.metadata?.name}`), () => {});
    await eventually(() => seen.length >= 2);
    req.abort();
    assert.deepEqual(seen, ['ADDED p2', 'DELETED p2']);
  });

  it('keeps a ListWatch cache in step, and relists after 410 Gone', async () => {
    const small = await startHarness({ watchHistorySize: 2 });
    try {
      const skc = new KubeConfig();
      skc.loadFromFile(small.adminKubeconfig);
      const score = skc.makeApiClient(CoreV1Api);
      await score.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'a' }, data: { k: '1' } } });
      const informer = new ListWatch('/api/v1/namespaces/default/configmaps', new Watch(skc), () => score.listNamespacedConfigMap({ namespace: 'default' }), false);
      await informer.start();
      assert.ok(informer.get('a', 'default'));
      await score.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'b' } } });
      await eventually(() => informer.get('b', 'default'));

      // An old resourceVersion on a raw watch: the ERROR event carries 410 Expired.
      for (const name of ['c', 'd', 'e']) await score.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name } } });
      const errors: Array<{ code?: number; reason?: string }> = [];
      const req = await new Watch(skc).watch('/api/v1/namespaces/default/configmaps', { resourceVersion: '1' }, (type, obj) => {
        if (type === 'ERROR') errors.push(obj);
      }, () => {});
      await eventually(() => errors.length > 0);
      req.abort();
      assert.equal(errors[0].code, 410);
      assert.equal(errors[0].reason, 'Expired');
      await eventually(() => informer.get('e', 'default'));

      // The server goes away; while it is down more is written than the history keeps,
      // so the informer's resumed watch gets 410 and it must relist to see 'g'.
      const configMaps = { key: 'configmaps', group: '', plural: 'configmaps' };
      await small.server.restart({
        whileDown: () => {
          for (const name of ['f', 'g', 'h']) small.server.store.create(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });
          small.server.store.remove(configMaps, 'default', 'a');
        },
      });
      await eventually(() => informer.get('g', 'default') && !informer.get('a', 'default'), 20_000);
      await informer.stop();
    } finally {
      await small.close();
    }
  });
});
