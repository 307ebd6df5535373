import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computePodActions, type PodActions } from '../../../src/shared/kuberuntime/compute-pod-actions.js';
import type { RuntimePodStatus } from '../../../src/shared/runtime-pod.js';
import type { Pod } from '../../../src/shared/types.js';
import { exited, instance, makePod, NOW_MS, runtimeOf, sandbox, SECOND_MS, spec } from '../runtime-fixtures.js';

/** The parts of PodActions a case checks, with the defaults of a healthy, steady pod. */
interface Expected {
  killPod: boolean;
  createSandbox: boolean;
  sandboxId: string;
  attempt: number;
  nextInit: string | null;
  initFailed: boolean;
  start: string[];
  /** "<container id> <reason>" */
  kill: string[];
  backoff: string[];
}

const steady: Expected = {
  killPod: false,
  createSandbox: false,
  sandboxId: 'sb-1',
  attempt: 0,
  nextInit: null,
  initFailed: false,
  start: [],
  kill: [],
  backoff: [],
};

function summarize(actions: PodActions): Expected {
  return {
    killPod: actions.killPod,
    createSandbox: actions.createSandbox,
    sandboxId: actions.sandboxId,
    attempt: actions.attempt,
    nextInit: actions.nextInitContainerToStart,
    initFailed: actions.initFailed,
    start: actions.containersToStart,
    kill: actions.containersToKill.map((k) => `${k.id} ${k.reason}`),
    backoff: actions.backoff.map((b) => b.name),
  };
}

const twoApps = makePod({}, [spec('a'), spec('b')]);
const withInits = makePod({ initContainers: [spec('init1'), spec('init2')] }, [spec('a')]);
const withInitsNever = makePod({ restartPolicy: 'Never', initContainers: [spec('init1'), spec('init2')] }, [spec('a')]);
const onFailure = makePod({ restartPolicy: 'OnFailure' }, [spec('a'), spec('b')]);
const never = makePod({ restartPolicy: 'Never' }, [spec('a'), spec('b')]);
const hostNet = makePod({ hostNetwork: true });
const single = makePod();

interface Case {
  name: string;
  pod: Pod;
  runtime: RuntimePodStatus;
  expected: Partial<Expected>;
}

const newSandbox = { killPod: true, createSandbox: true, sandboxId: '' };

const cases: Case[] = [
  // Sandbox decisions (podSandboxChanged).
  { name: 'new pod: create sandbox, start every container', pod: twoApps, runtime: runtimeOf([], []), expected: { ...newSandbox, start: ['a', 'b'] } },
  { name: 'new pod with init containers: only the first init container', pod: withInits, runtime: runtimeOf([], []), expected: { ...newSandbox, nextInit: 'init1' } },
  {
    name: 'sandbox died: kill everything, re-create with attempt+1, restart all',
    pod: twoApps,
    runtime: runtimeOf([sandbox({ state: 'notready', attempt: 2 })], [exited(twoApps, 'a', 137), exited(twoApps, 'b', 137)]),
    expected: { ...newSandbox, attempt: 3, start: ['a', 'b'] },
  },
  {
    name: 'two ready sandboxes: reconcile by re-creating',
    pod: single,
    runtime: runtimeOf([sandbox({ id: 'sb-2', attempt: 1 }), sandbox()], [instance(single, 'a')]),
    expected: { ...newSandbox, attempt: 2, start: ['a'] },
  },
  {
    name: 'ready sandbox without an IP: re-create',
    pod: single,
    runtime: runtimeOf([sandbox({ ips: [] })], [instance(single, 'a')]),
    expected: { ...newSandbox, attempt: 1, start: ['a'] },
  },
  {
    name: 'hostNetwork pod in a hostNetwork sandbox needs no IP',
    pod: hostNet,
    runtime: runtimeOf([sandbox({ ips: [], hostNetwork: true })], [instance(hostNet, 'a')]),
    expected: {},
  },
  {
    name: 'network mode changed: re-create',
    pod: hostNet,
    runtime: runtimeOf([sandbox()], [instance(hostNet, 'a')]),
    expected: { ...newSandbox, attempt: 1, start: ['a'] },
  },
  {
    name: 'restartPolicy Never, sandbox died after containers ran: no new sandbox, pod is done',
    pod: never,
    runtime: runtimeOf([sandbox({ state: 'notready' })], [exited(never, 'a', 0), exited(never, 'b', 1)]),
    expected: { killPod: true, createSandbox: false, sandboxId: '', attempt: 1 },
  },
  {
    name: 'restartPolicy OnFailure, sandbox died: only the failed container runs again',
    pod: onFailure,
    runtime: runtimeOf([sandbox({ state: 'notready' })], [exited(onFailure, 'a', 0), exited(onFailure, 'b', 2)]),
    expected: { ...newSandbox, attempt: 1, start: ['b'] },
  },
  {
    name: 'sandbox died after init: init containers run again first',
    pod: withInits,
    runtime: runtimeOf([sandbox({ state: 'notready' })], [exited(withInits, 'init1', 0), exited(withInits, 'init2', 0), instance(withInits, 'a')]),
    expected: { ...newSandbox, attempt: 1, nextInit: 'init1' },
  },
  // Init containers.
  { name: 'init: first one not started yet', pod: withInits, runtime: runtimeOf([sandbox()], []), expected: { nextInit: 'init1' } },
  { name: 'init: first one running, wait for it', pod: withInits, runtime: runtimeOf([sandbox()], [instance(withInits, 'init1')]), expected: {} },
  {
    name: 'init: first one done, start the second',
    pod: withInits,
    runtime: runtimeOf([sandbox()], [exited(withInits, 'init1', 0)]),
    expected: { nextInit: 'init2' },
  },
  {
    name: 'init: all done, start the app containers',
    pod: withInits,
    runtime: runtimeOf([sandbox()], [exited(withInits, 'init1', 0), exited(withInits, 'init2', 0)]),
    expected: { start: ['a'] },
  },
  {
    name: 'init: instances from an older sandbox do not count in a new one',
    pod: withInits,
    runtime: runtimeOf([sandbox({ id: 'sb-2', attempt: 1 }), sandbox({ state: 'notready' })], [exited(withInits, 'init1', 0), exited(withInits, 'init2', 0)]),
    expected: { sandboxId: 'sb-2', attempt: 1, nextInit: 'init1' },
  },
  {
    name: 'init failure under Always: restart that init container',
    pod: withInits,
    runtime: runtimeOf([sandbox()], [exited(withInits, 'init1', 0), exited(withInits, 'init2', 1)]),
    expected: { nextInit: 'init2' },
  },
  {
    name: 'init failure under Never: the pod has failed',
    pod: withInitsNever,
    runtime: runtimeOf([sandbox()], [exited(withInitsNever, 'init1', 1)]),
    expected: { killPod: true, initFailed: true },
  },
  {
    name: 'init OOM-killed with exit 0 still counts as failed',
    pod: withInitsNever,
    runtime: runtimeOf([sandbox()], [exited(withInitsNever, 'init1', 0, { reason: 'OOMKilled' })]),
    expected: { killPod: true, initFailed: true },
  },
  {
    name: 'init done and app running: init containers are not looked at again',
    pod: withInits,
    runtime: runtimeOf([sandbox()], [instance(withInits, 'a')]),
    expected: {},
  },
  // App containers (ShouldContainerBeRestarted).
  { name: 'all running: nothing to do', pod: twoApps, runtime: runtimeOf([sandbox()], [instance(twoApps, 'a'), instance(twoApps, 'b')]), expected: {} },
  {
    name: 'Always: a container that exited 0 is restarted',
    pod: twoApps,
    runtime: runtimeOf([sandbox()], [exited(twoApps, 'a', 0), instance(twoApps, 'b')]),
    expected: { start: ['a'] },
  },
  {
    name: 'OnFailure: exited 0 stays down, non-zero restarts',
    pod: onFailure,
    runtime: runtimeOf([sandbox()], [exited(onFailure, 'a', 0), exited(onFailure, 'b', 3)]),
    expected: { start: ['b'] },
  },
  {
    name: 'OnFailure: exited 0 while the other runs: keep the pod',
    pod: onFailure,
    runtime: runtimeOf([sandbox()], [exited(onFailure, 'a', 0), instance(onFailure, 'b')]),
    expected: {},
  },
  {
    name: 'Never: a failed container stays down while the other runs',
    pod: never,
    runtime: runtimeOf([sandbox()], [exited(never, 'a', 1), instance(never, 'b')]),
    expected: {},
  },
  {
    name: 'Never: all done, kill the pod',
    pod: never,
    runtime: runtimeOf([sandbox()], [exited(never, 'a', 0), exited(never, 'b', 1)]),
    expected: { killPod: true },
  },
  {
    name: 'OnFailure: all succeeded, kill the pod',
    pod: onFailure,
    runtime: runtimeOf([sandbox()], [exited(onFailure, 'a', 0), exited(onFailure, 'b', 0)]),
    expected: { killPod: true },
  },
  {
    name: 'a never-created container is started next to running ones',
    pod: twoApps,
    runtime: runtimeOf([sandbox()], [instance(twoApps, 'a')]),
    expected: { start: ['b'] },
  },
  {
    name: 'unknown state: kill it before starting it again',
    pod: twoApps,
    runtime: runtimeOf([sandbox()], [instance(twoApps, 'a', { state: 'unknown' }), instance(twoApps, 'b')]),
    expected: { start: ['a'], kill: ['a-0 Unknown'] },
  },
  {
    name: 'spec hash changed: only that container is killed and restarted',
    pod: twoApps,
    runtime: runtimeOf([sandbox()], [instance(twoApps, 'a', { hash: '0badc0de' }), instance(twoApps, 'b')]),
    expected: { start: ['a'], kill: ['a-0 SpecChanged'] },
  },
  {
    name: 'spec hash changed restarts even under Never',
    pod: never,
    runtime: runtimeOf([sandbox()], [instance(never, 'a', { hash: '0badc0de' }), instance(never, 'b')]),
    expected: { start: ['a'], kill: ['a-0 SpecChanged'] },
  },
  {
    name: 'a running container not in the spec is killed, the others kept',
    pod: single,
    runtime: runtimeOf([sandbox()], [instance(single, 'a'), instance(single, 'old')]),
    expected: { kill: ['old-0 NotInSpec'] },
  },
  {
    name: 'an older running instance next to a newer one is killed',
    pod: single,
    runtime: runtimeOf([sandbox()], [instance(single, 'a', { id: 'a-old' }), instance(single, 'a', { restartCount: 1 })]),
    expected: { kill: ['a-old Duplicate'] },
  },
  {
    name: 'deleted pod: nothing is restarted',
    pod: { ...twoApps, metadata: { ...twoApps.metadata, deletionTimestamp: new Date(NOW_MS) } },
    runtime: runtimeOf([sandbox()], [exited(twoApps, 'a', 1), instance(twoApps, 'b')]),
    expected: {},
  },
  // CrashLoopBackOff.
  {
    name: 'first exit: restarted at once',
    pod: single,
    runtime: runtimeOf([sandbox()], [exited(single, 'a', 1, { finishedAtMs: NOW_MS - SECOND_MS })]),
    expected: { start: ['a'] },
  },
  {
    name: 'second exit within 10 s: back off',
    pod: single,
    runtime: runtimeOf([sandbox()], [exited(single, 'a', 1, { restartCount: 1, finishedAtMs: NOW_MS - 5 * SECOND_MS })]),
    expected: { backoff: ['a'] },
  },
  {
    name: 'second exit more than 10 s ago: start',
    pod: single,
    runtime: runtimeOf([sandbox()], [exited(single, 'a', 1, { restartCount: 1, finishedAtMs: NOW_MS - 11 * SECOND_MS })]),
    expected: { start: ['a'] },
  },
  {
    name: 'crash-looping init container backs off too',
    pod: withInits,
    runtime: runtimeOf([sandbox()], [exited(withInits, 'init1', 1, { restartCount: 4, finishedAtMs: NOW_MS - 30 * SECOND_MS })]),
    expected: { backoff: ['init1'] },
  },
];

for (const { name, pod, runtime, expected } of cases) {
  test(`computePodActions: ${name}`, () => {
    assert.deepEqual(summarize(computePodActions(pod, runtime, NOW_MS)), { ...steady, ...expected });
  });
}

test('computePodActions: backoff says until when and why, as upstream words it', () => {
  const finishedAtMs = NOW_MS - 5 * SECOND_MS;
  const runtime = runtimeOf([sandbox()], [exited(single, 'a', 1, { restartCount: 2, finishedAtMs })]);
  const actions = computePodActions(single, runtime, NOW_MS);
  assert.deepEqual(actions.backoff, [
    {
      name: 'a',
      untilMs: finishedAtMs + 20 * SECOND_MS,
      message: 'back-off 20s restarting failed container=a pod=web_default(uid-1)',
    },
  ]);
  // A crash-looping container keeps the pod alive: it will run again.
  assert.equal(actions.killPod, false);
});

test('computePodActions: the spec-change kill carries upstream\'s message', () => {
  const runtime = runtimeOf([sandbox()], [instance(single, 'a', { hash: '0badc0de' })]);
  const [kill] = computePodActions(single, runtime, NOW_MS).containersToKill;
  assert.match(kill.message, /^Container spec hash changed \(0badc0de vs [0-9a-f]{8}\)\. Container a will be killed and recreated\.$/);
});

test('computePodActions: a sandbox re-created for a crash-looping container still backs it off', () => {
  const runtime = runtimeOf(
    [sandbox({ state: 'notready' })],
    [exited(single, 'a', 1, { restartCount: 3, finishedAtMs: NOW_MS - 5 * SECOND_MS })],
  );
  const actions = computePodActions(single, runtime, NOW_MS);
  assert.equal(actions.createSandbox, true);
  assert.deepEqual(actions.containersToStart, []);
  assert.deepEqual(actions.backoff.map((b) => b.name), ['a']);
});
