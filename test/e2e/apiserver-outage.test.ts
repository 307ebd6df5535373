// The failure suite's API server outage (issue 8): the test API server, a process
// of its own with --state-dir, goes away for 60 s while shardlet runs pods on the
// simulated runtime, and comes back with its state (same CA, objects and port).
// Pods keep running (no container restarted, read over the CRI); the statuses that
// changed meanwhile, the Lease and a static pod's mirror pod arrive after; the
// node is not registered twice (node creates counted by the server); and shardlet
// logs the status-write outage once when it starts and once when it ends.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { CriClient } from '../../src/shared/cri/client.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import type { Pod } from '../../src/shared/types.js';
import { PACKAGE_ROOT, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';
import { kubectlOutput } from '../helpers/kubectl.js';

const NODE = 'outage-node';
const APISERVER_CLI = join(PACKAGE_ROOT, 'dist/src/testapiserver/cli.js');
/** The issue's outage: the one wait of this test. */
const OUTAGE_MS = 60_000;
const TIMEOUT_MS = 90_000;
const RUNNING_PODS = ['steady-0', 'steady-1', 'steady-2'];
/**
 * Runs into the outage and then succeeds: its Succeeded status can only reach the
 * server afterwards. It ends inside the 60 s outage as long as the outage starts
 * less than 50 s after the pod did (a few seconds, normally).
 */
const FINISHING_POD = 'finishes-while-away';
const FINISHES_AFTER_S = 50;

interface ApiServerProcess {
  child: ChildProcess;
  output: string[];
  /** Its request counts, printed as it stops. */
  stop(): Promise<Record<string, number>>;
}

let workDir: string;
let stateDir: string;
let sim: SimRuntime;
let cri: CriClient;
let apiserver: ApiServerProcess | undefined;
let kubelet: KubeletProcess;
let adminKubeconfig: string;

/** shardlet-test-apiserver as an operator runs it, in a process group of its own. */
async function startApiServer(): Promise<ApiServerProcess> {
  const child = spawn(
    process.execPath,
    [APISERVER_CLI, '--state-dir', stateDir, '--kubeconfig-out', workDir, '--node-name', NODE, '--default-node-name', NODE],
    { stdio: ['ignore', 'pipe', 'inherit'], detached: true },
  );
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(...chunk.toString().split('\n').filter(Boolean)));
  await waitUntil(async () => {
    if (child.exitCode !== null) throw new Error(`test apiserver exited with ${child.exitCode}`);
    return output.some((line) => line.startsWith('kubeconfigs:'));
  }, 60_000, 'the test API server up');
  return {
    child,
    output,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
      const line = output.find((l) => l.startsWith('{"requestCounts"'));
      return line ? (JSON.parse(line) as { requestCounts: Record<string, number> }).requestCounts : {};
    },
  };
}

async function kubectl(...args: string[]): Promise<string> {
  return kubectlOutput(adminKubeconfig, args);
}

async function getJson<T>(...args: string[]): Promise<T> {
  return JSON.parse(await kubectl('get', ...args, '-o', 'json')) as T;
}

async function phaseOf(name: string): Promise<string | undefined> {
  return (await getJson<Pod>('pod', name).catch(() => undefined))?.status?.phase;
}

/** The running container of each steady pod, as `<id>/<attempt>`, read over the CRI. */
async function steadyContainers(): Promise<Map<string, string>> {
  const reply = await cri.listContainers({});
  const running = reply.containers.filter((c) => c.state === 'CONTAINER_RUNNING' && RUNNING_PODS.includes(c.labels['io.kubernetes.pod.name']));
  return new Map(running.map((c) => [c.labels['io.kubernetes.pod.name'], `${c.id}/${c.metadata?.attempt ?? 0}`]));
}

function podManifest(name: string, command: string, restartPolicy = 'Always'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { restartPolicy, containers: [{ name: 'main', image: 'busybox:1.35', command: ['sh', '-c', command] }] },
  };
}

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-outage-'));
  stateDir = join(workDir, 'apiserver-state');
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  cri = new CriClient(sim.endpoint, { timeoutMs: 30_000 });
  apiserver = await startApiServer();
  adminKubeconfig = join(workDir, 'admin.kubeconfig');
  // A short lease, so that its renewal after the outage shows soon (renewed every 0.25 × 8 s).
  const kubeletConfig = join(workDir, 'kubelet.yaml');
  writeFileSync(kubeletConfig, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nnodeLeaseDurationSeconds: 8\n');
  kubelet = await startKubelet({
    runtimeEndpoint: sim.endpoint,
    workers: 2,
    nodeName: NODE,
    workDir,
    extraArgs: [`--kubeconfig=${join(workDir, `${NODE}.kubeconfig`)}`, '--config', kubeletConfig],
  });
});

after(async () => {
  if (apiserver) {
    rmSync(join(kubelet.manifestDir, 'static-away.yaml'), { force: true });
    await kubectl('delete', 'pods', '--all', '--wait=false').catch(() => undefined);
    await waitUntil(async () => (await cri.listPodSandbox({})).items.length === 0, TIMEOUT_MS, 'pods removed').catch(() => undefined);
  }
  await kubelet?.stop();
  await apiserver?.stop();
  cri?.close();
  await sim?.close();
});

test('the API server away for 60 s and back with its state: pods keep running, statuses and the Lease arrive after, one node registration', async (t) => {
  const pods = [...RUNNING_PODS.map((name) => podManifest(name, 'sleep 3600')), podManifest(FINISHING_POD, `sleep ${FINISHES_AFTER_S}; exit 0`, 'Never')];
  writeFileSync(join(workDir, 'pods.yaml'), pods.map((pod) => stringify(pod)).join('---\n'));
  await kubectl('apply', '-f', join(workDir, 'pods.yaml'));
  await waitUntil(async () => {
    const phases = await Promise.all([...RUNNING_PODS, FINISHING_POD].map(phaseOf));
    return phases.every((phase) => phase === 'Running');
  }, TIMEOUT_MS, 'every pod Running on the API server');
  const node = await getJson<{ metadata: { uid: string } }>('node', NODE);
  const containersBefore = await steadyContainers();
  assert.equal(containersBefore.size, RUNNING_PODS.length);

  const countsBefore = await apiserver!.stop();
  apiserver = undefined;
  const awayAtMs = Date.now();
  // While it is away: a new static pod (its mirror pod can only be created afterwards).
  writeFileSync(join(kubelet.manifestDir, 'static-away.yaml'), manifest('static-away', { containers: [{ name: 'main', image: 'busybox:1.35', command: ['sleep', '3600'] }] }));
  await sleep(OUTAGE_MS);
  apiserver = await startApiServer();
  const backAtMs = Date.now();

  assert.deepEqual(await steadyContainers(), containersBefore, 'the same containers running, none restarted');
  assert.ok(kubelet.child.exitCode === null, 'shardlet stayed up');

  await waitUntil(async () => (await phaseOf(FINISHING_POD)) === 'Succeeded', TIMEOUT_MS, 'the status reached while the server was away');
  await waitUntil(async () => (await phaseOf(`static-away-${NODE}`)) === 'Running', TIMEOUT_MS, 'the mirror pod of the static pod added meanwhile');
  await waitUntil(async () => {
    const lease = await getJson<{ spec: { renewTime: string } }>('lease', NODE, '-n', 'kube-node-lease');
    return Date.parse(lease.spec.renewTime) >= backAtMs - 1_000;
  }, TIMEOUT_MS, 'the Lease renewed after the outage');
  for (const name of RUNNING_PODS) assert.equal(await phaseOf(name), 'Running', `${name} Running`);
  assert.equal((await getJson<{ metadata: { uid: string } }>('node', NODE)).metadata.uid, node.metadata.uid, 'the same Node object');

  const countsAfter = await apiserver.stop();
  apiserver = await startApiServer(); // for the clean-up in after()
  t.diagnostic(`outage ${Math.round((backAtMs - awayAtMs) / 1000)} s; requests before: ${JSON.stringify(countsBefore)}; after: ${JSON.stringify(countsAfter)}`);
  assert.equal(countsBefore['create nodes'], 1, 'the node registered once at start');
  assert.equal(countsAfter['create nodes'] ?? 0, 0, 'and not again after the outage');
  const statusWarnings = kubelet.logs.filter((line) => line.msg === 'Pod status writes are failing; retrying with backoff until the API server answers');
  const statusRecovered = kubelet.logs.filter((line) => line.msg === 'Pod status writes work again; the writes that waited are being sent');
  assert.equal(statusWarnings.length, 1, 'one warning for the outage');
  assert.equal(statusRecovered.length, 1, 'one line when it ends');
  t.diagnostic(`status writes: ${JSON.stringify(statusRecovered[0])}`);
});
