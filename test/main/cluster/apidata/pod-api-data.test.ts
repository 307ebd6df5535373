// PodApiDataProvider against the project's test API server over HTTPS, with the
// kubelet's client certificate; objects are created and changed as an admin.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { V1PodSpec } from '@kubernetes/client-node';
import { pino } from 'pino';
import { loadKubeClients, type KubeClients } from '../../../../src/main/cluster/apiclient/kube-client.js';
import { PodApiDataProvider } from '../../../../src/main/cluster/apidata/pod-api-data.js';
import { serviceAccountTokenKey } from '../../../../src/shared/shard-protocol.js';
import type { Pod } from '../../../../src/shared/types.js';
import type { KubeObject } from '../../../../src/testapiserver/index.js';
import type { RecordedRequest } from '../../../../src/testapiserver/request-log.js';
import { startTestApiServer, type TestApiServer } from '../../../../src/testapiserver/server.js';
import { waitUntil } from '../../../helpers/kubelet-process.js';

const NODE = 'apidata-node';
const WAIT_MS = 15_000;
const TOKEN_REQUESTS = 'create serviceaccounts/token';
const PODS = { key: 'pods', group: '', plural: 'pods' };

let workDir: string;
let api: TestApiServer;
let admin: KubeClients;
let kubelet: KubeClients;
let provider: PodApiDataProvider;
const changedUids: string[] = [];

/**
 * The pod as the kubelet is handed it; it is also stored in the API server, bound to
 * NODE, as kube-apiserver's Node authorizer needs before it lets the node read what
 * the pod references.
 */
function podIn(namespace: string, uid: string, spec: Omit<V1PodSpec, 'containers'> & Partial<Pick<V1PodSpec, 'containers'>>): Pod {
  const pod: Pod = { metadata: { name: `pod-${uid}`, namespace, uid }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } };
  // Stored as the API server's admission leaves it: bound to the node, its service account defaulted (the Node authorizer's graph follows that edge).
  const stored = { apiVersion: 'v1', kind: 'Pod', ...pod, metadata: { name: `pod-${uid}`, namespace, uid }, spec: { serviceAccountName: 'default', ...pod.spec, nodeName: NODE } } as KubeObject;
  if (api.store.get(PODS, namespace, `pod-${uid}`)) api.store.update(PODS, stored);
  else api.store.create(PODS, stored);
  return pod;
}

async function createNamespace(name: string): Promise<void> {
  await admin.core.createNamespace({ body: { metadata: { name } } });
}

/** The watches the kubelet holds open in the namespace now, as the server sees them. */
function openWatchesIn(namespace: string): RecordedRequest[] {
  return api.openWatches().filter((w) => w.namespace === namespace && w.user === `system:node:${NODE}`);
}

/** Waits for onObjectChanged to name the pod, and clears what was recorded. */
async function waitForChange(uid: string): Promise<void> {
  await waitUntil(async () => changedUids.includes(uid), WAIT_MS, `onObjectChanged([${uid}])`);
  changedUids.length = 0;
}

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-apidata-'));
  api = await startTestApiServer();
  admin = loadKubeClients(await api.writeKubeconfig(join(workDir, 'admin.kubeconfig'), { user: 'admin' }), 0, 0);
  kubelet = loadKubeClients(await api.writeKubeconfig(join(workDir, 'kubelet.kubeconfig'), { user: 'kubelet', nodeName: NODE }), 50, 100);
  provider = new PodApiDataProvider({
    clients: kubelet,
    logger: pino({ level: 'silent' }),
    onObjectChanged: (uids) => changedUids.push(...uids),
  });
});

after(async () => {
  provider?.stop();
  await api?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

test('an existing ConfigMap and a missing Secret; the Secret appears, the ConfigMap changes', async () => {
  const ns = 'apidata-a';
  await createNamespace(ns);
  await admin.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'app-config' }, data: { mode: 'blue' } } });
  const pod = podIn(ns, 'uid-a', {
    volumes: [{ name: 'config', configMap: { name: 'app-config' } }],
    containers: [{ name: 'c', env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db-password', key: 'password' } } }] }],
  });

  const first = await provider.dataFor(pod);
  assert.deepEqual(first.configMaps, { 'app-config': { data: { mode: 'blue' }, binaryData: {} } });
  assert.deepEqual(first.secrets, { 'db-password': null });
  assert.deepEqual(first.serviceAccountTokens, {});

  changedUids.length = 0;
  await admin.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'db-password' }, stringData: { password: 's3cret' } } });
  await waitForChange('uid-a');
  const second = await provider.dataFor(pod);
  assert.deepEqual(second.secrets, { 'db-password': { type: 'Opaque', data: { password: Buffer.from('s3cret').toString('base64') } } });

  await admin.core.replaceNamespacedConfigMap({ name: 'app-config', namespace: ns, body: { metadata: { name: 'app-config' }, data: { mode: 'green' } } });
  await waitForChange('uid-a');
  assert.deepEqual((await provider.dataFor(pod)).configMaps['app-config'], { data: { mode: 'green' }, binaryData: {} });

  await admin.core.deleteNamespacedConfigMap({ name: 'app-config', namespace: ns });
  await waitForChange('uid-a');
  assert.equal((await provider.dataFor(pod)).configMaps['app-config'], null);
  provider.forgetPod('uid-a');
});

test('a change to an object no pod refers to resyncs nobody; only referring pods are named', async () => {
  const ns = 'apidata-b';
  await createNamespace(ns);
  const referring = podIn(ns, 'uid-b1', { volumes: [{ name: 'v', configMap: { name: 'watched' } }] });
  const other = podIn(ns, 'uid-b2', { volumes: [{ name: 'v', configMap: { name: 'other' } }] });
  await provider.dataFor(referring);
  await provider.dataFor(other);
  changedUids.length = 0;
  await admin.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'unrelated' }, data: {} } });
  await admin.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'watched' }, data: { k: 'v' } } });
  await waitForChange('uid-b1');
  assert.ok(!changedUids.includes('uid-b2'));
  provider.forgetPod('uid-b1');
  provider.forgetPod('uid-b2');
});

test('a projected service account token comes from TokenRequest and is cached', async () => {
  const ns = 'apidata-c';
  await createNamespace(ns);
  const pod = podIn(ns, 'uid-c', {
    volumes: [
      {
        name: 'kube-api-access',
        projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3607 } }, { configMap: { name: 'kube-root-ca.crt' } }] },
      },
    ],
  });
  api.resetRequestCount();
  const first = await provider.dataFor(pod);
  const second = await provider.dataFor(pod);
  const key = serviceAccountTokenKey('', 3607);
  const token = first.serviceAccountTokens[key];
  assert.ok(token?.token, 'a token');
  assert.equal(token.token.split('.').length, 3, 'a JWT');
  const lifetimeMs = new Date(token.expirationTimestamp).getTime() - Date.now();
  assert.ok(lifetimeMs > 3500_000 && lifetimeMs <= 3607_000, `expires in ~3607 s, not ${lifetimeMs} ms`);
  assert.deepEqual(second.serviceAccountTokens[key], token);
  assert.equal(api.requestCount()[TOKEN_REQUESTS], 1);
  assert.ok(first.configMaps['kube-root-ca.crt']?.data['ca.crt']?.includes('BEGIN CERTIFICATE'));

  const claims = JSON.parse(Buffer.from(token.token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
  assert.equal(claims.sub, `system:serviceaccount:${ns}:default`);
  assert.match(JSON.stringify(claims), /uid-c/, 'bound to the pod');
  provider.forgetPod('uid-c');
});

test('a token for a service account that does not exist is null', async () => {
  const ns = 'apidata-d';
  await createNamespace(ns);
  const pod = podIn(ns, 'uid-d', {
    serviceAccountName: 'missing',
    volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token', audience: 'vault' } }] } }],
  });
  const data = await provider.dataFor(pod);
  assert.deepEqual(data.serviceAccountTokens, { [serviceAccountTokenKey('vault', 3600)]: null });
  provider.forgetPod('uid-d');
});

test('an API server restart: the cache keeps answering, then catches up with what changed meanwhile', async () => {
  const ns = 'apidata-e';
  await createNamespace(ns);
  await admin.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'settings' }, data: { v: '1' } } });
  const pod = podIn(ns, 'uid-e', { containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'settings' } }, { secretRef: { name: 'later' } }] }] });
  const before = await provider.dataFor(pod);
  assert.deepEqual(before.configMaps.settings?.data, { v: '1' });
  assert.equal(before.secrets.later, null);

  changedUids.length = 0;
  await api.restart({
    whileDown: async () => {
      const whileDown = await provider.dataFor(pod);
      assert.deepEqual(whileDown, before, 'last known data while the API server is away');
      const ref = { key: 'configmaps', group: '', plural: 'configmaps' };
      const stored = api.store.get(ref, ns, 'settings')!;
      api.store.update(ref, { ...stored, data: { v: '2' } });
    },
  });
  await waitForChange('uid-e');
  assert.deepEqual((await provider.dataFor(pod)).configMaps.settings?.data, { v: '2' });

  // And the watches are live again.
  await admin.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'later' }, stringData: { a: 'b' } } });
  await waitForChange('uid-e');
  assert.deepEqual((await provider.dataFor(pod)).secrets.later?.data, { a: Buffer.from('b').toString('base64') });
  provider.forgetPod('uid-e');
});

test('forgetPod releases a watch once no pod refers to its object any more', async () => {
  const ns = 'apidata-f';
  await createNamespace(ns);
  const one = podIn(ns, 'uid-f1', { volumes: [{ name: 'v', configMap: { name: 'shared' } }, { name: 's', secret: { secretName: 'only-one' } }] });
  const two = podIn(ns, 'uid-f2', { volumes: [{ name: 'v', configMap: { name: 'shared' } }] });
  const bare = podIn(ns, 'uid-f3', {});
  await provider.dataFor(one);
  await provider.dataFor(two);
  assert.deepEqual(await provider.dataFor(bare), { configMaps: {}, secrets: {}, serviceAccountTokens: {} });
  const watched = (): string[] => provider.watchedObjects().filter((key) => key.includes(`/${ns}/`));
  assert.deepEqual(watched(), [`configmaps/${ns}/shared`, `secrets/${ns}/only-one`]);
  await waitUntil(async () => openWatchesIn(ns).length === 2, WAIT_MS, 'two watches open on the server');

  provider.forgetPod('uid-f1');
  assert.deepEqual(watched(), [`configmaps/${ns}/shared`]);
  await waitUntil(async () => openWatchesIn(ns).length === 1, WAIT_MS, 'the Secret\'s watch closed on the server');
  assert.equal(openWatchesIn(ns)[0]?.fieldSelector, 'metadata.name=shared');
  provider.forgetPod('uid-f2');
  assert.deepEqual(watched(), []);
  await waitUntil(async () => openWatchesIn(ns).length === 0, WAIT_MS, 'no watch open on the server');

  // A later pod watches its own object; the one the forgotten pods used changes
  // first, then the later pod's: once the second resync is in, the first would have been.
  const later = podIn(ns, 'uid-f4', { volumes: [{ name: 'v', configMap: { name: 'barrier' } }] });
  await provider.dataFor(later);
  changedUids.length = 0;
  await admin.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'shared' }, data: {} } });
  await admin.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'barrier' }, data: {} } });
  await waitUntil(async () => changedUids.includes('uid-f4'), WAIT_MS, 'onObjectChanged([uid-f4])');
  assert.deepEqual(changedUids, ['uid-f4'], 'forgotten pods are not resynced');
  provider.forgetPod('uid-f4');
  provider.forgetPod('uid-f3');
});

test('every Secret and ConfigMap request names one object a registered pod refers to', async () => {
  const ns = 'apidata-h';
  await createNamespace(ns);
  await admin.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'pull' }, type: 'Opaque', stringData: { a: 'b' } } });
  await admin.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'not-referenced' }, stringData: { a: 'b' } } });
  api.clearRequestLog();
  const pod = podIn(ns, 'uid-h', {
    imagePullSecrets: [{ name: 'pull' }],
    volumes: [{ name: 'p', projected: { sources: [{ configMap: { name: 'kube-root-ca.crt' } }, { secret: { name: 'absent', optional: true } }] } }],
    containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'env-config' } }] }],
  });
  const data = await provider.dataFor(pod);
  assert.equal(data.secrets.pull?.type, 'Opaque');
  assert.equal(data.secrets.absent, null);
  assert.equal(data.configMaps['env-config'], null);
  assert.ok(data.configMaps['kube-root-ca.crt']);
  await waitUntil(async () => openWatchesIn(ns).length === 4, WAIT_MS, 'four watches open');

  const referenced = new Set(['secrets/pull', 'secrets/absent', 'configmaps/kube-root-ca.crt', 'configmaps/env-config']);
  const objectRequests = api.requestLog().filter((r) => r.resource === 'secrets' || r.resource === 'configmaps');
  const shapes = objectRequests.map((r) => `${r.verb} ${r.resource} ${r.namespace} ${r.fieldSelector ?? '-'}`);
  for (const request of objectRequests) {
    assert.equal(request.user, `system:node:${NODE}`);
    assert.ok(request.verb === 'list' || request.verb === 'watch', `${request.verb}: only list and watch`);
    assert.equal(request.namespace, ns, 'never across namespaces');
    const name = /^metadata\.name=([^,]+)$/.exec(request.fieldSelector ?? '')?.[1];
    assert.ok(name && referenced.has(`${request.resource}/${name}`), `names a referenced object: ${shapes.join('; ')}`);
  }
  for (const key of referenced) {
    const [resource, name] = key.split('/');
    for (const verb of ['list', 'watch']) {
      assert.ok(objectRequests.some((r) => r.verb === verb && r.resource === resource && r.fieldSelector === `metadata.name=${name}`), `${verb} ${key}`);
    }
  }
  provider.forgetPod('uid-h');
});

test('a pod whose references change keeps the objects it still uses and releases the rest', async () => {
  const ns = 'apidata-i';
  await createNamespace(ns);
  const before = podIn(ns, 'uid-i', { volumes: [{ name: 'a', configMap: { name: 'kept' } }, { name: 'b', secret: { secretName: 'dropped' } }] });
  await provider.dataFor(before);
  await waitUntil(async () => openWatchesIn(ns).length === 2, WAIT_MS, 'two watches open');
  api.clearRequestLog();
  const after = podIn(ns, 'uid-i', { volumes: [{ name: 'a', configMap: { name: 'kept' } }, { name: 'c', secret: { secretName: 'added' } }] });
  await provider.dataFor(after);
  assert.deepEqual(provider.watchedObjects().filter((key) => key.includes(`/${ns}/`)), [`configmaps/${ns}/kept`, `secrets/${ns}/added`]);
  await waitUntil(async () => openWatchesIn(ns).length === 2 && openWatchesIn(ns).some((w) => w.fieldSelector === 'metadata.name=added'), WAIT_MS, 'watches of kept and added');
  assert.ok(
    !api.requestLog().some((r) => r.resource === 'configmaps' && r.namespace === ns),
    'the ConfigMap it still uses was not listed or watched again',
  );
  provider.forgetPod('uid-i');
});

test('an immutable Secret stops being watched once seen, and is still served', async () => {
  const ns = 'apidata-j';
  await createNamespace(ns);
  await admin.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'frozen' }, immutable: true, stringData: { k: 'v1' } } });
  await admin.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'mutable' }, data: { k: 'v1' } } });
  const pod = podIn(ns, 'uid-j', { volumes: [{ name: 'a', secret: { secretName: 'frozen' } }, { name: 'b', configMap: { name: 'mutable' } }] });
  const first = await provider.dataFor(pod);
  assert.deepEqual(first.secrets.frozen?.data, { k: Buffer.from('v1').toString('base64') });
  assert.deepEqual(provider.watchedObjects().filter((key) => key.includes(`/${ns}/`)), [`configmaps/${ns}/mutable`]);
  assert.deepEqual(provider.referencedObjects().filter((key) => key.includes(`/${ns}/`)), [`configmaps/${ns}/mutable`, `secrets/${ns}/frozen`]);
  await waitUntil(async () => {
    const open = openWatchesIn(ns);
    return open.length === 1 && open[0]?.resource === 'configmaps';
  }, WAIT_MS, 'only the mutable ConfigMap is watched on the server');

  // As upstream: with the reflector stopped, even a deletion is not seen; the pod keeps what it had.
  changedUids.length = 0;
  await admin.core.deleteNamespacedSecret({ name: 'frozen', namespace: ns });
  await admin.core.replaceNamespacedConfigMap({ name: 'mutable', namespace: ns, body: { metadata: { name: 'mutable' }, data: { k: 'v2' } } });
  await waitForChange('uid-j');
  const second = await provider.dataFor(pod);
  assert.deepEqual(second.configMaps.mutable?.data, { k: 'v2' });
  assert.deepEqual(second.secrets.frozen, first.secrets.frozen);
  provider.forgetPod('uid-j');
  assert.deepEqual(provider.referencedObjects().filter((key) => key.includes(`/${ns}/`)), []);
});

test('a ConfigMap made immutable later stops being watched then', async () => {
  const ns = 'apidata-k';
  await createNamespace(ns);
  await admin.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'settles' }, data: { k: 'v1' } } });
  const pod = podIn(ns, 'uid-k', { volumes: [{ name: 'a', configMap: { name: 'settles' } }] });
  await provider.dataFor(pod);
  assert.deepEqual(provider.watchedObjects().filter((key) => key.includes(`/${ns}/`)), [`configmaps/${ns}/settles`]);
  changedUids.length = 0;
  await admin.core.replaceNamespacedConfigMap({ name: 'settles', namespace: ns, body: { metadata: { name: 'settles' }, immutable: true, data: { k: 'final' } } });
  await waitForChange('uid-k');
  assert.deepEqual((await provider.dataFor(pod)).configMaps.settles?.data, { k: 'final' });
  assert.deepEqual(provider.watchedObjects().filter((key) => key.includes(`/${ns}/`)), []);
  await waitUntil(async () => openWatchesIn(ns).length === 0, WAIT_MS, 'no watch open on the server');
  provider.forgetPod('uid-k');
});

test('an object whose first list cannot happen answers null, then its pods are resynced once it is listed', async () => {
  const ns = 'apidata-g';
  await createNamespace(ns);
  await admin.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'creds' }, stringData: { k: 'v' } } });
  const patient = new PodApiDataProvider({
    clients: kubelet,
    logger: pino({ level: 'silent' }),
    onObjectChanged: (uids) => changedUids.push(...uids),
    firstListWaitMs: 200,
  });
  const pod = podIn(ns, 'uid-g', { imagePullSecrets: [{ name: 'creds' }] });
  try {
    changedUids.length = 0;
    await api.restart({
      whileDown: async () => {
        assert.deepEqual((await patient.dataFor(pod)).secrets, { creds: null });
      },
    });
    await waitForChange('uid-g');
    assert.equal((await patient.dataFor(pod)).secrets.creds?.type, 'Opaque');
  } finally {
    patient.stop();
  }
});
