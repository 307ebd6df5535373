// One node-wide container GC pass against the simulated runtime: what the policy
// picks goes, with its log files; a running container, the newest dead instance
// of a live pod and anything without the kubelet's labels stay; a pass that
// cannot list the runtime is reported as ContainerGCFailed.
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { ContainerGcManager } from '../../../src/main/kuberuntime/container-gc-manager.js';
import { CriClient } from '../../../src/shared/cri/client.js';
import { ContainerState } from '../../../src/shared/cri/types.js';
import type { PodGcState } from '../../../src/shared/kuberuntime/container-gc-policy.js';
import { containerConfig, eventually, sandboxConfig, startHarness, TEST_IMAGE, type SimHarness } from '../../simruntime/harness.js';

const POD_UID_LABEL = 'io.kubernetes.pod.uid';
const silent = pino({ level: 'silent' });

interface TestPod {
  sandboxId: string;
  logDir: string;
  uid: string;
}

async function runPod(harness: SimHarness, name: string, kubelets: boolean): Promise<TestPod> {
  const uid = `uid-${name}`;
  const config = sandboxConfig(name, { uid, labels: kubelets ? { [POD_UID_LABEL]: uid } : {} });
  config.log_directory = join(`${harness.socketPath}-logs`, name);
  const { pod_sandbox_id } = await harness.client.runPodSandbox({ config });
  return { sandboxId: pod_sandbox_id, logDir: config.log_directory, uid };
}

/** Starts instance `attempt` of a container; with `exits`, waits until it has exited. */
async function startInstance(harness: SimHarness, pod: TestPod, name: string, attempt: number, options: { exits: boolean; kubelets?: boolean }): Promise<string> {
  const { client } = harness;
  mkdirSync(join(pod.logDir, name), { recursive: true });
  const labels: Record<string, string> = options.kubelets === false ? {} : { [POD_UID_LABEL]: pod.uid };
  const command = options.exits ? ['sh', '-c', 'exit 1'] : ['sleep', 'infinity'];
  const config = containerConfig(name, command, { attempt, labels });
  const { container_id } = await client.createContainer({ pod_sandbox_id: pod.sandboxId, config, sandbox_config: sandboxConfig(name, { uid: pod.uid }) });
  await client.startContainer({ container_id });
  if (options.exits) {
    await eventually(async () => ((await client.containerStatus({ container_id })).status?.state === ContainerState.CONTAINER_EXITED ? true : undefined));
  }
  return container_id;
}

async function containerIds(client: CriClient): Promise<Set<string>> {
  return new Set((await client.listContainers({})).containers.map((c) => c.id));
}

test('a pass removes what the policy picks, with its logs, and nothing of a live pod it must keep or of another client', async () => {
  const harness = await startHarness();
  const { client } = harness;
  try {
    await client.pullImage({ image: { image: TEST_IMAGE } });
    const live = await runPod(harness, 'live', true);
    const oldest = await startInstance(harness, live, 'app', 0, { exits: true });
    const older = await startInstance(harness, live, 'app', 1, { exits: true });
    const newest = await startInstance(harness, live, 'app', 2, { exits: true });
    const running = await startInstance(harness, live, 'side', 0, { exits: false });
    appendFileSync(join(live.logDir, 'app', '0.log'), 'x\n');
    appendFileSync(join(live.logDir, 'app', '0.log.20260101-000000.gz'), 'x\n');
    const gone = await runPod(harness, 'gone', true);
    const goneContainer = await startInstance(harness, gone, 'app', 0, { exits: true });
    await client.stopPodSandbox({ pod_sandbox_id: gone.sandboxId });
    const foreign = await runPod(harness, 'foreign', false);
    const foreignContainer = await startInstance(harness, foreign, 'app', 0, { exits: true, kubelets: false });
    await client.stopPodSandbox({ pod_sandbox_id: foreign.sandboxId });

    const states: Record<string, PodGcState> = { [live.uid]: 'live' };
    const manager = new ContainerGcManager({
      cri: () => client,
      policy: { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 },
      periodMs: 60_000,
      podState: (uid) => states[uid] ?? 'gone',
      logger: silent,
    });
    const plan = await manager.collect();
    assert.ok(plan);
    const left = await containerIds(client);
    assert.deepEqual([oldest, older, goneContainer].filter((id) => left.has(id)), [], 'the older instances and the gone pod\'s container are removed');
    assert.deepEqual([newest, running, foreignContainer].filter((id) => !left.has(id)), [], 'the newest dead instance, the running one and the foreign one stay');
    assert.deepEqual(readdirSync(join(live.logDir, 'app')), ['2.log'], "the removed instances' log files and the rotated ones went with them");
    const sandboxes = new Set((await client.listPodSandbox({})).items.map((s) => s.id));
    assert.equal(sandboxes.has(gone.sandboxId), false, 'the gone pod\'s empty sandbox is removed');
    assert.equal(sandboxes.has(foreign.sandboxId), true, 'a sandbox without the kubelet\'s labels stays');
    assert.equal(sandboxes.has(live.sandboxId), true);
    assert.ok(existsSync(live.logDir));
  } finally {
    await harness.close();
  }
});

test('--maximum-dead-containers holds across pods: one each, then the oldest go, never a running container', async () => {
  const harness = await startHarness();
  const { client } = harness;
  try {
    await client.pullImage({ image: { image: TEST_IMAGE } });
    const pods = [await runPod(harness, 'a', true), await runPod(harness, 'b', true), await runPod(harness, 'c', true)];
    const firstDead: string[] = [];
    for (const pod of pods) firstDead.push(await startInstance(harness, pod, 'app', 0, { exits: true }));
    const running = await Promise.all(pods.map((pod) => startInstance(harness, pod, 'side', 0, { exits: false })));
    const manager = new ContainerGcManager({
      cri: () => client,
      policy: { minAgeMs: 0, maxPerPodContainer: 5, maxContainers: 2 },
      periodMs: 60_000,
      podState: () => 'live',
      logger: silent,
    });
    await manager.collect();
    const left = await containerIds(client);
    assert.deepEqual(firstDead.map((id) => left.has(id)), [false, true, true], "the oldest pod's dead container goes: two are left");
    assert.ok(running.every((id) => left.has(id)), 'every running container stays');
  } finally {
    await harness.close();
  }
});

test('a pass that cannot list the runtime is logged and recorded as a ContainerGCFailed node event', async () => {
  const harness = await startHarness();
  const unreachable = new CriClient(`unix://${harness.socketPath}.missing`, { timeoutMs: 300 });
  try {
    const events: string[] = [];
    const manager = new ContainerGcManager({
      cri: () => unreachable,
      policy: { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 },
      periodMs: 60_000,
      podState: () => 'live',
      logger: silent,
      onNodeEvent: (type, reason) => events.push(`${type} ${reason}`),
    });
    assert.equal(await manager.collect(), undefined);
    assert.deepEqual(events, ['Warning ContainerGCFailed']);
  } finally {
    unreachable.close();
    await harness.close();
  }
});
