import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1NodeCondition } from '@kubernetes/client-node';
import {
  aggregateMessages,
  networkNotReadyMessage,
  nodeConditionEvents,
  nodeConditions,
  runtimeNotReadyMessage,
  type NodeHealth,
} from '../../../../src/main/cluster/nodestatus/conditions.js';
import { HEALTHY } from './fixtures.js';

const T0 = new Date('2024-05-01T10:00:00Z');
const T1 = new Date('2024-05-01T10:00:10.750Z');
const T1_SECONDS = new Date('2024-05-01T10:00:10Z');
const CNI_MESSAGE = networkNotReadyMessage({
  type: 'NetworkReady',
  status: false,
  reason: 'NetworkPluginNotReady',
  message: 'Network plugin returns error: cni plugin not initialized',
});

function summary(conditions: V1NodeCondition[]): string[] {
  return conditions.map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`);
}

test('first computation: upstream reasons and messages, Ready last', () => {
  const cases: Array<{ name: string; health: Partial<NodeHealth>; want: string[] }> = [
    {
      name: 'healthy',
      health: {},
      want: [
        'MemoryPressure=False KubeletHasSufficientMemory: kubelet has sufficient memory available',
        'DiskPressure=False KubeletHasNoDiskPressure: kubelet has no disk pressure',
        'PIDPressure=False KubeletHasSufficientPID: kubelet has sufficient PID available',
        'Ready=True KubeletReady: kubelet is posting ready status',
      ],
    },
    {
      name: 'under every pressure',
      health: { memoryPressure: true, diskPressure: true, pidPressure: true },
      want: [
        'MemoryPressure=True KubeletHasInsufficientMemory: kubelet has insufficient memory available',
        'DiskPressure=True KubeletHasDiskPressure: kubelet has disk pressure',
        'PIDPressure=True KubeletHasInsufficientPID: kubelet has insufficient PID available',
        'Ready=True KubeletReady: kubelet is posting ready status',
      ],
    },
    {
      name: 'network not ready',
      health: { networkReady: false, networkMessage: CNI_MESSAGE },
      want: [
        'MemoryPressure=False KubeletHasSufficientMemory: kubelet has sufficient memory available',
        'DiskPressure=False KubeletHasNoDiskPressure: kubelet has no disk pressure',
        'PIDPressure=False KubeletHasSufficientPID: kubelet has sufficient PID available',
        'Ready=False KubeletNotReady: container runtime network not ready: NetworkReady=false ' +
          'reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized',
      ],
    },
    {
      name: 'runtime and network down, aggregated',
      health: { runtimeReady: false, runtimeMessage: 'container runtime is down', networkReady: false, networkMessage: '' },
      want: [
        'MemoryPressure=False KubeletHasSufficientMemory: kubelet has sufficient memory available',
        'DiskPressure=False KubeletHasNoDiskPressure: kubelet has no disk pressure',
        'PIDPressure=False KubeletHasSufficientPID: kubelet has sufficient PID available',
        'Ready=False KubeletNotReady: [container runtime is down, network state unknown]',
      ],
    },
    {
      name: 'node shutting down',
      health: { shuttingDown: true },
      want: [
        'MemoryPressure=False KubeletHasSufficientMemory: kubelet has sufficient memory available',
        'DiskPressure=False KubeletHasNoDiskPressure: kubelet has no disk pressure',
        'PIDPressure=False KubeletHasSufficientPID: kubelet has sufficient PID available',
        'Ready=False KubeletNotReady: node is shutting down',
      ],
    },
    {
      name: 'runtime down while shutting down, aggregated in order',
      health: { runtimeReady: false, runtimeMessage: 'container runtime is down', shuttingDown: true },
      want: [
        'MemoryPressure=False KubeletHasSufficientMemory: kubelet has sufficient memory available',
        'DiskPressure=False KubeletHasNoDiskPressure: kubelet has no disk pressure',
        'PIDPressure=False KubeletHasSufficientPID: kubelet has sufficient PID available',
        'Ready=False KubeletNotReady: [container runtime is down, node is shutting down]',
      ],
    },
    {
      name: 'runtime never checked',
      health: { runtimeReady: false, runtimeMessage: '' },
      want: [
        'MemoryPressure=False KubeletHasSufficientMemory: kubelet has sufficient memory available',
        'DiskPressure=False KubeletHasNoDiskPressure: kubelet has no disk pressure',
        'PIDPressure=False KubeletHasSufficientPID: kubelet has sufficient PID available',
        'Ready=False KubeletNotReady: container runtime status check may not have completed yet',
      ],
    },
  ];
  for (const testCase of cases) {
    const conditions = nodeConditions(undefined, { ...HEALTHY, ...testCase.health }, T0);
    assert.deepEqual(summary(conditions), testCase.want, testCase.name);
    for (const condition of conditions) {
      assert.deepEqual(condition.lastHeartbeatTime, T0, `${testCase.name}: heartbeat`);
      assert.deepEqual(condition.lastTransitionTime, T0, `${testCase.name}: transition`);
    }
  }
});

test('heartbeats move, transitions only on a status change', () => {
  const first = nodeConditions(undefined, HEALTHY, T0);
  const cases: Array<{ name: string; health: Partial<NodeHealth>; transitioned: string[] }> = [
    { name: 'unchanged', health: {}, transitioned: [] },
    { name: 'memory pressure', health: { memoryPressure: true }, transitioned: ['MemoryPressure'] },
    {
      name: 'runtime not ready',
      health: { runtimeReady: false, runtimeMessage: runtimeNotReadyMessage(undefined) },
      transitioned: ['Ready'],
    },
  ];
  for (const testCase of cases) {
    const next = nodeConditions(first, { ...HEALTHY, ...testCase.health }, T1);
    for (const condition of next) {
      assert.deepEqual(condition.lastHeartbeatTime, T1_SECONDS, `${testCase.name}: ${condition.type} heartbeat`);
      const want = testCase.transitioned.includes(condition.type) ? T1_SECONDS : T0;
      assert.deepEqual(condition.lastTransitionTime, want, `${testCase.name}: ${condition.type} transition`);
    }
  }
});

test('a Ready message change without a status change keeps the transition time', () => {
  const down = nodeConditions(undefined, { ...HEALTHY, runtimeReady: false, runtimeMessage: 'a' }, T0);
  const stillDown = nodeConditions(down, { ...HEALTHY, runtimeReady: false, runtimeMessage: 'b' }, T1);
  const ready = stillDown.find((c) => c.type === 'Ready')!;
  assert.equal(ready.message, 'b');
  assert.deepEqual(ready.lastTransitionTime, T0);
});

test('conditions the kubelet does not own are kept in place', () => {
  const networkUnavailable: V1NodeCondition = {
    type: 'NetworkUnavailable',
    status: 'False',
    reason: 'RouteCreated',
    message: 'route created',
    lastTransitionTime: T0,
  };
  const previous = [networkUnavailable, { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'x', lastTransitionTime: T0 }];
  const next = nodeConditions(previous, HEALTHY, T1);
  assert.deepEqual(next.map((c) => c.type), ['NetworkUnavailable', 'Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']);
  assert.equal(next[0], networkUnavailable);
});

test('runtime condition messages as updateRuntimeUp formats them', () => {
  assert.equal(runtimeNotReadyMessage(undefined), 'container runtime not ready: <nil>');
  assert.equal(
    runtimeNotReadyMessage({ type: 'RuntimeReady', status: false, reason: 'Starting', message: 'wait' }),
    'container runtime not ready: RuntimeReady=false reason:Starting message:wait',
  );
  assert.equal(aggregateMessages(['a']), 'a');
  assert.equal(aggregateMessages(['a', 'b', 'a']), '[a, b]');
});

test('events on condition transitions', () => {
  const first = nodeConditions(undefined, HEALTHY, T0);
  assert.deepEqual(
    nodeConditionEvents('n1', undefined, first).map((e) => e.reason),
    ['NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID'],
  );
  const notReady = nodeConditions(first, { ...HEALTHY, networkReady: false, networkMessage: CNI_MESSAGE, diskPressure: true }, T1);
  assert.deepEqual(nodeConditionEvents('n1', first, notReady), [
    { type: 'Normal', reason: 'NodeHasDiskPressure', message: 'Node n1 status is now: NodeHasDiskPressure' },
    { type: 'Normal', reason: 'NodeNotReady', message: 'Node n1 status is now: NodeNotReady' },
  ]);
  assert.deepEqual(nodeConditionEvents('n1', first, nodeConditions(first, HEALTHY, T1)), []);
});
