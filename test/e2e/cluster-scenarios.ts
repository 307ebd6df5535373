// Cluster mode end to end, written once and run against each runtime: the
// project's test API server over real HTTPS, kubectl (the real client, always with
// an explicit --kubeconfig) as the operator, a real shardlet process with
// --kubeconfig, and the runtime over its socket; runtime state read over the CRI.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { CriClient } from '../../src/shared/cri/client.js';
import { FullCriClient } from '../helpers/full-cri.js';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import { startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import type { RuntimeUnderTest } from './scenarios.js';
import { testNoRefusals } from '../helpers/no-refusals.js';
import { kubectlOutput } from '../helpers/kubectl.js';

const NODE = 'cluster-node';
const PODS = 20;
const MAX_PODS = PODS + 1;
const TIMEOUT_MS = 90_000;
/** The grace period a deletion asks for: well under the spec's 30 s default, so that ignoring it shows. */
const DELETE_GRACE_SECONDS = 10;
/** Room for the watch, the kill and the polling on top of the grace period; still far from 30 s. */
const GRACE_SLACK_MS = 5_000;

let workDir: string;
let runtime: RuntimeUnderTest & { close?: () => Promise<void> };
let cri: CriClient;
let api: TestApiServer;
let kubelet: KubeletProcess;
let adminKubeconfig: string;

/** Sandboxes the runtime holds for a pod, found by its UID label. */
async function sandboxesOf(podName: string): Promise<number> {
  const uid = JSON.parse(await kubectl('get', 'pod', podName, '-o', 'json')).metadata.uid as string;
  const reply = await cri.listPodSandbox({ filter: { label_selector: { 'io.kubernetes.pod.uid': uid } } });
  return reply.items.length;
}

/** The runtime's ID of the pod's first container, from the status the kubelet wrote ("containerd://<id>"). */
function containerIdOf(pod: { status?: { containerStatuses?: Array<{ containerID?: string }> } }): string {
  const containerId = pod.status?.containerStatuses?.[0]?.containerID ?? '';
  return containerId.slice(containerId.indexOf('://') + 3);
}

/** When the container stopped (its finishedAt), or when it was seen gone; undefined while it runs. */
async function stoppedAtMs(containerId: string): Promise<number | undefined> {
  const reply = await cri.listContainers({ filter: { id: containerId } });
  const container = reply.containers[0];
  if (!container) return Date.now();
  if (container.state !== 'CONTAINER_EXITED') return undefined;
  const status = (await cri.containerStatus({ container_id: containerId, verbose: false })).status;
  return status ? Number(status.finished_at) / 1e6 : Date.now();
}

/** A file as the pod's first container sees it. */
async function readInContainer(podName: string, path: string): Promise<string> {
  const containerId = containerIdOf(JSON.parse(await kubectl('get', 'pod', podName, '-o', 'json')));
  if (runtime.realProcesses) {
    const reply = await cri.execSync({ container_id: containerId, cmd: ['cat', path], timeout: 10 });
    if (reply.exit_code !== 0) throw new Error(`cat ${path} in ${podName} exited ${reply.exit_code}: ${reply.stderr.toString()}`);
    return reply.stdout.toString();
  }
  // The simulated runtime runs no process to exec in: read through the mount the runtime was asked to make.
  // CriClient does not decode a container's mounts: read the whole reply.
  const full = new FullCriClient(runtime.endpoint);
  const status = (await full.containerStatus({ container_id: containerId, verbose: false }).finally(() => full.close())).status;
  const mount = status?.mounts.find((m) => path.startsWith(`${m.container_path}/`));
  if (!mount) throw new Error(`no mount of ${path} in ${podName}'s container`);
  return readFileSync(join(mount.host_path, path.slice(mount.container_path.length)), 'utf8');
}

async function kubectl(...args: string[]): Promise<string> {
  return kubectlOutput(adminKubeconfig, args);
}

function podManifest(name: string, command = 'sleep 3600'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: 'e2e' } },
    spec: { containers: [{ name: 'main', image: runtime.image, command: ['sh', '-c', command], resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
  };
}

async function apply(...names: string[]): Promise<void> {
  const file = join(workDir, `${names[0]}.yaml`);
  writeFileSync(file, names.map((name) => stringify(podManifest(name))).join('---\n'));
  await kubectl('apply', '-f', file);
}

/** NAME READY STATUS RESTARTS AGE IP NODE ... rows of `kubectl get pods -o wide`, by name. */
async function widePods(): Promise<Map<string, string[]>> {
  const rows = (await kubectl('get', 'pods', '-o', 'wide', '--no-headers')).trim().split('\n').filter(Boolean);
  return new Map(rows.map((row) => row.trim().split(/\s+/)).map((cells) => [cells[0], cells]));
}

/** Registers the cluster-mode tests against the runtime that getRuntime brings up. */
export function clusterScenarios(getRuntime: (workDir: string) => Promise<RuntimeUnderTest & { close?: () => Promise<void> }>): void {
  before(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'shardlet-cluster-'));
    runtime = await getRuntime(workDir);
    cri = new CriClient(runtime.endpoint, { timeoutMs: 30_000 });
    api = await startTestApiServer({ defaultNodeName: NODE });
    adminKubeconfig = await api.writeKubeconfig(join(workDir, 'admin.kubeconfig'), { user: 'admin' });
    const nodeKubeconfig = await api.writeKubeconfig(join(workDir, 'node.kubeconfig'), { user: 'kubelet', nodeName: NODE });
    // A short lease so that its renewal shows within the test (renewed every 0.25 × 8 s).
    const kubeletConfig = join(workDir, 'kubelet.yaml');
    writeFileSync(kubeletConfig, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nnodeLeaseDurationSeconds: 8\n');
    kubelet = await startKubelet({
      runtimeEndpoint: runtime.endpoint,
      workers: 2,
      nodeName: NODE,
      workDir,
      extraArgs: [`--kubeconfig=${nodeKubeconfig}`, `--max-pods=${MAX_PODS}`, '--config', kubeletConfig],
    });
  });

  after(async () => {
    // Leave the runtime clean: shardlet stops and removes every pod once no source wants it.
    // Each step guards itself, so a failed start-up still closes what did start.
    if (kubelet) {
      rmSync(join(kubelet.manifestDir, 'static-web.yaml'), { force: true });
      await kubectl('delete', 'pods', '--all', '--wait=false').catch(() => undefined);
      await waitUntil(async () => (await cri.listPodSandbox({})).items.every((s) => s.labels['io.kubernetes.pod.namespace'] !== 'default'), TIMEOUT_MS, 'pods removed').catch(() => undefined);
    }
    await kubelet?.stop();
    await api?.stop();
    cri?.close();
    await runtime?.close?.();
  });

  test(`${PODS} pods applied with kubectl reach Running with pod IPs and Ready 1/1`, async (t) => {
    api.resetRequestCount();
    const names = Array.from({ length: PODS }, (_, i) => `web-${i}`);
    await apply(...names);
    const rows = await waitUntil(async () => {
      const pods = await widePods();
      return names.every((name) => pods.get(name)?.[1] === '1/1' && pods.get(name)?.[2] === 'Running') ? pods : false;
    }, TIMEOUT_MS, 'all pods Running 1/1');
    for (const name of names) {
      const [, , , , , ip, node] = rows.get(name)!;
      assert.match(ip, /^10\.88\.\d+\.\d+$/, `${name} shows its pod IP`);
      assert.equal(node, NODE);
    }
    for (const name of names.slice(0, 3)) assert.equal(await sandboxesOf(name), 1, `one sandbox for ${name}`);
    const described = await waitUntil(async () => {
      const text = await kubectl('describe', 'pod', 'web-1');
      return /Started container main/.test(text) ? text : false;
    }, TIMEOUT_MS, 'the kubelet events in kubectl describe');
    for (const reason of ['Pulled', 'Created', 'Started']) assert.match(described, new RegExp(`Normal\\s+${reason}\\s`));
    // The API writes these pod starts cost, for the figure (reads and watches are not writes).
    const writes = Object.entries(api.requestCount()).filter(([key]) => /^(create|update|patch|delete) /.test(key));
    t.diagnostic(`API requests for ${PODS} pod starts: ${JSON.stringify(Object.fromEntries(writes))}`);
  });

  test('a pod over maxPods is rejected with OutOfpods', async () => {
    await apply('one-too-many-a', 'one-too-many-b');
    const statuses = await waitUntil(async () => {
      const pods = await widePods();
      const states = ['one-too-many-a', 'one-too-many-b'].map((name) => pods.get(name)?.[2]);
      return states.includes('OutOfpods') && states.includes('Running') ? states : false;
    }, TIMEOUT_MS, 'one admitted, one rejected');
    assert.deepEqual([...statuses].sort(), ['OutOfpods', 'Running']);
    const rejected = (await widePods()).get('one-too-many-a')?.[2] === 'OutOfpods' ? 'one-too-many-a' : 'one-too-many-b';
    assert.match(await kubectl('describe', 'pod', rejected), /Node didn't have enough resource: pods/);
    await kubectl('delete', 'pod', rejected, '--grace-period=0', '--force');
  });

  test('a deleted pod is stopped within its grace period and then removed from the API server and the runtime', async () => {
    const pod = JSON.parse(await kubectl('get', 'pod', 'web-0', '-o', 'json'));
    const uid = pod.metadata.uid as string;
    const containerId = containerIdOf(pod);
    assert.ok(containerId, 'web-0 reports its container');
    await kubectl('delete', 'pod', 'web-0', `--grace-period=${DELETE_GRACE_SECONDS}`, '--wait=false');
    const deletedAtMs = Date.now();
    // On containerd the container's shell is PID 1 and ignores SIGTERM, so only the kill at the end of the grace period stops it.
    const stoppedMs = await waitUntil(() => stoppedAtMs(containerId), TIMEOUT_MS, 'web-0 container stopped');
    assert.ok(
      stoppedMs <= deletedAtMs + DELETE_GRACE_SECONDS * 1000 + GRACE_SLACK_MS,
      `stopped ${Math.round(stoppedMs - deletedAtMs)} ms after the deletion, with a ${DELETE_GRACE_SECONDS} s grace period`,
    );
    await waitUntil(async () => !(await widePods()).has('web-0'), TIMEOUT_MS, 'web-0 gone from the API server');
    await waitUntil(async () => {
      const labelSelector = { 'io.kubernetes.pod.uid': uid };
      const [sandboxes, containers] = await Promise.all([
        cri.listPodSandbox({ filter: { label_selector: labelSelector } }),
        cri.listContainers({ filter: { label_selector: labelSelector } }),
      ]);
      return sandboxes.items.length === 0 && containers.containers.length === 0;
    }, TIMEOUT_MS, "web-0's sandbox and container removed from the runtime");
  });

  test('the API server restarts: the watch comes back, nothing is created twice, statuses stay right', async () => {
    await api.restart();
    await apply('after-restart');
    await waitUntil(async () => (await widePods()).get('after-restart')?.[2] === 'Running', TIMEOUT_MS, 'pod created after the restart Running');
    const pods = await widePods();
    for (let i = 1; i < PODS; i++) assert.equal(pods.get(`web-${i}`)?.[2], 'Running', `web-${i} still Running`);
    for (const name of ['web-1', 'web-2', 'after-restart']) assert.equal(await sandboxesOf(name), 1, `no second sandbox for ${name}`);
  });

  test('a static pod has a mirror pod; deleting the mirror pod never kills the static pod', async () => {
    writeFileSync(join(kubelet.manifestDir, 'static-web.yaml'), stringify(podManifest('static-web')));
    const mirrorName = `static-web-${NODE}`;
    await waitUntil(async () => (await widePods()).get(mirrorName)?.[2] === 'Running', TIMEOUT_MS, 'mirror pod shows Running');
    const mirror = JSON.parse(await kubectl('get', 'pod', mirrorName, '-o', 'json'));
    assert.ok(mirror.metadata.annotations['kubernetes.io/config.mirror'], 'carries the mirror annotation');
    const containerId = mirror.status.containerStatuses[0].containerID;
    await kubectl('delete', 'pod', mirrorName, '--wait=false');
    const recreated = await waitUntil(async () => {
      const current = JSON.parse(await kubectl('get', 'pod', mirrorName, '-o', 'json').catch(() => '{}'));
      return current.metadata?.uid && current.metadata.uid !== mirror.metadata.uid && current.status?.phase === 'Running' ? current : false;
    }, TIMEOUT_MS, 'mirror pod recreated');
    assert.equal(recreated.status.containerStatuses[0].containerID, containerId, 'the static pod kept running');
  });

  test('the node is registered Ready with the runtime version, and its Lease renews', async () => {
    const row = await waitUntil(async () => {
      const line = (await kubectl('get', 'nodes', '-o', 'wide', '--no-headers')).trim().split('\n').find((l) => l.startsWith(NODE));
      return line && /\sReady\s/.test(line) ? line : false;
    }, TIMEOUT_MS, 'node Ready');
    assert.match(row, /\s[a-z-]+:\/\/\S+\s*$/, 'kubectl shows the container runtime version');
    const renewTime = async () => JSON.parse(await kubectl('get', 'lease', NODE, '-n', 'kube-node-lease', '-o', 'json')).spec.renewTime as string;
    const first = await waitUntil(() => renewTime().catch(() => undefined), TIMEOUT_MS, 'node lease');
    await waitUntil(async () => (await renewTime()) !== first, TIMEOUT_MS, 'lease renewed');
  });

  test('a pod that mounts a ConfigMap sees an update to it', async () => {
    // Make room under maxPods for this test and the next.
    // A short grace period: `sleep` as PID 1 ignores SIGTERM and would hold each pod for the default 30 s.
    await kubectl('delete', 'pod', 'web-1', 'web-2', 'web-3', '--wait=false', '--grace-period=1');
    await waitUntil(async () => {
      const pods = await widePods();
      return !pods.has('web-1') && !pods.has('web-2') && !pods.has('web-3');
    }, TIMEOUT_MS, 'room made');
    const configMap = (text: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-config', namespace: 'default' }, data: { 'greeting.txt': text } });
    writeFileSync(join(workDir, 'cm.yaml'), configMap('hello v1'));
    await kubectl('apply', '-f', join(workDir, 'cm.yaml'));
    const pod = podManifest('with-config') as { spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> } };
    pod.spec.volumes = [{ name: 'config', configMap: { name: 'app-config' } }];
    pod.spec.containers[0].volumeMounts = [{ name: 'config', mountPath: '/etc/app' }];
    writeFileSync(join(workDir, 'with-config.yaml'), stringify(pod));
    await kubectl('apply', '-f', join(workDir, 'with-config.yaml'));
    await waitUntil(async () => (await widePods()).get('with-config')?.[2] === 'Running', TIMEOUT_MS, 'with-config Running');
    assert.equal(await readInContainer('with-config', '/etc/app/greeting.txt'), 'hello v1');
    writeFileSync(join(workDir, 'cm.yaml'), configMap('hello v2'));
    await kubectl('apply', '-f', join(workDir, 'cm.yaml'));
    await waitUntil(async () => (await readInContainer('with-config', '/etc/app/greeting.txt')) === 'hello v2', TIMEOUT_MS, 'the update inside the container');
  });

  test('a pod whose Secret does not exist yet waits with CreateContainerConfigError and starts once it is created', async () => {
    const pod = podManifest('needs-secret') as { spec: { containers: Array<Record<string, unknown>> } };
    pod.spec.containers[0].env = [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db-credentials', key: 'password' } } }];
    writeFileSync(join(workDir, 'needs-secret.yaml'), stringify(pod));
    await kubectl('apply', '-f', join(workDir, 'needs-secret.yaml'));
    await waitUntil(async () => (await widePods()).get('needs-secret')?.[2] === 'CreateContainerConfigError', TIMEOUT_MS, 'CreateContainerConfigError');
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db-credentials', namespace: 'default' }, type: 'Opaque', data: { password: Buffer.from('s3cret').toString('base64') } };
    writeFileSync(join(workDir, 'secret.yaml'), stringify(secret));
    await kubectl('apply', '-f', join(workDir, 'secret.yaml'));
    await waitUntil(async () => (await widePods()).get('needs-secret')?.[2] === 'Running', TIMEOUT_MS, 'needs-secret Running once the Secret exists');
  });

  test('status.observedGeneration and the conditions\' follow metadata.generation as kubectl changes the spec', async () => {
    // The node is at maxPods: make room first.
    await kubectl('delete', 'pod', 'web-19', '--grace-period=1');
    await apply('generation');
    await waitUntil(async () => (await widePods()).get('generation')?.[2] === 'Running', TIMEOUT_MS, 'generation Running');
    const observed = async (want: number) => {
      const pod = JSON.parse(await kubectl('get', 'pod', 'generation', '-o', 'json'));
      const kubeletConditions = (pod.status.conditions as Array<{ type: string; observedGeneration?: number }>)
        .filter((c) => ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].includes(c.type));
      return pod.metadata.generation === want && pod.status.observedGeneration === want && kubeletConditions.length === 5 && kubeletConditions.every((c) => c.observedGeneration === want)
        ? pod
        : false;
    };
    await waitUntil(() => observed(1), TIMEOUT_MS, 'generation 1 observed');
    // A spec change the API server allows on a running pod: the node sees it and says so.
    await kubectl('patch', 'pod', 'generation', '-p', '{"spec":{"activeDeadlineSeconds":3600}}');
    await waitUntil(() => observed(2), TIMEOUT_MS, 'generation 2 observed after the spec change');
    // A metadata-only change is no new generation.
    await kubectl('label', 'pod', 'generation', 'tier=web');
    assert.equal(JSON.parse(await kubectl('get', 'pod', 'generation', '-o', 'json')).metadata.generation, 2);
    assert.equal((await kubectl('get', 'pod', 'generation', '-o', 'jsonpath={.status.observedGeneration}')).trim(), '2');
  });

  testNoRefusals(() => [api]);
}
