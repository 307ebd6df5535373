// supplementalGroupsPolicy (KEP 3619, GA in 1.35) end to end on the simulated
// runtime, through the test API server and kubectl: a pod asking for Strict runs on
// a node whose runtime says it supports the policy (containerd 2, the sim's
// default), its containerStatuses[].user showing who the process started as, and is
// refused with upstream's reason and message, as a Failed pod with
// a Warning event, on one whose runtime does not (containerd 1.6).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import { startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { kubectlOutput } from '../helpers/kubectl.js';
import { testNoRefusals } from '../helpers/no-refusals.js';

const TIMEOUT_MS = 60_000;
const NODES = { supporting: 'groups-policy-node', lacking: 'no-groups-policy-node' } as const;

let workDir: string;
let api: TestApiServer;
let adminKubeconfig: string;
const sims: SimRuntime[] = [];
const kubelets: KubeletProcess[] = [];

const kubectl = (...args: string[]) => kubectlOutput(adminKubeconfig, args);
const podJson = async (name: string) => JSON.parse(await kubectl('get', 'pod', name, '-o', 'json'));

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-groups-policy-'));
  api = await startTestApiServer();
  adminKubeconfig = await api.writeKubeconfig(join(workDir, 'admin.kubeconfig'), { user: 'admin' });
  for (const [nodeName, personality] of [[NODES.supporting, undefined], [NODES.lacking, 'containerd-1.6']] as const) {
    const sim = await startSimRuntime({ socketPath: join(workDir, `${nodeName}.sock`), ...(personality ? { personality } : {}) });
    sims.push(sim);
    const kubeconfig = await api.writeKubeconfig(join(workDir, `${nodeName}.kubeconfig`), { user: 'kubelet', nodeName });
    kubelets.push(await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 1, nodeName, workDir: join(workDir, nodeName), extraArgs: [`--kubeconfig=${kubeconfig}`] }));
  }
});

after(async () => {
  await kubectl('delete', 'pods', '--all', '--grace-period=0', '--force').catch(() => undefined);
  for (const kubelet of kubelets) await kubelet.stop();
  await api?.stop();
  for (const sim of sims) await sim.close();
  rmSync(workDir, { recursive: true, force: true });
});

function strictPod(name: string, nodeName: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName,
      securityContext: { runAsUser: 1000, runAsGroup: 3000, supplementalGroups: [5000], supplementalGroupsPolicy: 'Strict' },
      containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', 'sleep 3600'] }],
    },
  });
}

test('a Strict pod runs where the runtime supports the policy and is refused, as upstream, where it does not', async () => {
  writeFileSync(join(workDir, 'pods.yaml'), [strictPod('strict-ok', NODES.supporting), strictPod('strict-refused', NODES.lacking)].join('---\n'));
  await kubectl('apply', '-f', join(workDir, 'pods.yaml'));
  const running = await waitUntil(async () => {
    const pod = await podJson('strict-ok');
    return pod.status?.phase === 'Running' ? pod : false;
  }, TIMEOUT_MS, 'strict-ok Running');
  // Who the runtime says the process started as: runAsUser, runAsGroup, and under Strict only the pod's groups.
  assert.deepEqual(running.status.containerStatuses[0].user, { linux: { uid: 1000, gid: 3000, supplementalGroups: [3000, 5000] } });
  const refused = await waitUntil(async () => {
    const pod = await podJson('strict-refused');
    return pod.status?.phase === 'Failed' ? pod : false;
  }, TIMEOUT_MS, 'strict-refused Failed');
  assert.equal(refused.status.reason, 'SupplementalGroupsPolicyNotSupported');
  assert.equal(refused.status.message, 'SupplementalGroupsPolicy=Strict is not supported in this node');
  const events = await waitUntil(async () => {
    const text = await kubectl('get', 'events', '--field-selector', 'involvedObject.name=strict-refused', '-o', 'json');
    const items = JSON.parse(text).items as Array<{ type: string; reason: string; message: string }>;
    return items.some((event) => event.reason === 'SupplementalGroupsPolicyNotSupported') ? items : false;
  }, TIMEOUT_MS, 'the rejection event');
  const event = events.find((item) => item.reason === 'SupplementalGroupsPolicyNotSupported')!;
  assert.equal(event.type, 'Warning');
  assert.equal(event.message, 'SupplementalGroupsPolicy=Strict is not supported in this node');
});

testNoRefusals(() => [api]);
