// NodeStatusManager and NodeLeaseController against the project's test API
// server over HTTPS (the kubelet's own client certificate) and the simulated
// runtime over its socket; results are read back as an admin client would.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import type { V1Node, V1NodeCondition } from '@kubernetes/client-node';
import { pino } from 'pino';
import { loadKubeClients, type KubeClients } from '../../../../src/main/cluster/apiclient/kube-client.js';
import { NodeLeaseController } from '../../../../src/main/cluster/nodestatus/lease-controller.js';
import { NODE_LEASE_NAMESPACE } from '../../../../src/main/cluster/nodestatus/lease.js';
import { NodeStatusManager } from '../../../../src/main/cluster/nodestatus/node-status-manager.js';
import { parseFlags } from '../../../../src/main/options/flags.js';
import { mergeFlags } from '../../../../src/main/options/kubelet-config.js';
import type { KubeletOptions } from '../../../../src/main/options/kubelet-options.js';
import { CriClient } from '../../../../src/shared/cri/client.js';
import { startSimRuntime, type SimRuntime } from '../../../../src/simruntime/server.js';
import { startTestApiServer, type TestApiServer } from '../../../../src/testapiserver/server.js';
import { waitUntil } from '../../../helpers/kubelet-process.js';

const NODE = 'status-node';
const MAX_PODS = 42;
const NODE_IP = '10.1.2.3';
const KUBELET_VERSION = 'v1.32.0-shardlet';
const WAIT_MS = 20_000;
const silent = pino({ level: 'silent' });

let workDir: string;
let sim: SimRuntime;
let api: TestApiServer;
let admin: KubeClients;
let cri: CriClient;
const stoppers: Array<() => void> = [];

function kubeletOptions(nodeName: string, kubeconfig: string): KubeletOptions {
  const flags = parseFlags([
    `--hostname-override=${nodeName}`,
    `--node-ip=${NODE_IP}`,
    `--max-pods=${MAX_PODS}`,
    // A label a node may set on itself: NodeRestriction refuses node-role.kubernetes.io/* from a node.
    '--node-labels=node.kubernetes.io/pool=workers',
    `--kubeconfig=${kubeconfig}`,
  ]);
  return {
    ...mergeFlags(undefined, flags),
    rootDir: workDir,
    nodeStatusUpdateFrequencyMs: 200,
    nodeStatusReportFrequencyMs: 5 * 60_000,
    nodeLeaseDurationSeconds: 2,
  };
}

async function startManager(nodeName: string): Promise<NodeStatusManager> {
  const kubeconfig = await api.writeKubeconfig(join(workDir, `${nodeName}.kubeconfig`), { user: 'kubelet', nodeName });
  const options = kubeletOptions(nodeName, kubeconfig);
  const clients = loadKubeClients(kubeconfig, options.kubeAPIQPS, options.kubeAPIBurst);
  const manager = new NodeStatusManager({ clients, options, cri, logger: silent, kubeletVersion: KUBELET_VERSION });
  stoppers.push(() => manager.stop());
  await manager.start();
  return manager;
}

async function startLease(nodeName: string, nodeUid: () => string | undefined): Promise<NodeLeaseController> {
  const kubeconfig = await api.writeKubeconfig(join(workDir, `${nodeName}-lease.kubeconfig`), { user: 'kubelet', nodeName });
  const clients = loadKubeClients(kubeconfig, 50, 100);
  const lease = new NodeLeaseController({ clients, nodeName, leaseDurationSeconds: 2, logger: silent, nodeUid });
  stoppers.push(() => lease.stop());
  lease.start();
  return lease;
}

async function readNode(name: string): Promise<V1Node | undefined> {
  try {
    return await admin.core.readNode({ name });
  } catch {
    return undefined;
  }
}

function readyOf(node: V1Node | undefined): V1NodeCondition | undefined {
  return node?.status?.conditions?.find((condition) => condition.type === 'Ready');
}

async function renewTimeMs(nodeName: string): Promise<number | undefined> {
  try {
    const lease = await admin.coordination.readNamespacedLease({ name: nodeName, namespace: NODE_LEASE_NAMESPACE });
    return lease.spec?.renewTime ? new Date(lease.spec.renewTime).getTime() : undefined;
  } catch {
    return undefined;
  }
}

function statusPatches(): number {
  return api.requestCount()['patch nodes/status'] ?? 0;
}

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-nodestatus-'));
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock'), latency: { scale: 0 } });
  api = await startTestApiServer();
  const adminKubeconfig = await api.writeKubeconfig(join(workDir, 'admin.kubeconfig'), { user: 'admin' });
  admin = loadKubeClients(adminKubeconfig, 0, 0);
  cri = new CriClient(sim.endpoint, { timeoutMs: 5_000 });
});

after(async () => {
  for (const stop of stoppers) stop();
  cri?.close();
  await api?.stop();
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

test('registration creates the node with upstream labels, resources, addresses and nodeInfo', async () => {
  const manager = await startManager(NODE);
  const node = await waitUntil(() => readNode(NODE), WAIT_MS, 'the registered node');
  const labels = node.metadata?.labels ?? {};
  assert.equal(labels['kubernetes.io/hostname'], NODE);
  assert.equal(labels['kubernetes.io/os'], 'linux');
  assert.ok(labels['kubernetes.io/arch']);
  assert.equal(labels['beta.kubernetes.io/os'], 'linux');
  assert.equal(labels['node.kubernetes.io/pool'], 'workers');
  assert.equal(node.metadata?.annotations?.['volumes.kubernetes.io/controller-managed-attach-detach'], 'true');
  assert.equal(node.status?.capacity?.pods, String(MAX_PODS));
  assert.equal(node.status?.allocatable?.pods, String(MAX_PODS));
  for (const resource of ['cpu', 'memory', 'ephemeral-storage']) {
    assert.ok(node.status?.capacity?.[resource], `capacity.${resource}`);
    assert.ok(node.status?.allocatable?.[resource], `allocatable.${resource}`);
  }
  assert.deepEqual(
    node.status?.addresses?.map((address) => [address.type, address.address]),
    [['InternalIP', NODE_IP], ['Hostname', NODE]],
  );
  assert.equal(node.status?.nodeInfo?.containerRuntimeVersion, 'shardlet-sim://0.1.0');
  assert.equal(node.status?.nodeInfo?.kubeletVersion, KUBELET_VERSION);
  assert.equal(node.status?.nodeInfo?.operatingSystem, 'linux');
  // The NodeFeatures setter: the sim (as containerd 2) supports supplementalGroupsPolicy.
  await waitUntil(async () => (await readNode(NODE))?.status?.features?.supplementalGroupsPolicy === true, WAIT_MS, 'status.features.supplementalGroupsPolicy');
  const ready = readyOf(node);
  assert.equal(ready?.status, 'True');
  assert.equal(ready?.reason, 'KubeletReady');
  assert.deepEqual(
    node.status?.conditions?.map((condition) => [condition.type, condition.status]),
    [['MemoryPressure', 'False'], ['DiskPressure', 'False'], ['PIDPressure', 'False'], ['Ready', 'True']],
  );
  assert.equal(manager.nodeUid(), node.metadata?.uid);
  assert.equal(manager.writes.nodeCreates, 1);
});

test('an unchanged status is not re-sent within the report frequency; a change is sent once', async () => {
  api.resetRequestCount();
  // Seven or so update periods with nothing changed.
  await sleep(1_500);
  assert.equal(statusPatches(), 0, 'no status patch while nothing changed');

  sim.setConditions({ runtimeReady: false });
  const notReady = await waitUntil(
    async () => {
      const ready = readyOf(await readNode(NODE));
      return ready?.status === 'False' ? ready : undefined;
    },
    WAIT_MS,
    'Ready=False',
  );
  assert.equal(notReady.reason, 'KubeletNotReady');
  assert.equal(notReady.message, 'container runtime not ready: RuntimeReady=false reason:SimulatedRuntimeNotReady message:');
  await sleep(1_000);
  assert.equal(statusPatches(), 1, 'the change went out in exactly one patch');

  sim.setConditions({ runtimeReady: true });
  const readyAgain = await waitUntil(
    async () => {
      const ready = readyOf(await readNode(NODE));
      return ready?.status === 'True' ? ready : undefined;
    },
    WAIT_MS,
    'Ready=True again',
  );
  assert.ok(new Date(readyAgain.lastTransitionTime!).getTime() >= new Date(notReady.lastTransitionTime!).getTime());
});

test('Ready=False with upstream message while the network is not ready', async () => {
  sim.setConditions({ networkReady: false });
  try {
    const ready = await waitUntil(
      async () => {
        const condition = readyOf(await readNode(NODE));
        return condition?.status === 'False' ? condition : undefined;
      },
      WAIT_MS,
      'Ready=False for the network',
    );
    assert.equal(
      ready.message,
      'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized',
    );
  } finally {
    sim.setConditions({ networkReady: true });
  }
  await waitUntil(async () => readyOf(await readNode(NODE))?.status === 'True', WAIT_MS, 'Ready=True after the network');
});

test('syncNow sends the status at once, not at the next period: a node shutting down is NotReady', async () => {
  const nodeName = 'shutdown-node';
  const kubeconfig = await api.writeKubeconfig(join(workDir, `${nodeName}.kubeconfig`), { user: 'kubelet', nodeName });
  // A period far longer than the wait below: only syncNow can bring the change in time.
  const options = { ...kubeletOptions(nodeName, kubeconfig), nodeStatusUpdateFrequencyMs: 10 * 60_000 };
  let shuttingDown = false;
  const clients = loadKubeClients(kubeconfig, options.kubeAPIQPS, options.kubeAPIBurst);
  const manager = new NodeStatusManager({ clients, options, cri, logger: silent, kubeletVersion: KUBELET_VERSION, shuttingDown: () => shuttingDown });
  stoppers.push(() => manager.stop());
  await manager.start();
  assert.equal(readyOf(await readNode(nodeName))?.status, 'True');

  shuttingDown = true;
  manager.syncNow();
  const ready = await waitUntil(
    async () => {
      const condition = readyOf(await readNode(nodeName));
      return condition?.status === 'False' ? condition : undefined;
    },
    WAIT_MS,
    'Ready=False for the shutdown',
  );
  assert.equal(ready.reason, 'KubeletNotReady');
  assert.equal(ready.message, 'node is shutting down');
});

test('the heartbeat renews the node lease, owned by the node', async () => {
  const node = await waitUntil(() => readNode(NODE), WAIT_MS, 'the node');
  await startLease(NODE, () => node.metadata?.uid);
  const first = await waitUntil(() => renewTimeMs(NODE), WAIT_MS, 'the node lease');
  const lease = await admin.coordination.readNamespacedLease({ name: NODE, namespace: NODE_LEASE_NAMESPACE });
  assert.equal(lease.spec?.holderIdentity, NODE);
  assert.equal(lease.spec?.leaseDurationSeconds, 2);
  assert.deepEqual(
    lease.metadata?.ownerReferences?.map((owner) => [owner.kind, owner.name, owner.uid]),
    [['Node', NODE, node.metadata?.uid]],
  );
  await waitUntil(async () => ((await renewTimeMs(NODE)) ?? 0) > first, WAIT_MS, 'a later renewTime');
});

test('an API server restart does not stop the heartbeat', async () => {
  await api.restart({ whileDown: () => sleep(1_500) });
  const restartedAtMs = Date.now();
  await waitUntil(async () => ((await renewTimeMs(NODE)) ?? 0) > restartedAtMs, WAIT_MS, 'a renewal after the restart');

  // The status loop is alive too: a change after the restart reaches the node.
  sim.setConditions({ runtimeReady: false });
  try {
    await waitUntil(async () => readyOf(await readNode(NODE))?.status === 'False', WAIT_MS, 'Ready=False after the restart');
  } finally {
    sim.setConditions({ runtimeReady: true });
  }
  await waitUntil(async () => readyOf(await readNode(NODE))?.status === 'True', WAIT_MS, 'Ready=True after the restart');
});

test('registration waits out an absent API server without throwing', async () => {
  const nodeName = 'late-node';
  let manager: NodeStatusManager | undefined;
  await api.restart({
    whileDown: async () => {
      manager = await startManager(nodeName);
      await sleep(500);
    },
  });
  const node = await waitUntil(() => readNode(nodeName), WAIT_MS, 'the node registered after the server came back');
  assert.equal(readyOf(node)?.status, 'True');
  assert.equal(manager?.writes.nodeCreates, 1);
});

test('an existing node is reconciled, not recreated', async () => {
  const nodeName = 'old-node';
  await admin.core.createNode({
    body: {
      metadata: { name: nodeName, labels: { 'kubernetes.io/os': 'windows', 'kubernetes.io/hostname': nodeName, team: 'a' } },
      status: { capacity: { pods: '3' } },
    },
  });
  const manager = await startManager(nodeName);
  const node = await waitUntil(
    async () => {
      const found = await readNode(nodeName);
      return readyOf(found)?.status === 'True' ? found : undefined;
    },
    WAIT_MS,
    'the reconciled node with a status',
  );
  assert.equal(node.metadata?.labels?.['kubernetes.io/os'], 'linux');
  assert.equal(node.metadata?.labels?.team, 'a', 'labels the kubelet does not own stay');
  assert.equal(node.metadata?.annotations?.['volumes.kubernetes.io/controller-managed-attach-detach'], 'true');
  assert.equal(node.status?.capacity?.pods, String(MAX_PODS));
  assert.deepEqual(manager.writes, { nodeCreates: 0, nodePatches: 1, statusPatches: 1 });
});
