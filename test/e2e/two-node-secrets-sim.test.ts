// Two nodes, one API server: a Secret used only by a pod bound to node A is never
// read by node B. Two real shardlet processes (node names A and B, each on its own
// simulated runtime, since two kubelets on one runtime stop each other's pods as
// orphans) against one test API server; each node runs a pod that mounts a Secret
// of its own, and both use one shared ConfigMap. The server's request log shows
// that each node asked only for what its own pods reference, by name: node B never
// names A's Secret and never lists a namespace. And the server, authorizing as
// kube-apiserver's Node authorizer does, refuses B when it asks with its own identity.
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
import { assertReadsOnlyByName, objectId, objectRequestsBy, openObjectWatchesOf, selectedName } from './api-object-requests.js';

const NODE_A = 'node-a';
const NODE_B = 'node-b';
const NS = 'default';
const TIMEOUT_MS = 60_000;
const PODS = { key: 'pods', group: '', plural: 'pods' };

interface Node {
  name: string;
  sim: SimRuntime;
  kubelet: KubeletProcess;
}

let workDir: string;
let api: TestApiServer;
let admin: KubeClients;
const nodes: Node[] = [];

async function startNode(name: string): Promise<Node> {
  const nodeDir = join(workDir, name);
  const sim = await startSimRuntime({ socketPath: join(workDir, `${name}.sock`) });
  const kubeconfig = await api.writeKubeconfig(join(nodeDir, 'node.kubeconfig'), { user: 'kubelet', nodeName: name });
  const kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 1, nodeName: name, workDir: nodeDir, extraArgs: [`--kubeconfig=${kubeconfig}`] });
  const node = { name, sim, kubelet };
  nodes.push(node);
  return node;
}

function podOn(nodeName: string, podName: string, secretName: string): V1Pod {
  return {
    metadata: { name: podName, namespace: NS },
    spec: {
      nodeName,
      terminationGracePeriodSeconds: 1,
      volumes: [{ name: 'creds', secret: { secretName } }, { name: 'shared', configMap: { name: 'shared-config' } }],
      containers: [{ name: 'main', image: 'busybox:1.35', command: ['sleep', '3600'], volumeMounts: [{ name: 'creds', mountPath: '/etc/creds' }] }],
    },
  };
}

function isRunning(podName: string): boolean {
  const pod = api.store.get(PODS, NS, podName) as V1Pod | undefined;
  return pod?.status?.phase === 'Running';
}

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-two-nodes-'));
  api = await startTestApiServer();
  admin = loadKubeClients(await api.writeKubeconfig(join(workDir, 'admin.kubeconfig'), { user: 'admin' }), 0, 0);
  await startNode(NODE_A);
  await startNode(NODE_B);
});

after(async () => {
  for (const node of nodes) await node.kubelet.stop();
  await api?.stop();
  for (const node of nodes) await node.sim.close();
  if (workDir) await removeWorkDir(workDir);
});

test('node B never reads the Secret of a pod bound to node A, nor lists a namespace', async () => {
  await admin.core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'shared-config' }, data: { k: 'v' } } });
  await admin.core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'a-only' }, stringData: { password: 'for-a' } } });
  await admin.core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'b-only' }, stringData: { password: 'for-b' } } });
  await admin.core.createNamespacedPod({ namespace: NS, body: podOn(NODE_A, 'on-a', 'a-only') });
  await admin.core.createNamespacedPod({ namespace: NS, body: podOn(NODE_B, 'on-b', 'b-only') });
  await waitUntil(async () => isRunning('on-a') && isRunning('on-b'), TIMEOUT_MS, 'both pods Running, each with its Secret');

  const aWatches = [objectId('configmaps', NS, 'shared-config'), objectId('secrets', NS, 'a-only')];
  const bWatches = [objectId('configmaps', NS, 'shared-config'), objectId('secrets', NS, 'b-only')];
  await waitUntil(async () => JSON.stringify(openObjectWatchesOf(api, NODE_A)) === JSON.stringify(aWatches), TIMEOUT_MS, 'node A watches its objects');
  await waitUntil(async () => JSON.stringify(openObjectWatchesOf(api, NODE_B)) === JSON.stringify(bWatches), TIMEOUT_MS, 'node B watches its objects');

  // A change to A's Secret reaches A's pod; B still does not ask for it.
  await admin.core.replaceNamespacedSecret({ name: 'a-only', namespace: NS, body: { metadata: { name: 'a-only' }, stringData: { password: 'for-a-v2' } } });
  const uid = (api.store.get(PODS, NS, 'on-a') as V1Pod).metadata!.uid!;
  const passwordFile = join(nodes[0].kubelet.rootDir, 'pods', uid, 'volumes', 'kubernetes.io~secret', 'creds', 'password');
  await waitUntil(async () => readFileSync(passwordFile, 'utf8') === 'for-a-v2', TIMEOUT_MS, 'the change in node A\'s volume');
  const readsOfASecret = (nodeName: string) =>
    objectRequestsBy(api, nodeName).filter((r) => r.resource === 'secrets' && (r.name === 'a-only' || selectedName(r.fieldSelector) === 'a-only'));
  assert.ok(readsOfASecret(NODE_A).length > 0, 'node A read its Secret by name');

  assertReadsOnlyByName(api, NODE_A, new Set(aWatches));
  const bRequests = assertReadsOnlyByName(api, NODE_B, new Set(bWatches));
  assert.ok(bRequests.length > 0, 'node B read its own objects');
  assert.deepEqual(readsOfASecret(NODE_B), [], 'node B never named a-only');
  assert.ok(!bRequests.some((r) => r.verb !== 'get' && !r.fieldSelector), 'node B never listed or watched a whole namespace');
  assert.deepEqual(api.refusals(), [], 'neither node was refused anything');

  // Asked directly with node B's own credentials, the server refuses A's Secret, by name and by a name-selected list.
  const asNodeB = loadKubeClients(join(workDir, NODE_B, 'node.kubeconfig'), 0, 0);
  await assert.rejects(asNodeB.core.readNamespacedSecret({ name: 'a-only', namespace: NS }), (err: { code?: number }) => err.code === 403);
  await assert.rejects(asNodeB.core.listNamespacedSecret({ namespace: NS, fieldSelector: 'metadata.name=a-only' }), (err: { code?: number }) => err.code === 403);
  await assert.rejects(asNodeB.core.listNamespacedSecret({ namespace: NS }), (err: { code?: number }) => err.code === 403);
  assert.ok((await asNodeB.core.readNamespacedSecret({ name: 'b-only', namespace: NS })).data?.password, 'its own pod\'s Secret is readable');
  assert.deepEqual(
    api.refusals().map((r) => `${r.user} ${r.verb} ${r.resource}`),
    [`system:node:${NODE_B} get secrets`, `system:node:${NODE_B} list secrets`, `system:node:${NODE_B} list secrets`],
  );
});
