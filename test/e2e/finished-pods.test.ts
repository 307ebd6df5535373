// Finished pods never run again (issue 8, defect 4). A restartPolicy Never or
// OnFailure pod that reached Succeeded or Failed is left finished when shardlet
// restarts and the runtime has lost its containers (CRI-O wipes them at reboot; here
// the simulated runtime restarts empty): no sandbox or container is created for it,
// and it still shows its terminal phase, for static pods (kept under --root-dir) and
// API pods (the API server's status) alike.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import type { Pod } from '../../src/shared/types.js';
import { startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';
import { testNoRefusals } from '../helpers/no-refusals.js';
import { kubectlOutput } from '../helpers/kubectl.js';

const NODE = 'test-node';
const TIMEOUT_MS = 90_000;
const IMAGE = 'busybox:1.35';
/** Static pods (name → restart policy, command, final phase) and API pods alike. */
const STATIC_PODS = [
  { name: 'never-done', restartPolicy: 'Never', command: 'echo done', phase: 'Succeeded' },
  { name: 'onfailure-done', restartPolicy: 'OnFailure', command: 'echo done', phase: 'Succeeded' },
];
const API_PODS = [
  { name: 'api-never-fails', restartPolicy: 'Never', command: 'exit 3', phase: 'Failed' },
  { name: 'api-onfailure-done', restartPolicy: 'OnFailure', command: 'echo done', phase: 'Succeeded' },
];

let workDir: string;
let socketPath: string;
let sim: SimRuntime;
let api: TestApiServer;
let kubelet: KubeletProcess;
let adminKubeconfig: string;
let nodeKubeconfig: string;

async function kubectl(...args: string[]): Promise<string> {
  return kubectlOutput(adminKubeconfig, args);
}

async function apiPod(name: string): Promise<Pod> {
  return JSON.parse(await kubectl('get', 'pod', name, '-o', 'json')) as Pod;
}

const start = () =>
  startKubelet({ runtimeEndpoint: sim.endpoint, workers: 2, nodeName: NODE, workDir, extraArgs: [`--kubeconfig=${nodeKubeconfig}`] });

/** Every pod's worker logged 'Pod terminated' in this shardlet's life. */
function terminatedUids(process: KubeletProcess): Set<string> {
  return new Set(process.logs.filter((line) => line.msg === 'Pod terminated').map((line) => line.uid as string));
}

/** Phase and first container's exit code of every pod, static ones from /pods and API ones from the API server. */
async function phases(): Promise<Map<string, { uid: string; phase?: string; exitCode?: number }>> {
  const result = new Map<string, { uid: string; phase?: string; exitCode?: number }>();
  const read = (pod: Pod) => ({ uid: pod.metadata!.uid!, phase: pod.status?.phase, exitCode: pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode });
  for (const pod of await kubelet.pods()) if (pod.metadata!.name!.endsWith(`-${NODE}`)) result.set(pod.metadata!.name!.replace(`-${NODE}`, ''), read(pod));
  for (const { name } of API_PODS) result.set(name, read(await apiPod(name)));
  return result;
}

async function allFinished(process: KubeletProcess): Promise<Map<string, { uid: string; phase?: string; exitCode?: number }>> {
  return waitUntil(async () => {
    const current = await phases();
    const done = terminatedUids(process);
    const all = [...STATIC_PODS, ...API_PODS].every(({ name, phase }) => current.get(name)?.phase === phase && done.has(current.get(name)!.uid));
    return all ? current : false;
  }, TIMEOUT_MS, 'every pod finished with its phase, and its worker done');
}

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-finished-'));
  socketPath = join(workDir, 'sim.sock');
  sim = await startSimRuntime({ socketPath });
  api = await startTestApiServer({ defaultNodeName: NODE });
  adminKubeconfig = await api.writeKubeconfig(join(workDir, 'admin.kubeconfig'), { user: 'admin' });
  nodeKubeconfig = await api.writeKubeconfig(join(workDir, 'node.kubeconfig'), { user: 'kubelet', nodeName: NODE });
  kubelet = await start();
});

after(async () => {
  await kubelet?.stop();
  await api?.stop();
  await sim?.close();
});

test('finished pods do not run again after a restart of shardlet with an emptied runtime, static and API alike', async (t) => {
  for (const pod of STATIC_PODS) {
    writeFileSync(
      join(kubelet.manifestDir, `${pod.name}.yaml`),
      manifest(pod.name, { restartPolicy: pod.restartPolicy, containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', pod.command] }] }),
    );
  }
  const apiManifests = API_PODS.map((pod) =>
    stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod.name, namespace: 'default' },
      spec: { restartPolicy: pod.restartPolicy, containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', pod.command] }] },
    }),
  );
  writeFileSync(join(workDir, 'api-pods.yaml'), apiManifests.join('---\n'));
  await kubectl('apply', '-f', join(workDir, 'api-pods.yaml'));
  const before = await allFinished(kubelet);
  assert.equal(before.get('api-never-fails')?.exitCode, 3);

  // shardlet goes down; so does the runtime, which comes back with nothing (as CRI-O after a reboot).
  await kubelet.stop();
  await sim.close();
  sim = await startSimRuntime({ socketPath });
  kubelet = await start();

  const afterRestart = await allFinished(kubelet);
  for (const [name, { uid, phase, exitCode }] of before) {
    assert.deepEqual(afterRestart.get(name), { uid, phase, exitCode }, `${name} keeps its terminal status`);
  }
  const calls = sim.stats().calls;
  t.diagnostic(`CRI calls after the restart: ${JSON.stringify(calls)}`);
  assert.equal(calls.RunPodSandbox ?? 0, 0, 'no sandbox created for a finished pod');
  assert.equal(calls.CreateContainer ?? 0, 0, 'no container created for a finished pod');

  // The record of a finished static pod goes with the pod.
  const { uid } = afterRestart.get('never-done')!;
  assert.ok(existsSync(join(kubelet.rootDir, 'pods', uid, 'terminal-status.json')), 'kept under --root-dir');
  rmSync(join(kubelet.manifestDir, 'never-done.yaml'));
  await waitUntil(async () => !existsSync(join(kubelet.rootDir, 'pods', uid)), TIMEOUT_MS, 'the pod directory removed with the pod');
});

testNoRefusals(() => [api]);
