import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { KubeClients } from '../../../../src/main/cluster/apiclient/kube-client.js';
import { MirrorPods } from '../../../../src/main/cluster/status/mirror-pods.js';
import type { Pod } from '../../../../src/shared/types.js';

const staticPod: Pod = {
  metadata: { name: 'web-node', namespace: 'default', uid: 'static-uid', annotations: { 'kubernetes.io/config.hash': 'h1', 'kubernetes.io/config.source': 'file' } },
  spec: { containers: [{ name: 'c', image: 'i' }] },
};

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('a mirror pod the server accepted (or already had) is not created again while the watch has yet to show it', async () => {
  let creates = 0;
  const conflict = Object.assign(new Error('AlreadyExists'), { code: 409 });
  const clients = {
    core: {
      createNamespacedPod: async () => {
        creates++;
        if (creates > 1) throw conflict;
        return {};
      },
    },
    limiter: { take: async () => undefined },
  } as unknown as KubeClients;
  const mirrors = new MirrorPods(clients, 'node', pino({ level: 'silent' }), () => 'node-uid');
  // Housekeeping every 2 s while the pod watch is down: the mirror never shows in the pod manager.
  for (let i = 0; i < 5; i++) {
    mirrors.reconcile([staticPod], () => undefined, []);
    await settle();
  }
  assert.equal(creates, 1);
  // The watch shows it, then it is deleted by someone: it is created again at once.
  const mirror: Pod = { metadata: { name: 'web-node', namespace: 'default', uid: 'm1', annotations: { 'kubernetes.io/config.mirror': 'h1' } } };
  mirrors.reconcile([staticPod], () => mirror, [mirror]);
  mirrors.reconcile([staticPod], () => undefined, []);
  await settle();
  assert.equal(creates, 2);
});

test('no mirror pod is created before the Node\'s UID is known; then it is owned by the Node', async () => {
  const bodies: Pod[] = [];
  const clients = {
    core: { createNamespacedPod: async ({ body }: { body: Pod }) => void bodies.push(body) },
    limiter: { take: async () => undefined },
  } as unknown as KubeClients;
  let nodeUid: string | undefined;
  const mirrors = new MirrorPods(clients, 'node', pino({ level: 'silent' }), () => nodeUid);
  mirrors.reconcile([staticPod], () => undefined, []);
  await settle();
  assert.deepEqual(bodies, [], 'NodeRestriction refuses a mirror pod without its node as owner');
  nodeUid = 'node-uid';
  mirrors.reconcile([staticPod], () => undefined, []);
  await settle();
  assert.deepEqual(bodies.map((b: Pod) => b.metadata?.ownerReferences), [[{ apiVersion: 'v1', kind: 'Node', name: 'node', uid: 'node-uid', controller: true }]]);
});
