// The node-wide dead container limit, written once and run against each runtime
// (the simulated one and real containerd): a shardlet process with
// --maximum-dead-containers=2 --maximum-dead-containers-per-container=5 and two
// crash-looping pods next to a steady one. Each pod's own GC would keep five dead
// instances per container; the node-wide pass holds the whole node at two, one per
// container (upstream's MaxContainers / units share), the newest, while the pods go
// on restarting and the running container is never touched. Runtime state is read
// over the CRI, as an operator's crictl would.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { CriClient } from '../../src/shared/cri/client.js';
import type { Pod } from '../../src/shared/types.js';
import { findPod, isRunningAndReady, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

export const MAX_DEAD_CONTAINERS = 2;
const CRASHY_PODS = ['crashy-a', 'crashy-b'];
const POD_UID_LABEL = 'io.kubernetes.pod.uid';

export interface DeadContainerLimitRuntime {
  endpoint: string;
  image: string;
}

interface DeadInstance {
  id: string;
  attempt: number;
}

export async function deadContainerLimitScenario(t: TestContext, runtime: DeadContainerLimitRuntime, timeoutMs: number): Promise<void> {
  const cri = new CriClient(runtime.endpoint, { timeoutMs: 30_000 });
  const kubelet = await startKubelet({
    runtimeEndpoint: runtime.endpoint,
    workers: 1,
    extraArgs: [`--maximum-dead-containers=${MAX_DEAD_CONTAINERS}`, '--maximum-dead-containers-per-container=5', '--container-gc-period=1s'],
  });
  try {
    for (const name of CRASHY_PODS) {
      writeFileSync(join(kubelet.manifestDir, `${name}.yaml`), manifest(name, { restartPolicy: 'Always', containers: [{ name: 'crash', image: runtime.image, command: ['sh', '-c', 'exit 1'] }] }));
    }
    writeFileSync(join(kubelet.manifestDir, 'steady.yaml'), manifest('steady', { containers: [{ name: 'main', image: runtime.image, command: ['sleep', '3600'] }] }));
    const steady = await waitUntil(async () => {
      const pod = findPod(await kubelet.pods(), 'steady');
      return isRunningAndReady(pod) ? pod : false;
    }, timeoutMs, 'the steady pod Running');
    const steadyContainerId = steady!.status!.containerStatuses![0]!.containerID!.replace(/^[^:]*:\/\//, '');

    // Two restarts mean at least two dead instances per pod: four on the node without the limit.
    let uids = await waitForRestarts(kubelet, 2, timeoutMs);
    let deadByPod = await waitForLimit(cri, uids, timeoutMs);
    t.diagnostic(`dead instances after 2 restarts: ${describe(deadByPod)}`);
    const passes = kubelet.logs.filter((line) => line.msg === 'Container garbage collection removed dead containers');
    const reasons = passes.map((line) => line.reasons as Record<string, number>);
    assert.ok(reasons.some((counts) => (counts['MaxContainers share'] ?? 0) > 0), `the node-wide pass says it removed for the share: ${JSON.stringify(reasons)}`);

    // The pods go on crashing and restarting, and the node stays at the limit.
    uids = await waitForRestarts(kubelet, 3, timeoutMs);
    deadByPod = await waitForLimit(cri, uids, timeoutMs);
    t.diagnostic(`dead instances after 3 restarts: ${describe(deadByPod)}`);
    for (const [uid, dead] of deadByPod) {
      assert.ok(dead[0]!.attempt >= 2, `pod ${uid} kept its newest dead instance (attempt ${dead[0]!.attempt}), not an old one`);
    }
    const { containers } = await cri.listContainers({ filter: { id: steadyContainerId } });
    assert.equal(containers[0]?.state, 'CONTAINER_RUNNING', 'the running container of the steady pod is untouched');
  } finally {
    for (const name of [...CRASHY_PODS, 'steady']) rmSync(join(kubelet.manifestDir, `${name}.yaml`), { force: true });
    await waitUntil(async () => (await kubelet.pods()).length === 0, timeoutMs, 'pods removed').catch(() => undefined);
    await kubelet.stop();
    cri.close();
  }
}

/** Waits until every crash-looping pod has restarted `restarts` times; their UIDs. */
async function waitForRestarts(kubelet: KubeletProcess, restarts: number, timeoutMs: number): Promise<string[]> {
  return waitUntil(async () => {
    const pods = await kubelet.pods();
    const crashy = CRASHY_PODS.map((name) => findPod(pods, name));
    if (!crashy.every((pod) => restartCount(pod) >= restarts)) return false;
    return crashy.map((pod) => pod!.metadata!.uid!);
  }, timeoutMs, `${restarts} restarts of each crash-looping pod`);
}

function restartCount(pod: Pod | undefined): number {
  return pod?.status?.containerStatuses?.[0]?.restartCount ?? 0;
}

/** Waits until the node holds at most the limit of dead containers, one per crash-looping pod; newest first per pod. */
async function waitForLimit(cri: CriClient, uids: string[], timeoutMs: number): Promise<Map<string, DeadInstance[]>> {
  return waitUntil(async () => {
    const deadByPod = await deadInstances(cri, uids);
    const total = [...deadByPod.values()].reduce((sum, dead) => sum + dead.length, 0);
    const onePerPod = uids.every((uid) => deadByPod.get(uid)?.length === 1);
    return total <= MAX_DEAD_CONTAINERS && onePerPod ? deadByPod : false;
  }, timeoutMs, `at most ${MAX_DEAD_CONTAINERS} dead containers on the node, one per crash-looping pod`);
}

async function deadInstances(cri: CriClient, uids: string[]): Promise<Map<string, DeadInstance[]>> {
  const { containers } = await cri.listContainers({ filter: { state: { state: 'CONTAINER_EXITED' } } });
  const deadByPod = new Map<string, DeadInstance[]>(uids.map((uid) => [uid, []]));
  for (const container of containers) {
    deadByPod.get(container.labels?.[POD_UID_LABEL] ?? '')?.push({ id: container.id, attempt: container.metadata?.attempt ?? 0 });
  }
  for (const dead of deadByPod.values()) dead.sort((a, b) => b.attempt - a.attempt);
  return deadByPod;
}

function describe(deadByPod: Map<string, DeadInstance[]>): string {
  return [...deadByPod].map(([uid, dead]) => `${uid.slice(0, 8)}: attempts ${dead.map((d) => d.attempt).join(',')}`).join('; ');
}
