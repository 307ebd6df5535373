// Which containers stopping a pod waits for and what removing it takes away: a
// CREATED container never started (containerd 1.6 leaves it as it is on
// StopContainer), so it neither gets a StopContainer nor holds the pod's termination.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import type { CriClient } from '../../../src/shared/cri/client.js';
import type { RuntimeContainer, RuntimePodStatus } from '../../../src/shared/runtime-pod.js';
import { killPod, podStopped, removeDeadInstances, removePodFromRuntime } from '../../../src/workers/kuberuntime/kill-pod.js';
import type { RuntimeDeps } from '../../../src/workers/kuberuntime/runtime-deps.js';
import { mountsAt } from '../../../src/workers/volumes/mountinfo.js';
import { prepareSafeSubpath } from '../../../src/workers/volumes/subpath-bind.js';
import { cleanPodSubPaths } from '../../../src/workers/volumes/subpath-cleanup.js';
import { makeSettings, makeTempDir, POD_UID } from './fixtures.js';

function recordingDeps(): { deps: RuntimeDeps; calls: string[] } {
  const calls: string[] = [];
  const record = (method: string, key: string) => async (req: Record<string, unknown>) => {
    calls.push(`${method} ${String(req[key])}`);
    return {};
  };
  const cri = {
    stopContainer: record('StopContainer', 'container_id'),
    removeContainer: record('RemoveContainer', 'container_id'),
    stopPodSandbox: record('StopPodSandbox', 'pod_sandbox_id'),
    removePodSandbox: record('RemovePodSandbox', 'pod_sandbox_id'),
  } as unknown as CriClient;
  const deps = { cri, settings: makeSettings(), logger: pino({ level: 'silent' }), publishEvent: () => undefined } as unknown as RuntimeDeps;
  return { deps, calls };
}

function container(id: string, state: RuntimeContainer['state'], createdAtMs: number, name = 'app'): RuntimeContainer {
  return {
    id, name, hash: 'h', restartCount: 0, type: 'REGULAR', sandboxId: 's1', state, createdAtMs,
    startedAtMs: 0, finishedAtMs: 0, exitCode: 0, reason: '', message: '', image: 'i', imageRef: 'i',
  };
}

function pod(containers: RuntimeContainer[], sandboxState: 'ready' | 'notready' = 'ready'): RuntimePodStatus {
  return {
    uid: POD_UID, name: 'web-0', namespace: 'shop',
    sandboxes: [{ id: 's1', state: sandboxState, attempt: 0, createdAtMs: 1, ips: [], hostNetwork: false }],
    containers,
  };
}

test('killing a pod stops what may run (running, unknown) and not a container that never started', async () => {
  const { deps, calls } = recordingDeps();
  await killPod(deps, pod([container('run', 'running', 3), container('new', 'created', 2, 'side'), container('unk', 'unknown', 1, 'x')]), undefined, 2);
  assert.deepEqual(calls.sort(), ['StopContainer run', 'StopContainer unk', 'StopPodSandbox s1']);
});

test('a pod whose only container never started is stopped once its sandbox is', () => {
  assert.equal(podStopped(pod([container('new', 'created', 2)], 'notready')), true);
  assert.equal(podStopped(pod([container('new', 'created', 2)], 'ready')), false);
  assert.equal(podStopped(pod([container('run', 'running', 2)], 'notready')), false);
});

test('a live pod keeps its newest exited container but loses a never-started one a newer instance replaced', async () => {
  const { deps, calls } = recordingDeps();
  await removeDeadInstances(deps, pod([container('now', 'running', 3), container('stranded', 'created', 2), container('alone', 'created', 2, 'other')]));
  assert.deepEqual(calls, ['RemoveContainer stranded']);
});

test('exited instances beyond --maximum-dead-containers-per-container go, newest kept; a negative value keeps them all', async () => {
  // Newest first, as the runtime status lists them.
  const instances = [container('e3', 'exited', 3), container('e2', 'exited', 2), container('e1', 'exited', 1), container('side', 'exited', 1, 'side')];
  const { deps, calls } = recordingDeps();
  await removeDeadInstances(deps, pod(instances));
  assert.deepEqual(calls, ['RemoveContainer e2', 'RemoveContainer e1'], 'the default keeps one per name');
  const two = recordingDeps();
  two.deps.settings.maxDeadContainersPerContainer = 2;
  await removeDeadInstances(two.deps, pod(instances));
  assert.deepEqual(two.calls, ['RemoveContainer e1']);
  const all = recordingDeps();
  all.deps.settings.maxDeadContainersPerContainer = -1;
  await removeDeadInstances(all.deps, pod(instances));
  assert.deepEqual(all.calls, []);
});

test('the last instance of a container removed takes its subPath bind mounts along; a name with an instance left keeps them', async () => {
  const { deps, calls } = recordingDeps();
  deps.settings.maxDeadContainersPerContainer = 0;
  const volumePath = makeTempDir('shardlet-killpod-volume-');
  mkdirSync(join(volumePath, 'd'));
  const bind = (containerName: string) =>
    prepareSafeSubpath({ rootDir: deps.settings.rootDir, podUid: POD_UID, volumeName: 'data', volumePath, subPath: 'd', containerName, volumeMountIndex: 0 });
  try {
    const appTarget = await bind('app');
    const sideTarget = await bind('side');
    await removeDeadInstances(deps, pod([container('side-now', 'running', 3, 'side'), container('side-old', 'exited', 2, 'side'), container('app-old', 'exited', 1)]));
    assert.deepEqual(calls.sort(), ['RemoveContainer app-old', 'RemoveContainer side-old']);
    assert.equal(existsSync(appTarget), false);
    assert.equal((await mountsAt(appTarget)).length, 0);
    assert.equal((await mountsAt(sideTarget)).length, 1, 'side still runs');
    assert.equal(existsSync(join(volumePath, 'd')), true, 'the volume keeps its content');
  } finally {
    await cleanPodSubPaths(deps.settings.rootDir, POD_UID);
  }
});

test('--minimum-container-ttl-duration: a dead container created less than that long ago stays and is not counted among those kept', async () => {
  const nowMs = 1_000_000;
  const minuteMs = 60_000;
  // A crash loop under a 6 minute minimum age (OpenShift's setting): instances 1, 3, 7 and 10 minutes old.
  const instances = [
    container('1m', 'exited', nowMs - minuteMs),
    container('3m', 'exited', nowMs - 3 * minuteMs),
    container('7m', 'exited', nowMs - 7 * minuteMs),
    container('10m', 'exited', nowMs - 10 * minuteMs),
    container('stranded', 'created', nowMs - 2 * minuteMs, 'side'),
    container('side', 'running', nowMs - minuteMs, 'side'),
  ];
  const { deps, calls } = recordingDeps();
  deps.settings.containerGCMinAgeMs = 6 * minuteMs;
  const removed = await removeDeadInstances(deps, pod(instances), nowMs);
  assert.deepEqual(calls, ['RemoveContainer 10m'], 'the young ones stay, the newest old enough one is the one kept, the young replaced one waits too');
  assert.deepEqual(removed, ['10m']);
  const noMinimum = recordingDeps();
  await removeDeadInstances(noMinimum.deps, pod(instances), nowMs);
  assert.deepEqual(noMinimum.calls.sort(), ['RemoveContainer 10m', 'RemoveContainer 3m', 'RemoveContainer 7m', 'RemoveContainer stranded'], 'without it, only the newest stays');
});

test('removing a pod removes containers, sandbox and its log directory, and does not stop the stopped sandbox again', async () => {
  const { deps, calls } = recordingDeps();
  const logDir = join(deps.settings.podLogsDir, `shop_web-0_${POD_UID}`);
  mkdirSync(join(logDir, 'app'), { recursive: true });
  await removePodFromRuntime(deps, pod([container('old', 'exited', 1)], 'notready'));
  assert.deepEqual(calls, ['RemoveContainer old', 'RemovePodSandbox s1']);
  assert.equal(existsSync(logDir), false);
});

test("an orphan's log directory is found by its UID when the runtime does not name the pod", async () => {
  const { deps } = recordingDeps();
  const logDir = join(deps.settings.podLogsDir, `shop_web-0_${POD_UID}`);
  const other = join(deps.settings.podLogsDir, 'shop_web-1_another-uid');
  mkdirSync(logDir, { recursive: true });
  mkdirSync(other, { recursive: true });
  await removePodFromRuntime(deps, { ...pod([]), name: '', namespace: '', sandboxes: [] });
  assert.equal(existsSync(logDir), false);
  assert.equal(existsSync(other), true, "another pod's logs stay");
});

test("a dead instance the runtime refuses to remove leaves the pod's sync alone; containerd 1.6's leaked task is named once, with its code", async () => {
  const { deps, calls } = recordingDeps();
  const warnings: Array<Record<string, unknown>> = [];
  deps.logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  const refusal = Object.assign(new Error('CRI RuntimeService/RemoveContainer failed: FAILED_PRECONDITION: cannot delete running task leaked: failed precondition'), { code: 9 });
  const removeContainer = deps.cri.removeContainer;
  deps.cri.removeContainer = (async (req: { container_id: string }) => {
    if (req.container_id === 'leaked') throw refusal;
    return removeContainer.call(deps.cri, req);
  }) as typeof deps.cri.removeContainer;
  const runtime = pod([container('now', 'exited', 4), container('leaked', 'exited', 3), container('old', 'exited', 2)]);
  assert.deepEqual(await removeDeadInstances(deps, runtime), ['old'], 'only what is gone is reported gone');
  assert.deepEqual(await removeDeadInstances(deps, runtime), ['old']);
  assert.deepEqual(calls, ['RemoveContainer old', 'RemoveContainer old']);
  assert.deepEqual(warnings.map((line) => [line.code, line.containerId]), [['SHARDLET_RUNTIME_TASK_LEAKED', 'leaked']]);
  // Removing the whole pod still fails while the runtime refuses: it is tried again, and the warning is not repeated.
  await assert.rejects(removePodFromRuntime(deps, runtime), /cannot delete running task/);
  assert.equal(warnings.length, 1);
});
