// Graceful node shutdown end to end: a real shardlet process (cluster mode against
// the test API server, the simulated runtime) with shutdownGracePeriod 10s and
// shutdownGracePeriodCriticalPods 4s, on a private system bus whose logind is a
// fake the test controls (it allows 5 s of delay, so shardlet must raise it through
// the drop-in and a reload). One regular API pod and one critical static pod (a
// kubeadm-style manifest: system-node-critical, priority 2000001000), both ignoring
// SIGTERM so each runs until its grace period is over: the regular pod all of its
// group's 6 s, the critical one its own 2 s (shorter than its group's 4 s, so its
// group ends when it stopped). PrepareForShutdown(true): the lock was taken before
// and goes only after both pods stopped, the regular pod first and within its 6 s,
// the critical one only after those 6 s and within the next 4 s, both Failed with
// reason Terminated and DisruptionTarget, the Node NotReady, a new pod refused. Then the
// shutdown is cancelled (the lock is taken again, pods admitted again), a restart of
// shardlet (as after the reboot) runs the static pod again, and a shardlet killed
// outright leaves no lock and no D-Bus tool running behind it.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { CriClient } from '../../src/shared/cri/client.js';
import type { Pod } from '../../src/shared/types.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import { findPod, isRunningAndReady, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { startPrivateLogind, type PrivateLogind } from '../helpers/private-logind.js';
import { testNoRefusals } from '../helpers/no-refusals.js';

const NODE = 'test-node';
const TIMEOUT_MS = 60_000;
const PODS = { key: 'pods', group: '', plural: 'pods' };
const NODES = { key: 'nodes', group: '', plural: 'nodes' };
/** Room on top of a group's period for the signal to arrive and the kill to be sent; still far from the pods' own 30 s. */
const BUDGET_SLACK_MS = 4_000;
/** Rounding between the sim's timestamps and the fake logind's (two processes, one clock). */
const CLOCK_SLACK_MS = 100;
/** A container that ignores SIGTERM: the sim stops it only when its grace period runs out. */
const STUBBORN = ['sh', '-c', "trap '' TERM; sleep 3600"];
const SHUTDOWN_MESSAGE = 'Pod was terminated in response to imminent node shutdown.';

let workDir: string;
let logind: PrivateLogind;
let sim: SimRuntime;
let cri: CriClient;
let api: TestApiServer;
let kubelet: KubeletProcess;
let kubeletArgs: string[];

function apiPod(name: string, command = STUBBORN): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { nodeName: NODE, terminationGracePeriodSeconds: 30, restartPolicy: 'Always', containers: [{ name: 'main', image: 'busybox:1.35', command }] },
  };
}

const apiStatus = (name: string) => (api.store.get(PODS, 'default', name) as Pod | undefined)?.status;

function nodeReady(): { status?: string; reason?: string; message?: string } | undefined {
  const node = api.store.get(NODES, undefined, NODE) as { status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> } } | undefined;
  return node?.status?.conditions?.find((condition) => condition.type === 'Ready');
}

/** PIDs of processes that talk to this test's bus (its address in their environment), the fake logind aside. */
function busClients(): number[] {
  const needle = `DBUS_SYSTEM_BUS_ADDRESS=${logind.address}\0`;
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).map(Number).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(needle) && !readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('fake-logind');
    } catch {
      return false; // gone meanwhile, or not ours to read
    }
  });
}

/** When the pod's container stopped, from the runtime (its finishedAt), with its exit code. */
async function containerStop(pod: Pod | undefined): Promise<{ finishedAtMs: number; exitCode: number }> {
  const containerId = (pod?.status?.containerStatuses?.[0]?.containerID ?? '').replace(/^.*:\/\//, '');
  const status = (await cri.containerStatus({ container_id: containerId, verbose: false })).status!;
  assert.equal(status.state, 'CONTAINER_EXITED', `${pod?.metadata?.name} stopped`);
  return { finishedAtMs: Number(status.finished_at) / 1e6, exitCode: status.exit_code };
}

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-node-shutdown-'));
  logind = await startPrivateLogind({ inhibitDelayMaxSec: 5 });
  // shardlet's busctl and systemd-inhibit find the bus here.
  process.env.DBUS_SYSTEM_BUS_ADDRESS = logind.address;
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  cri = new CriClient(sim.endpoint, { timeoutMs: 30_000 });
  api = await startTestApiServer({ defaultNodeName: NODE });
  const nodeKubeconfig = await api.writeKubeconfig(join(workDir, 'node.kubeconfig'), { user: 'kubelet', nodeName: NODE });
  const config = join(workDir, 'kubelet.yaml');
  writeFileSync(
    config,
    'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nshutdownGracePeriod: 10s\nshutdownGracePeriodCriticalPods: 4s\nnodeStatusUpdateFrequency: 1s\n',
  );
  kubeletArgs = [`--kubeconfig=${nodeKubeconfig}`, '--config', config, `--logind-conf-dir=${logind.confDir}`];
  api.store.create(PODS, apiPod('web') as never);
  kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 1, nodeName: NODE, workDir, extraArgs: kubeletArgs });
  const etcd = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'etcd', namespace: 'kube-system' },
    spec: { priorityClassName: 'system-node-critical', priority: 2_000_001_000, terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: 'busybox:1.35', command: STUBBORN }] },
  };
  writeFileSync(join(kubelet.manifestDir, 'etcd.yaml'), stringify(etcd));
});

after(async () => {
  await kubelet?.stop();
  await api?.stop();
  cri?.close();
  await sim?.close();
  await logind?.stop();
});

test('PrepareForShutdown(true): regular pods within their share, then critical pods, statuses and NotReady, the lock released last', async (t) => {
  await waitUntil(async () => kubelet.logs.some((line) => line.msg === 'Graceful node shutdown: holding a delay inhibitor lock and watching for shutdown'), TIMEOUT_MS, 'the shutdown watch');
  // logind allowed 5 s: shardlet wrote the drop-in, had logind reload, then took the lock.
  assert.match(readFileSync(join(logind.confDir, '99-kubelet.conf'), 'utf8'), /^InhibitDelayMaxSec=10$/m);
  const reload = logind.events.find((event) => event.event === 'kill-unit');
  const lock = await logind.waitFor((event) => event.event === 'inhibit', 'the inhibitor lock');
  assert.deepEqual([lock.what, lock.who, lock.why, lock.mode], ['shutdown', 'kubelet', 'Kubelet needs time to handle node shutdown', 'delay']);
  assert.ok(reload && reload.atMs <= lock.atMs, 'the reload came before the lock');
  await waitUntil(async () => {
    const pods = await kubelet.pods();
    return isRunningAndReady(pods.find((pod) => pod.metadata?.name === 'web')) && isRunningAndReady(pods.find((pod) => pod.metadata?.name === `etcd-${NODE}`));
  }, TIMEOUT_MS, 'both pods Running');
  assert.equal(nodeReady()?.status, 'True');

  logind.prepareForShutdown(true);
  const signal = await logind.waitFor((event) => event.event === 'signal' && event.active === true, 'the signal sent');
  assert.ok(lock.atMs < signal.atMs, 'the lock was held before the shutdown was announced');
  await waitUntil(async () => nodeReady()?.status === 'False', TIMEOUT_MS, 'the Node NotReady');
  const ready = nodeReady();
  assert.deepEqual([ready?.status, ready?.reason, ready?.message], ['False', 'KubeletNotReady', 'node is shutting down']);

  api.store.create(PODS, apiPod('late', ['sleep', '3600']) as never);
  const late = await waitUntil(async () => (apiStatus('late')?.phase === 'Failed' ? apiStatus('late') : undefined), TIMEOUT_MS, 'the new pod refused');
  assert.deepEqual([late.reason, late.message], ['NodeShutdown', 'Pod was rejected as the node is shutting down.']);

  const released = await logind.waitFor((event) => event.event === 'released' && event.id === lock.id, 'the lock released', TIMEOUT_MS);
  const pods = await kubelet.pods();
  const web = pods.find((pod) => pod.metadata?.name === 'web');
  const etcd = findPod(pods, 'etcd');
  const webStop = await containerStop(web);
  const etcdStop = await containerStop(etcd);
  // Each ignored SIGTERM, so each ran until its grace period was over and was killed.
  assert.deepEqual([webStop.exitCode, etcdStop.exitCode], [137, 137]);
  const webMs = webStop.finishedAtMs - signal.atMs;
  const etcdMs = etcdStop.finishedAtMs - signal.atMs;
  t.diagnostic(`after PrepareForShutdown: regular pod stopped at ${webMs} ms, critical at ${etcdMs} ms, lock released at ${released.atMs - signal.atMs} ms`);
  assert.ok(webMs >= 6_000 - CLOCK_SLACK_MS && webMs <= 6_000 + BUDGET_SLACK_MS, `the regular pod got its group's 6 s and no more (${webMs} ms)`);
  assert.ok(etcdMs >= 6_000 + 2_000 - CLOCK_SLACK_MS, `the critical pod untouched during the first group's 6 s, then its own 2 s (${etcdMs} ms)`);
  assert.ok(etcdMs <= 10_000 + BUDGET_SLACK_MS, `the critical pod within the whole 10 s (${etcdMs} ms)`);
  assert.ok(etcdStop.finishedAtMs > webStop.finishedAtMs, 'the regular pod stopped before the critical one');
  assert.ok(released.atMs >= etcdStop.finishedAtMs - CLOCK_SLACK_MS, 'the lock went after both pods stopped');
  const kills = kubelet.logs.filter((line) => line.msg === 'Shutdown manager killing pod with gracePeriod').map((line) => `${line.pod}/${line.gracePeriod}`);
  assert.deepEqual(kills, ['default/web/6', `kube-system/etcd-${NODE}/2`], "the group's period, or the pod's own when shorter");
  const groupEnds = kubelet.logs.filter((line) => line.gracePeriod !== undefined && line.pods !== undefined).map((line) => `${line.msg}/${line.gracePeriod}`);
  assert.deepEqual(groupEnds, ['Shutdown manager pod killing time out/6', 'Done waiting for all pods in group to terminate/4']);

  for (const [name, status] of [['web', web?.status], ['etcd', etcd?.status], ['web in the API', apiStatus('web')]] as const) {
    assert.equal(status?.phase, 'Failed', name);
    assert.equal(status?.reason, 'Terminated', name);
    assert.equal(status?.message, SHUTDOWN_MESSAGE, name);
    const disruption = status?.conditions?.find((condition) => condition.type === 'DisruptionTarget');
    assert.deepEqual([disruption?.status, disruption?.reason, disruption?.message], ['True', 'TerminationByKubelet', SHUTDOWN_MESSAGE], name);
  }
});

test('PrepareForShutdown(false): the lock is taken again, the Node is Ready and pods are admitted again', async () => {
  logind.prepareForShutdown(false);
  await logind.waitFor((event) => event.event === 'inhibit' && (event.id as number) > 1, 'a new inhibitor lock');
  await waitUntil(async () => nodeReady()?.status === 'True', TIMEOUT_MS, 'the Node Ready again');
  api.store.create(PODS, apiPod('after', ['sleep', '3600']) as never);
  await waitUntil(async () => apiStatus('after')?.phase === 'Running', TIMEOUT_MS, 'a new pod Running');
});

test('after a restart (as after the reboot) the static pod shut down runs again; the API pod stays Failed', async () => {
  await kubelet.stop();
  kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 1, nodeName: NODE, workDir, extraArgs: kubeletArgs });
  await waitUntil(async () => isRunningAndReady(findPod(await kubelet.pods(), 'etcd')), TIMEOUT_MS, 'the static pod Running again');
  assert.equal(apiStatus('web')?.phase, 'Failed');
});

test('a shardlet killed outright (SIGKILL) leaves no lock and no D-Bus tool running', async () => {
  await waitUntil(async () => kubelet.logs.some((line) => line.msg === 'Graceful node shutdown: holding a delay inhibitor lock and watching for shutdown'), TIMEOUT_MS, 'the shutdown watch');
  const locks = logind.events.filter((event) => event.event === 'inhibit');
  const held = locks.filter((lock) => !logind.events.some((event) => event.event === 'released' && event.id === lock.id));
  assert.equal(held.length, 1, 'one lock held');
  assert.ok(busClients().filter((pid) => pid !== kubelet.child.pid).length > 0, 'its busctl monitor and systemd-inhibit run beside it');
  await kubelet.kill9();
  await logind.waitFor((event) => event.event === 'released' && event.id === held[0]!.id, 'the lock released');
  await waitUntil(async () => busClients().length === 0, TIMEOUT_MS, 'no process left on the bus');
});

testNoRefusals(() => [api]);
