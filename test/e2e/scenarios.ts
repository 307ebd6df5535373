// End-to-end scenarios of standalone shardlet, written once and run against each
// runtime (the simulated one and real containerd): a real shardlet process, real
// manifest files, status read from /pods and runtime state read over the CRI.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { CriClient } from '../../src/shared/cri/client.js';
import type { Pod } from '../../src/shared/types.js';
import { findPod, isRunningAndReady, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';

export interface RuntimeUnderTest {
  name: string;
  endpoint: string;
  image: string;
  /** Whether the runtime really runs processes and mounts (containerd) or models them (sim). */
  realProcesses: boolean;
}

const POD_TIMEOUT_MS = 90_000;

export function manifest(name: string, spec: Pod['spec'], metadata: Record<string, unknown> = {}): string {
  return stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata }, spec });
}

async function runtimeContainers(cri: CriClient, uid: string) {
  const reply = await cri.listContainers({ filter: { label_selector: { 'io.kubernetes.pod.uid': uid } } });
  return reply.containers;
}

async function runtimeSandboxes(cri: CriClient, uid: string) {
  const reply = await cri.listPodSandbox({ filter: { label_selector: { 'io.kubernetes.pod.uid': uid } } });
  return reply.items;
}

export function standaloneScenarios(getRuntime: () => Promise<RuntimeUnderTest>, workers: number): void {
  let runtime: RuntimeUnderTest;
  let kubelet: KubeletProcess;
  let cri: CriClient;
  const hostDir = mkdtempSync(join(tmpdir(), 'shardlet-hostpath-'));

  const waitForPod = (prefix: string, check: (pod: Pod | undefined) => boolean, what: string) =>
    waitUntil(async () => {
      const pod = findPod(await kubelet.pods(), prefix);
      return check(pod) ? (pod ?? true) : false;
    }, POD_TIMEOUT_MS, `${prefix}: ${what}`);
  const write = (file: string, text: string) => writeFileSync(join(kubelet.manifestDir, file), text);

  before(async () => {
    runtime = await getRuntime();
    // A resync period longer than any wait here: every step must be driven by PLEG events and the pod workers, never by the periodic resync.
    kubelet = await startKubelet({ runtimeEndpoint: runtime.endpoint, workers, extraArgs: ['--sync-frequency=10m'] });
    cri = new CriClient(runtime.endpoint, { timeoutMs: 30_000 });
  });

  after(async () => {
    for (const file of ['init.yaml', 'edit.yaml', 'pinned.yaml', 'crash.yaml', 'hostnet.yaml', 'ok.yaml', 'bad.yaml', 'grace.yaml']) {
      rmSync(join(kubelet.manifestDir, file), { force: true });
    }
    // Let shardlet stop and remove the pods before it exits (each has a short grace
    // period: `sleep` as PID 1 ignores SIGTERM): a pod left in the runtime would run on
    // after the suite.
    await waitUntil(async () => (await kubelet.pods()).length === 0, 60_000, 'pods removed').catch(() => undefined);
    await waitUntil(async () => (await cri.listPodSandbox({})).items.every((sandbox) => !sandbox.metadata?.name.endsWith('-test-node')), 30_000, 'sandboxes removed').catch(() => undefined);
    await kubelet.stop();
    cri.close();
    rmSync(hostDir, { recursive: true, force: true });
  });

  test(`[${workers} workers] a static pod with an init container and two containers reaches Running`, async () => {
    write(
      'init.yaml',
      manifest('init', {
        terminationGracePeriodSeconds: 2,
        initContainers: [{ name: 'prepare', image: runtime.image, command: ['sh', '-c', 'echo handed-over > /work/state'], volumeMounts: [{ name: 'work', mountPath: '/work' }] }],
        containers: [
          { name: 'app', image: runtime.image, command: ['sh', '-c', 'test -f /work/state || exit 3; sleep 3600'], volumeMounts: [{ name: 'work', mountPath: '/work' }] },
          { name: 'sidecar', image: runtime.image, command: ['sh', '-c', 'sleep 3600'] },
        ],
        volumes: [{ name: 'work', emptyDir: {} }],
      }),
    );
    const pod = (await waitForPod('init', isRunningAndReady, 'Running and Ready')) as Pod;
    assert.equal(pod.status?.initContainerStatuses?.[0]?.state?.terminated?.reason, 'Completed');
    assert.ok(pod.status?.podIP, 'the pod has an IP');
    const uid = pod.metadata!.uid!;
    const containers = await runtimeContainers(cri, uid);
    const byName = new Map(containers.map((c) => [c.labels['io.kubernetes.container.name'], c]));
    assert.deepEqual([...byName.keys()].sort(), ['app', 'prepare', 'sidecar']);
    for (const container of containers) {
      assert.equal(container.labels['io.kubernetes.pod.uid'], uid);
      assert.equal(container.labels['io.kubernetes.pod.name'], 'init-test-node');
      assert.equal(container.labels['io.kubernetes.pod.namespace'], 'default');
      assert.match(container.annotations['io.kubernetes.container.hash'] ?? '', /^[0-9a-f]+$/);
      assert.equal(container.annotations['io.kubernetes.container.restartCount'], '0');
    }
    assert.equal(byName.get('prepare')!.state, 'CONTAINER_EXITED');
    // The shards report upstream's events for what they did (logged at -v 4).
    const events = kubelet.logs.filter((line) => line.msg === 'Event' && line.pod === 'default/init-test-node');
    for (const [reason, object] of [['Created', 'spec.initContainers{prepare}'], ['Started', 'spec.containers{app}'], ['Pulled', 'spec.containers{sidecar}']]) {
      assert.ok(events.some((e) => e.reason === reason && e.object === object), `${reason} event for ${object}`);
    }
    assert.equal(byName.get('app')!.state, 'CONTAINER_RUNNING');
    assert.equal((await runtimeSandboxes(cri, uid)).length, 1);
  });

  test(`[${workers} workers] changing a static pod's manifest replaces the pod`, async () => {
    // A short grace period: `sleep` as PID 1 ignores SIGTERM, and the old version's stop would take the default 30 s.
    const spec = (command: string) => ({ terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: runtime.image, command: ['sh', '-c', command] }] });
    write('edit.yaml', manifest('edit', spec('sleep 3600')));
    const before = (await waitForPod('edit', isRunningAndReady, 'first version Running')) as Pod;
    write('edit.yaml', manifest('edit', spec('sleep 7200')));
    const replaced = (await waitForPod('edit', (pod) => isRunningAndReady(pod) && pod!.metadata!.uid !== before.metadata!.uid, 'second version Running')) as Pod;
    assert.notEqual(replaced.metadata!.uid, before.metadata!.uid, 'a new manifest hash is a new pod');
    await waitUntil(async () => (await runtimeSandboxes(cri, before.metadata!.uid!)).length === 0, POD_TIMEOUT_MS, 'old pod removed from the runtime');
    assert.equal((await runtimeContainers(cri, before.metadata!.uid!)).length, 0);
  });

  test(`[${workers} workers] with metadata.uid set, changing one container's command restarts only that container`, async () => {
    const spec = (command: string) => ({
      terminationGracePeriodSeconds: 2,
      containers: [
        { name: 'steady', image: runtime.image, command: ['sh', '-c', 'sleep 3600'] },
        { name: 'changing', image: runtime.image, command: ['sh', '-c', command] },
      ],
    });
    const uid = 'b6f0a3f2-8d7c-4c39-9a55-0f4a3e2d1c01';
    write('pinned.yaml', manifest('pinned', spec('sleep 3600'), { uid }));
    const first = (await waitForPod('pinned', isRunningAndReady, 'Running')) as Pod;
    const idOf = (pod: Pod, name: string) => pod.status!.containerStatuses!.find((c) => c.name === name)!.containerID;
    const sandboxes = await runtimeSandboxes(cri, uid);
    write('pinned.yaml', manifest('pinned', spec('sleep 7200'), { uid }));
    const second = (await waitForPod(
      'pinned',
      (pod) => isRunningAndReady(pod) && idOf(pod!, 'changing') !== idOf(first, 'changing'),
      'changed container restarted',
    )) as Pod;
    assert.equal(second.metadata!.uid, uid);
    assert.equal(idOf(second, 'steady'), idOf(first, 'steady'), 'the unchanged container keeps running');
    // One more than before: a count read off log files an earlier run of this pinned UID left may start above 0.
    const restartsOf = (pod: Pod) => pod.status!.containerStatuses!.find((c) => c.name === 'changing')!.restartCount;
    assert.equal(restartsOf(second), restartsOf(first) + 1);
    assert.deepEqual((await runtimeSandboxes(cri, uid)).map((s) => s.id), sandboxes.map((s) => s.id), 'same sandbox');
  });

  test(`[${workers} workers] removing the file stops the pod within its grace period`, async () => {
    write(
      'grace.yaml',
      manifest('grace', {
        terminationGracePeriodSeconds: 3,
        containers: [{ name: 'stubborn', image: runtime.image, command: ['sh', '-c', "trap '' TERM; while true; do sleep 1; done"] }],
      }),
    );
    const pod = (await waitForPod('grace', isRunningAndReady, 'Running')) as Pod;
    const removedAtMs = Date.now();
    rmSync(join(kubelet.manifestDir, 'grace.yaml'));
    await waitUntil(async () => {
      const containers = await runtimeContainers(cri, pod.metadata!.uid!);
      return containers.every((c) => c.state !== 'CONTAINER_RUNNING');
    }, POD_TIMEOUT_MS, 'containers stopped');
    const stoppedAfterMs = Date.now() - removedAtMs;
    // Functional bound, not a speed target: killed once the 3 s grace period ran out, not 30 s later.
    assert.ok(stoppedAfterMs < 3_000 + 10_000, `stopped after ${stoppedAfterMs} ms`);
    await waitUntil(async () => (await runtimeSandboxes(cri, pod.metadata!.uid!)).length === 0, POD_TIMEOUT_MS, 'sandbox removed');
  });

  test(`[${workers} workers] a container that exits 1 under restartPolicy Always is restarted with backoff`, async () => {
    write('crash.yaml', manifest('crash', { restartPolicy: 'Always', containers: [{ name: 'fails', image: runtime.image, command: ['sh', '-c', 'exit 1'] }] }));
    const reasons = new Set<string>();
    const pod = (await waitForPod(
      'crash',
      (candidate) => {
        const status = candidate?.status?.containerStatuses?.[0];
        if (status?.state?.waiting?.reason) reasons.add(status.state.waiting.reason);
        return (status?.restartCount ?? 0) >= 2;
      },
      'restarted twice',
    )) as Pod;
    const status = pod.status!.containerStatuses![0];
    assert.equal(status.lastState?.terminated?.exitCode, 1);
    assert.equal(status.lastState?.terminated?.reason, 'Error');
    assert.ok(reasons.has('CrashLoopBackOff'), `waiting reasons seen: ${[...reasons].join(', ')}`);
    assert.ok(
      kubelet.logs.some((line) => line.msg === 'Event' && line.reason === 'BackOff' && line.pod === 'default/crash-test-node'),
      'a BackOff event',
    );
    assert.notEqual(pod.status!.phase, 'Failed');
  });

  test(`[${workers} workers] a hostNetwork pod with a hostPath volume`, async () => {
    const target = join(hostDir, 'created-by-kubelet');
    write(
      'hostnet.yaml',
      manifest('hostnet', {
        terminationGracePeriodSeconds: 2,
        hostNetwork: true,
        containers: [{ name: 'writer', image: runtime.image, command: ['sh', '-c', 'echo from-pod > /host/out; sleep 3600'], volumeMounts: [{ name: 'host', mountPath: '/host' }] }],
        volumes: [{ name: 'host', hostPath: { path: target, type: 'DirectoryOrCreate' } }],
      }),
    );
    const pod = (await waitForPod('hostnet', isRunningAndReady, 'Running')) as Pod;
    assert.ok(existsSync(target), 'DirectoryOrCreate created the host directory');
    assert.equal(pod.status!.podIP, pod.status!.hostIP, 'a hostNetwork pod has the node IP');
    const sandbox = (await runtimeSandboxes(cri, pod.metadata!.uid!))[0];
    const sandboxStatus = await cri.podSandboxStatus({ pod_sandbox_id: sandbox.id, verbose: false });
    assert.equal(sandboxStatus.status?.linux?.namespaces?.options?.network, 'NODE');
    if (runtime.realProcesses) {
      await waitUntil(async () => existsSync(join(target, 'out')), 30_000, 'file written through the hostPath mount');
      assert.equal(readFileSync(join(target, 'out'), 'utf8').trim(), 'from-pod');
    }
  });

  test(`[${workers} workers] a malformed manifest is reported and skipped while other pods keep running`, async () => {
    write('ok.yaml', manifest('ok', { terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: runtime.image, command: ['sh', '-c', 'sleep 3600'] }] }));
    write('bad.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec: {containers: [{name: c}]}\n');
    await waitForPod('ok', isRunningAndReady, 'Running');
    const report = await waitUntil(
      async () => kubelet.logs.find((line) => line.code === 'SHARDLET_MANIFEST_INVALID' && JSON.stringify(line).includes('bad.yaml')),
      30_000,
      'the malformed manifest reported',
    );
    assert.ok(report);
    assert.ok(!(await kubelet.pods()).some((pod) => pod.metadata?.name?.startsWith('bad')));
    assert.ok(isRunningAndReady(findPod(await kubelet.pods(), 'init')), 'earlier pods are untouched');
  });
}
