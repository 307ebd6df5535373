// The Secrets and ConfigMaps of a node's pods, end to end: a real shardlet process
// in cluster mode against the test API server, on the simulated runtime. Under
// kube-apiserver's Node authorizer a node may read only the objects its pods
// reference, by name; this checks, from the server's request log, that shardlet
// asks for nothing else (every list and watch carries `metadata.name=<name>` of a
// referenced object), that it holds one watch per referenced object and lets it go
// when the last pod referring to it is gone, that an immutable object is not
// watched once seen, that a changed ConfigMap reaches the pod's volume, and that a
// pod whose Secret is missing waits in ContainerCreating with upstream's FailedMount
// message and starts once the Secret is created.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { loadKubeClients, type KubeClients } from '../../src/main/cluster/apiclient/kube-client.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import { startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { removeWorkDir } from '../helpers/remove-work-dir.js';
import { assertReadsOnlyByName, objectId, openObjectWatchesOf, stoppedWatching, waitUntilUnwatched } from './api-object-requests.js';
import { testNoRefusals } from '../helpers/no-refusals.js';

const NODE = 'watch-node';
const NS = 'default';
const TIMEOUT_MS = 60_000;
const PODS = { key: 'pods', group: '', plural: 'pods' };
const EVENTS = { key: 'events', group: '', plural: 'events' };

let workDir: string;
let sim: SimRuntime;
let api: TestApiServer;
let admin: KubeClients;
let kubelet: KubeletProcess;
/** Every object some pod on the node referred to during the file: all the node may ever have asked for. */
const referenced = new Set<string>();

function podSpec(name: string, spec: Partial<V1Pod['spec']>): V1Pod {
  return {
    metadata: { name, namespace: NS },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'main', image: 'busybox:1.35', command: ['sleep', '3600'] }],
      ...spec,
    },
  };
}

async function createPod(pod: V1Pod, refs: string[]): Promise<string> {
  for (const ref of refs) referenced.add(ref);
  const created = await admin.core.createNamespacedPod({ namespace: NS, body: pod });
  return created.metadata!.uid!;
}

function apiPod(name: string): V1Pod | undefined {
  return api.store.get(PODS, NS, name) as V1Pod | undefined;
}

function isRunning(name: string): boolean {
  const status = apiPod(name)?.status;
  return status?.phase === 'Running' && status.containerStatuses?.[0]?.state?.running !== undefined;
}

async function deletePod(name: string): Promise<void> {
  await admin.core.deleteNamespacedPod({ name, namespace: NS, gracePeriodSeconds: 1 });
  await waitUntil(async () => apiPod(name) === undefined, TIMEOUT_MS, `${name} gone from the API`);
}

/** A file of the pod's API volume as the node holds it (the directory the runtime mounts into the container). */
function volumeFile(uid: string, plugin: string, volume: string, file: string): string | undefined {
  try {
    return readFileSync(join(kubelet.rootDir, 'pods', uid, 'volumes', `kubernetes.io~${plugin}`, volume, file), 'utf8');
  } catch {
    return undefined;
  }
}

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-object-watches-'));
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  api = await startTestApiServer({ defaultNodeName: NODE });
  admin = loadKubeClients(await api.writeKubeconfig(join(workDir, 'admin.kubeconfig'), { user: 'admin' }), 0, 0);
  const nodeKubeconfig = await api.writeKubeconfig(join(workDir, 'node.kubeconfig'), { user: 'kubelet', nodeName: NODE });
  kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 2, nodeName: NODE, workDir, extraArgs: [`--kubeconfig=${nodeKubeconfig}`] });
});

after(async () => {
  await kubelet?.stop();
  await api?.stop();
  await sim?.close();
  if (workDir) await removeWorkDir(workDir);
});

test('each referenced Secret and ConfigMap is watched by name, an immutable one not once seen, and a change reaches the volume', async () => {
  await admin.core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'app-config' }, data: { greeting: 'hello v1' } } });
  await admin.core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'app-secret' }, stringData: { password: 's3cret' } } });
  await admin.core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'frozen' }, immutable: true, stringData: { token: 'forever' } } });
  await admin.core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'not-referenced' }, stringData: { a: 'b' } } });
  const uid = await createPod(
    podSpec('reader', {
      volumes: [
        { name: 'config', configMap: { name: 'app-config' } },
        { name: 'creds', secret: { secretName: 'app-secret' } },
        { name: 'maybe', secret: { secretName: 'optional-absent', optional: true } },
      ],
      containers: [
        {
          name: 'main',
          image: 'busybox:1.35',
          command: ['sleep', '3600'],
          env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'frozen', key: 'token' } } }],
          volumeMounts: [{ name: 'config', mountPath: '/etc/app' }, { name: 'creds', mountPath: '/etc/creds' }, { name: 'maybe', mountPath: '/etc/maybe' }],
        },
      ],
    }),
    [objectId('configmaps', NS, 'app-config'), objectId('secrets', NS, 'app-secret'), objectId('secrets', NS, 'optional-absent'), objectId('secrets', NS, 'frozen')],
  );
  await waitUntil(async () => isRunning('reader'), TIMEOUT_MS, 'reader Running (an optional Secret that is missing does not hold it)');
  assert.equal(volumeFile(uid, 'configmap', 'config', 'greeting'), 'hello v1');
  assert.equal(volumeFile(uid, 'secret', 'creds', 'password'), 's3cret');

  const expectedWatches = [objectId('configmaps', NS, 'app-config'), objectId('secrets', NS, 'app-secret'), objectId('secrets', NS, 'optional-absent')];
  await waitUntilUnwatched(api, NODE, kubelet.logs, [{ id: objectId('secrets', NS, 'frozen'), reason: 'immutable' }], TIMEOUT_MS);
  await waitUntil(async () => JSON.stringify(openObjectWatchesOf(api, NODE)) === JSON.stringify(expectedWatches), TIMEOUT_MS, 'one watch per mutable referenced object');
  const requests = assertReadsOnlyByName(api, NODE, referenced);
  assert.ok(requests.some((r) => r.verb === 'list' && r.resource === 'secrets' && r.fieldSelector === 'metadata.name=frozen'), 'the immutable Secret was listed by name');

  await admin.core.replaceNamespacedConfigMap({ name: 'app-config', namespace: NS, body: { metadata: { name: 'app-config' }, data: { greeting: 'hello v2' } } });
  await waitUntil(async () => volumeFile(uid, 'configmap', 'config', 'greeting') === 'hello v2', TIMEOUT_MS, 'the ConfigMap change in the volume');
  assert.ok(!openObjectWatchesOf(api, NODE).includes(objectId('secrets', NS, 'frozen')), 'the immutable Secret is still not watched');
});

test('a pod whose Secret is missing waits in ContainerCreating with FailedMount, and starts once it is created', async () => {
  await createPod(
    podSpec('waiter', {
      volumes: [{ name: 'late-creds', secret: { secretName: 'created-later' } }, { name: 'config', configMap: { name: 'app-config' } }],
    }),
    [objectId('secrets', NS, 'created-later'), objectId('configmaps', NS, 'app-config')],
  );
  const message = 'MountVolume.SetUp failed for volume "late-creds" : secret "created-later" not found';
  await waitUntil(async () => {
    const events = api.store.list(EVENTS, NS).items as Array<{ reason?: string; message?: string; involvedObject?: { name?: string } }>;
    return events.some((event) => event.involvedObject?.name === 'waiter' && event.reason === 'FailedMount' && event.message === message);
  }, TIMEOUT_MS, `FailedMount "${message}"`);
  const waiting = apiPod('waiter')?.status?.containerStatuses?.[0]?.state?.waiting;
  assert.equal(waiting?.reason, 'ContainerCreating');
  assert.equal(apiPod('waiter')?.status?.phase, 'Pending');

  await admin.core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'created-later' }, stringData: { key: 'value' } } });
  await waitUntil(async () => isRunning('waiter'), TIMEOUT_MS, 'waiter Running once its Secret exists');
  assertReadsOnlyByName(api, NODE, referenced);
});

test('a watch goes when the last pod referring to its object does', async () => {
  const expectedBefore = [
    objectId('configmaps', NS, 'app-config'),
    objectId('secrets', NS, 'app-secret'),
    objectId('secrets', NS, 'created-later'),
    objectId('secrets', NS, 'optional-absent'),
  ];
  await waitUntil(async () => JSON.stringify(openObjectWatchesOf(api, NODE)) === JSON.stringify(expectedBefore), TIMEOUT_MS, 'the watches of reader and waiter');

  await deletePod('reader');
  await waitUntilUnwatched(api, NODE, kubelet.logs, [
    { id: objectId('secrets', NS, 'app-secret'), reason: 'released' },
    { id: objectId('secrets', NS, 'optional-absent'), reason: 'released' },
  ], TIMEOUT_MS);
  // app-config is still referenced by waiter.
  const expectedAfter = [objectId('configmaps', NS, 'app-config'), objectId('secrets', NS, 'created-later')];
  await waitUntil(async () => JSON.stringify(openObjectWatchesOf(api, NODE)) === JSON.stringify(expectedAfter), TIMEOUT_MS, 'the shared watch kept');
  assert.ok(!stoppedWatching(kubelet.logs, objectId('configmaps', NS, 'app-config'), 'released'), 'the ConfigMap waiter still uses was never released');

  await deletePod('waiter');
  await waitUntilUnwatched(api, NODE, kubelet.logs, [
    { id: objectId('configmaps', NS, 'app-config'), reason: 'released' },
    { id: objectId('secrets', NS, 'created-later'), reason: 'released' },
  ], TIMEOUT_MS);
  assert.deepEqual(openObjectWatchesOf(api, NODE), [], 'no Secret or ConfigMap watched once no pod refers to one');
  assertReadsOnlyByName(api, NODE, referenced);
});

test('a pod that finished releases its watches while it is still in the API, as SyncTerminatedPod', async () => {
  await admin.core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'job-secret' }, stringData: { k: 'v' } } });
  const job = podSpec('job', { restartPolicy: 'Never', volumes: [{ name: 'creds', secret: { secretName: 'job-secret' } }] });
  job.spec!.containers[0].command = ['sh', '-c', 'sleep 2; exit 0'];
  await createPod(job, [objectId('secrets', NS, 'job-secret')]);
  await waitUntil(async () => openObjectWatchesOf(api, NODE).includes(objectId('secrets', NS, 'job-secret')), TIMEOUT_MS, 'the job\'s Secret watched while it runs');
  await waitUntil(async () => apiPod('job')?.status?.phase === 'Succeeded', TIMEOUT_MS, 'job Succeeded');
  await waitUntilUnwatched(api, NODE, kubelet.logs, [{ id: objectId('secrets', NS, 'job-secret'), reason: 'released' }], TIMEOUT_MS);
  assert.ok(apiPod('job'), 'the pod is still in the API');
  assertReadsOnlyByName(api, NODE, referenced);
  await deletePod('job');
});

testNoRefusals(() => [api]);
