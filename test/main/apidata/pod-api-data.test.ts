// PodApiDataProvider against the project's test API server over HTTPS, with the
// kubelet's client certificate; objects are created and changed as an admin.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { V1PodSpec } from '@kubernetes/client-node';
import { pino } from 'pino';
import { loadKubeClients, type KubeClients } from '../../../src/main/apiclient/kube-client.js';
import { PodApiDataProvider } from '../../../src/main/apidata/pod-api-data.js';
import { serviceAccountTokenKey } from '../../../src/shared/shard-protocol.js';
import type { Pod } from '../../../src/shared/types.js';
import { startTestApiServer, type TestApiServer } from '../../../src/testapiserver/server.js';
import { waitUntil } from '../../helpers/kubelet-process.js';

const NODE = 'apidata-node';
const WAIT_MS = 15_000;
const TOKEN_REQUESTS = 'create serviceaccounts/token';

let workDir: string;
let api: TestApiServer;
let admin: KubeClients;
let kubelet: KubeClients;
let provider: PodApiDataProvider;
const changedUids: string[] = [];

function podIn(namespace: string, uid: string, spec: Omit<V1PodSpec, 'containers'> & Partial<Pick<V1PodSpec, 'containers'>>): Pod {
  return { metadata: { name: `pod-${uid}`, namespace, uid }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } };
}

async function createNamespace(name: string): Promise<void> {
  await admin.core.createNamespace({ body: { metadata: { name } } });
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

test('forgetPod stops a namespace watch once no pod there refers to anything', async () => {
  const ns = 'apidata-f';
  await createNamespace(ns);
  const one = podIn(ns, 'uid-f1', { volumes: [{ name: 'v', configMap: { name: 'shared' } }, { name: 's', secret: { secretName: 'only-one' } }] });
  const two = podIn(ns, 'uid-f2', { volumes: [{ name: 'v', configMap: { name: 'shared' } }] });
  const bare = podIn(ns, 'uid-f3', {});
  await provider.dataFor(one);
  await provider.dataFor(two);
  assert.deepEqual(await provider.dataFor(bare), { configMaps: {}, secrets: {}, serviceAccountTokens: {} });
  const watched = (): string[] => provider.watchedNamespaces().filter((key) => key.endsWith(`/${ns}`));
  assert.deepEqual(watched(), [`configmaps/${ns}`, `secrets/${ns}`]);

  provider.forgetPod('uid-f1');
  assert.deepEqual(watched(), [`configmaps/${ns}`]);
  provider.forgetPod('uid-f2');
  assert.deepEqual(watched(), []);

  // A later pod watches the namespace again; its own ConfigMap, created after the one
  // the forgotten pods used, comes down the same watch behind it: once it has arrived,
  // any resync the first one caused has been recorded.
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

test('a namespace whose first list cannot happen answers null, then resyncs its pods once listed', async () => {
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
