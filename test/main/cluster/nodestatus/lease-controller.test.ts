// NodeLeaseController against the project's test API server over HTTPS, with
// the kubelet's client certificate; the lease is read and changed as an admin.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import type { V1Lease } from '@kubernetes/client-node';
import { pino } from 'pino';
import { loadKubeClients, type KubeClients } from '../../../../src/main/cluster/apiclient/kube-client.js';
import { NodeLeaseController } from '../../../../src/main/cluster/nodestatus/lease-controller.js';
import { NODE_LEASE_NAMESPACE } from '../../../../src/main/cluster/nodestatus/lease.js';
import { startTestApiServer, type TestApiServer } from '../../../../src/testapiserver/server.js';
import { waitUntil } from '../../../helpers/kubelet-process.js';

const NODE = 'lease-node';
const LEASE_DURATION_SECONDS = 2;
const WAIT_MS = 20_000;

let workDir: string;
let api: TestApiServer;
let admin: KubeClients;
let controller: NodeLeaseController | undefined;
let nodeUid: string | undefined;

async function readLease(): Promise<V1Lease | undefined> {
  try {
    return await admin.coordination.readNamespacedLease({ name: NODE, namespace: NODE_LEASE_NAMESPACE });
  } catch {
    return undefined;
  }
}

function renewTimeMs(lease: V1Lease | undefined): number {
  return lease?.spec?.renewTime ? new Date(lease.spec.renewTime).getTime() : 0;
}

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-lease-'));
  api = await startTestApiServer();
  admin = loadKubeClients(await api.writeKubeconfig(join(workDir, 'admin.kubeconfig'), { user: 'admin' }), 0, 0);
  const kubeconfig = await api.writeKubeconfig(join(workDir, 'kubelet.kubeconfig'), { user: 'kubelet', nodeName: NODE });
  controller = new NodeLeaseController({
    clients: loadKubeClients(kubeconfig, 50, 100),
    nodeName: NODE,
    leaseDurationSeconds: LEASE_DURATION_SECONDS,
    logger: pino({ level: 'silent' }),
    nodeUid: () => nodeUid,
  });
  controller.start();
});

after(async () => {
  controller?.stop();
  await api?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

test('the lease is created only once the node UID is known, owned by the node', async () => {
  // Several renew intervals with no node: nothing may be created.
  await sleep(1_500);
  assert.equal(await readLease(), undefined);
  assert.equal(api.requestCount()['create leases.coordination.k8s.io'] ?? 0, 0);

  const node = await admin.core.createNode({ body: { metadata: { name: NODE } } });
  nodeUid = node.metadata?.uid;
  const lease = await waitUntil(readLease, WAIT_MS, 'the created lease');
  assert.equal(lease.spec?.holderIdentity, NODE);
  assert.equal(lease.spec?.leaseDurationSeconds, LEASE_DURATION_SECONDS);
  assert.deepEqual(
    lease.metadata?.ownerReferences?.map((owner) => [owner.apiVersion, owner.kind, owner.name, owner.uid]),
    [['v1', 'Node', NODE, nodeUid]],
  );
  assert.equal(controller?.writes.leaseCreates, 1);
  const first = renewTimeMs(lease);
  await waitUntil(async () => renewTimeMs(await readLease()) > first, WAIT_MS, 'a renewal');
});

test('a lease changed by someone else is re-read and renewed (conflict)', async () => {
  await waitUntil(readLease, WAIT_MS, 'the lease');
  // The admin's own write can lose the race with a renewal: like any client, it re-reads and tries again.
  const changedAtMs = await waitUntil(
    async () => {
      const current = await readLease();
      if (!current) return undefined;
      const body = { ...current, metadata: { ...current.metadata, labels: { touchedBy: 'admin' } } };
      await admin.coordination.replaceNamespacedLease({ name: NODE, namespace: NODE_LEASE_NAMESPACE, body });
      return Date.now();
    },
    WAIT_MS,
    'the admin change written',
  );
  const renewed = await waitUntil(
    async () => {
      const lease = await readLease();
      return renewTimeMs(lease) > changedAtMs ? lease : undefined;
    },
    WAIT_MS,
    'a renewal after the change',
  );
  assert.equal(renewed.metadata?.labels?.touchedBy, 'admin', 'the renewal started from the stored lease');
});

test('a deleted lease is created again', async () => {
  const creates = controller!.writes.leaseCreates;
  await admin.coordination.deleteNamespacedLease({ name: NODE, namespace: NODE_LEASE_NAMESPACE });
  const lease = await waitUntil(readLease, WAIT_MS, 'the recreated lease');
  assert.equal(lease.metadata?.ownerReferences?.[0]?.uid, nodeUid);
  assert.equal(controller!.writes.leaseCreates, creates + 1);
});
