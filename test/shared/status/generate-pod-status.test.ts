import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generatePodStatus, type StatusContext } from '../../../src/shared/status/generate-pod-status.js';
import type { RuntimePodStatus } from '../../../src/shared/runtime-pod.js';
import type { Pod, PodCondition, PodStatus } from '../../../src/shared/types.js';
import { exited, instance, makePod, NOW_MS, runtimeOf, sandbox, SECOND_MS, spec } from '../runtime-fixtures.js';

const HOST_IP = '192.168.1.10';

function ctx(extra: Partial<StatusContext> = {}): StatusContext {
  return { nowMs: NOW_MS, hostIP: HOST_IP, waitingReasons: {}, ...extra };
}

function conditionOf(status: PodStatus, type: string): PodCondition | undefined {
  return status.conditions?.find((c) => c.type === type);
}

/** type=status(reason): message, for every kubelet condition, in order. */
function conditionLines(status: PodStatus): string[] {
  return (status.conditions ?? []).map((c) => `${c.type}=${c.status}${c.reason ? `(${c.reason})` : ''}${c.message ? `: ${c.message}` : ''}`);
}

/** name:state[/reason] for each container status. */
function stateLines(statuses: PodStatus['containerStatuses']): string[] {
  return (statuses ?? []).map((s) => {
    if (s.state?.running) return `${s.name}:running`;
    if (s.state?.terminated) return `${s.name}:terminated/${s.state.terminated.reason}/${s.state.terminated.exitCode}`;
    return `${s.name}:waiting/${s.state?.waiting?.reason ?? ''}`;
  });
}

const twoApps = makePod({}, [spec('b'), spec('a')]);
const withInit = makePod({ initContainers: [spec('init1')] }, [spec('a')]);
const never = makePod({ restartPolicy: 'Never' });
const onFailure = makePod({ restartPolicy: 'OnFailure' });
const single = makePod();

interface PhaseCase {
  name: string;
  pod: Pod;
  runtime: RuntimePodStatus;
  phase: string;
  ready: string;
}

const phases: PhaseCase[] = [
  { name: 'nothing created yet', pod: single, runtime: runtimeOf([], []), phase: 'Pending', ready: 'False(ContainersNotReady)' },
  { name: 'init container running', pod: withInit, runtime: runtimeOf([sandbox()], [instance(withInit, 'init1')]), phase: 'Pending', ready: 'False(ContainersNotReady)' },
  { name: 'all running', pod: single, runtime: runtimeOf([sandbox()], [instance(single, 'a')]), phase: 'Running', ready: 'True' },
  { name: 'Never, exited 0', pod: never, runtime: runtimeOf([sandbox({ state: 'notready' })], [exited(never, 'a', 0)]), phase: 'Succeeded', ready: 'False(PodCompleted)' },
  { name: 'OnFailure, exited 0', pod: onFailure, runtime: runtimeOf([sandbox()], [exited(onFailure, 'a', 0)]), phase: 'Succeeded', ready: 'False(PodCompleted)' },
  { name: 'Never, exited 1', pod: never, runtime: runtimeOf([sandbox()], [exited(never, 'a', 1)]), phase: 'Failed', ready: 'False(PodFailed)' },
  { name: 'OnFailure, exited 1: restarting', pod: onFailure, runtime: runtimeOf([sandbox()], [exited(onFailure, 'a', 1)]), phase: 'Running', ready: 'False(ContainersNotReady)' },
  { name: 'Always, exited 0: restarting', pod: single, runtime: runtimeOf([sandbox()], [exited(single, 'a', 0)]), phase: 'Running', ready: 'False(ContainersNotReady)' },
  {
    name: 'init container failed under Never',
    pod: makePod({ restartPolicy: 'Never', initContainers: [spec('init1')] }),
    runtime: runtimeOf([sandbox()], [exited(withInit, 'init1', 1)]),
    phase: 'Failed',
    ready: 'False(PodFailed)',
  },
  {
    name: 'init container failed under Always: still initializing',
    pod: withInit,
    runtime: runtimeOf([sandbox()], [exited(withInit, 'init1', 1)]),
    phase: 'Pending',
    ready: 'False(ContainersNotReady)',
  },
];

for (const { name, pod, runtime, phase, ready } of phases) {
  test(`pod status phase: ${name} → ${phase}`, () => {
    const status = generatePodStatus(pod, runtime, ctx());
    assert.equal(status.phase, phase);
    const condition = conditionOf(status, 'Ready');
    assert.equal(`${condition?.status}${condition?.reason ? `(${condition.reason})` : ''}`, ready);
  });
}

test('pod status: a new pod is Pending with ContainerCreating, start time and host IP set', () => {
  const status = generatePodStatus(twoApps, runtimeOf([], []), ctx());
  assert.equal(status.phase, 'Pending');
  assert.deepEqual(stateLines(status.containerStatuses), ['a:waiting/ContainerCreating', 'b:waiting/ContainerCreating']);
  assert.deepEqual(conditionLines(status), [
    'PodReadyToStartContainers=False',
    'Initialized=True',
    'Ready=False(ContainersNotReady): containers with unready status: [b a]',
    'ContainersReady=False(ContainersNotReady): containers with unready status: [b a]',
    'PodScheduled=True',
  ]);
  assert.equal(status.hostIP, HOST_IP);
  assert.deepEqual(status.hostIPs, [{ ip: HOST_IP }]);
  assert.equal(status.podIP, undefined);
  assert.deepEqual(status.startTime, new Date(NOW_MS));
  assert.equal(status.qosClass, 'BestEffort');
  assert.equal(status.initContainerStatuses, undefined);
});

test('pod status: while an init container runs, app containers are PodInitializing and Initialized is False', () => {
  const runtime = runtimeOf([sandbox()], [instance(withInit, 'init1')]);
  const status = generatePodStatus(withInit, runtime, ctx());
  assert.deepEqual(stateLines(status.initContainerStatuses), ['init1:running']);
  assert.deepEqual(stateLines(status.containerStatuses), ['a:waiting/PodInitializing']);
  assert.deepEqual(conditionLines(status).slice(0, 2), [
    'PodReadyToStartContainers=True',
    'Initialized=False(ContainersNotInitialized): containers with incomplete status: [init1]',
  ]);
  assert.equal(status.initContainerStatuses?.[0].ready, false);
  assert.equal(status.initContainerStatuses?.[0].started, true);
});

test('pod status: a completed init container is ready and the pod initialized', () => {
  const runtime = runtimeOf([sandbox()], [exited(withInit, 'init1', 0), instance(withInit, 'a')]);
  const status = generatePodStatus(withInit, runtime, ctx());
  assert.deepEqual(stateLines(status.initContainerStatuses), ['init1:terminated/Completed/0']);
  assert.equal(status.initContainerStatuses?.[0].ready, true);
  assert.equal(conditionOf(status, 'Initialized')?.status, 'True');
  assert.equal(status.phase, 'Running');
});

test('pod status: running pod reports ready containers, IDs, images and pod IPs', () => {
  const runtime = runtimeOf([sandbox({ ips: ['10.88.0.7', 'fd00::7'] })], [instance(twoApps, 'a'), instance(twoApps, 'b')]);
  const status = generatePodStatus(twoApps, runtime, ctx());
  assert.equal(status.phase, 'Running');
  assert.deepEqual(conditionLines(status), [
    'PodReadyToStartContainers=True',
    'Initialized=True',
    'Ready=True',
    'ContainersReady=True',
    'PodScheduled=True',
  ]);
  assert.equal(status.podIP, '10.88.0.7');
  assert.deepEqual(status.podIPs, [{ ip: '10.88.0.7' }, { ip: 'fd00::7' }]);
  // Sorted by name, as upstream's SortedContainerStatuses.
  const [a] = status.containerStatuses ?? [];
  assert.equal(a.name, 'a');
  assert.equal(a.containerID, 'containerd://a-0');
  assert.equal(a.image, 'registry.local/a:1');
  assert.equal(a.imageID, 'sha256:a');
  assert.equal(a.ready, true);
  assert.equal(a.started, true);
  assert.equal(a.restartCount, 0);
  assert.deepEqual(a.state?.running?.startedAt, new Date(NOW_MS - 299 * SECOND_MS));
});

test('pod status: CrashLoopBackOff is waiting, with the last exit as lastState', () => {
  const runtime = runtimeOf([sandbox()], [
    exited(single, 'a', 1, { restartCount: 2 }),
    exited(single, 'a', 1, { restartCount: 3, id: 'a-3', finishedAtMs: NOW_MS - 5 * SECOND_MS }),
  ]);
  const waitingReasons = { a: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container=a pod=web_default(uid-1)' } };
  const status = generatePodStatus(single, runtime, ctx({ waitingReasons }));
  const [a] = status.containerStatuses ?? [];
  assert.deepEqual(a.state, { waiting: waitingReasons.a });
  assert.equal(a.lastState?.terminated?.exitCode, 1);
  assert.equal(a.lastState?.terminated?.reason, 'Error');
  assert.equal(a.lastState?.terminated?.containerID, 'containerd://a-3');
  assert.equal(a.restartCount, 3);
  assert.equal(a.ready, false);
  assert.equal(status.phase, 'Running');
});

test('pod status: a restarted running container shows the previous instance as lastState', () => {
  const runtime = runtimeOf([sandbox()], [
    exited(single, 'a', 0, { reason: 'OOMKilled' }),
    instance(single, 'a', { restartCount: 1 }),
  ]);
  const [a] = generatePodStatus(single, runtime, ctx()).containerStatuses ?? [];
  assert.ok(a.state?.running);
  assert.equal(a.lastState?.terminated?.reason, 'OOMKilled');
  assert.equal(a.restartCount, 1);
});

test('pod status: image pull errors show on a container never created', () => {
  const waitingReasons = { a: { reason: 'ErrImagePull', message: 'pull access denied' } };
  const status = generatePodStatus(single, runtimeOf([sandbox()], []), ctx({ waitingReasons }));
  assert.deepEqual(stateLines(status.containerStatuses), ['a:waiting/ErrImagePull']);
  assert.equal(status.containerStatuses?.[0].state?.waiting?.message, 'pull access denied');
  assert.equal(status.phase, 'Pending');
});

test('pod status: a stale waiting reason does not hide a running container', () => {
  const waitingReasons = { a: { reason: 'ErrImagePull', message: 'old' } };
  const status = generatePodStatus(single, runtimeOf([sandbox()], [instance(single, 'a')]), ctx({ waitingReasons }));
  assert.deepEqual(stateLines(status.containerStatuses), ['a:running']);
});

test('pod status: transition times are kept while a condition holds, renewed when it flips', () => {
  const earlier = new Date(NOW_MS - 3600 * SECOND_MS);
  const previous: PodStatus = {
    phase: 'Running',
    startTime: earlier,
    conditions: [
      { type: 'Ready', status: 'False', lastTransitionTime: earlier },
      { type: 'PodScheduled', status: 'True', lastTransitionTime: earlier.toISOString() as unknown as Date },
    ],
  };
  const status = generatePodStatus(single, runtimeOf([sandbox()], [instance(single, 'a')]), ctx({ previous }));
  assert.deepEqual(conditionOf(status, 'Ready')?.lastTransitionTime, new Date(NOW_MS));
  assert.deepEqual(conditionOf(status, 'PodScheduled')?.lastTransitionTime, earlier);
  assert.deepEqual(status.startTime, earlier);
});

test('pod status: a terminal phase is never left, even when the runtime forgets the pod', () => {
  const previous: PodStatus = { phase: 'Succeeded', reason: 'Done', startTime: new Date(NOW_MS - 60_000) };
  const status = generatePodStatus(never, runtimeOf([], []), ctx({ previous }));
  assert.equal(status.phase, 'Succeeded');
  assert.equal(status.reason, 'Done');
});

test('pod status: a pod failed outside the runtime is Failed with the given reason', () => {
  const status = generatePodStatus(single, runtimeOf([], []), ctx({ failure: { reason: 'OutOfcpu', message: 'Node didn\'t have enough resource: cpu' } }));
  assert.equal(status.phase, 'Failed');
  assert.equal(status.reason, 'OutOfcpu');
  assert.equal(conditionOf(status, 'Ready')?.reason, 'PodFailed');
});

test('pod status: hostNetwork pods take the node IP; container IDs use the runtime name', () => {
  const pod = makePod({ hostNetwork: true });
  const runtime = runtimeOf([sandbox({ ips: [], hostNetwork: true })], [instance(pod, 'a')]);
  const status = generatePodStatus(pod, runtime, ctx({ runtimeName: 'cri-o' }));
  assert.equal(status.podIP, HOST_IP);
  assert.equal(status.containerStatuses?.[0].containerID, 'cri-o://a-0');
});

test('pod status: no pod IP once the sandbox is not ready', () => {
  const status = generatePodStatus(single, runtimeOf([sandbox({ state: 'notready' })], [exited(single, 'a', 1)]), ctx());
  assert.equal(status.podIP, undefined);
  assert.equal(conditionOf(status, 'PodReadyToStartContainers')?.status, 'False');
});

test('pod status: QoS class as upstream computes it', () => {
  const resources = { requests: { cpu: '500m', memory: '64Mi' }, limits: { cpu: '0.5', memory: '64Mi' } };
  const guaranteed = makePod({}, [spec('a', { resources })]);
  assert.equal(generatePodStatus(guaranteed, runtimeOf([], []), ctx()).qosClass, 'Guaranteed');
  const burstable = makePod({}, [spec('a', { resources: { requests: { cpu: '100m' } } })]);
  assert.equal(generatePodStatus(burstable, runtimeOf([], []), ctx()).qosClass, 'Burstable');
});

test('pod status: a container that vanished after running counts as terminated, not Pending', () => {
  const previous: PodStatus = {
    phase: 'Running',
    containerStatuses: [
      { name: 'a', image: 'registry.local/a:1', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: new Date(NOW_MS - 60_000) } } },
    ],
  };
  const status = generatePodStatus(single, runtimeOf([sandbox()], []), ctx({ previous }));
  const [a] = status.containerStatuses ?? [];
  assert.equal(a.lastState?.terminated?.reason, 'ContainerStatusUnknown');
  assert.equal(a.lastState?.terminated?.exitCode, 137);
  assert.equal(a.restartCount, 1);
  assert.equal(status.phase, 'Running');
});

test('status.observedGeneration and each kubelet condition\'s observedGeneration are the synced pod\'s generation (KEP 5067)', () => {
  const pod: Pod = { ...single, metadata: { ...single.metadata, generation: 3 }, status: { conditions: [{ type: 'example.com/Gate', status: 'True', observedGeneration: 1 }] } };
  const status = generatePodStatus(pod, runtimeOf([sandbox()], [instance(single, 'a')]), ctx());
  assert.equal(status.observedGeneration, 3);
  for (const type of ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']) {
    assert.equal(conditionOf(status, type)?.observedGeneration, 3, type);
  }
  assert.equal(conditionOf(status, 'example.com/Gate')?.observedGeneration, 1, 'a condition someone else owns is left as it was');
  const fromFile = generatePodStatus(single, runtimeOf([sandbox()], [instance(single, 'a')]), ctx());
  assert.equal(fromFile.observedGeneration, undefined, 'a pod without a generation (a static pod from a file) reports none');
  assert.ok(fromFile.conditions?.every((c) => c.observedGeneration === undefined));
});
