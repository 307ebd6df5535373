import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1NodeStatus } from '@kubernetes/client-node';
import {
  nodeStatusHasChanged,
  reportJitterAfterSendMs,
  shouldSendNodeStatus,
} from '../../../../src/main/cluster/nodestatus/status-update-policy.js';

const T0 = new Date('2024-05-01T10:00:00Z');
const T1 = new Date('2024-05-01T10:00:10Z');

const BASE: V1NodeStatus = {
  capacity: { cpu: '2', memory: '4Gi', pods: '110' },
  allocatable: { cpu: '2', memory: '4Gi', pods: '110' },
  addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
  nodeInfo: {
    machineID: 'm',
    systemUUID: '',
    bootID: 'b',
    kernelVersion: 'k',
    osImage: 'o',
    containerRuntimeVersion: 'containerd://1.6.20',
    kubeletVersion: 'v1.32.0',
    kubeProxyVersion: '',
    operatingSystem: 'linux',
    architecture: 'amd64',
  },
  conditions: [
    { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', lastHeartbeatTime: T0, lastTransitionTime: T0 },
    { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: T0, lastTransitionTime: T0 },
  ],
};

function withChanges(change: (status: V1NodeStatus) => void): V1NodeStatus {
  const status = structuredClone(BASE);
  change(status);
  return status;
}

test('nodeStatusHasChanged ignores heartbeats and compares semantically', () => {
  const cases: Array<{ name: string; next: V1NodeStatus; changed: boolean }> = [
    { name: 'same', next: structuredClone(BASE), changed: false },
    {
      name: 'heartbeat only',
      next: withChanges((s) => s.conditions!.forEach((c) => (c.lastHeartbeatTime = T1))),
      changed: false,
    },
    {
      name: 'conditions reordered',
      next: withChanges((s) => s.conditions!.reverse()),
      changed: false,
    },
    {
      name: 'times as strings from the wire',
      next: withChanges((s) => s.conditions!.forEach((c) => (c.lastTransitionTime = '2024-05-01T10:00:00Z' as unknown as Date))),
      changed: false,
    },
    { name: 'quantity spelled differently', next: withChanges((s) => (s.capacity!.memory = '4194304Ki')), changed: false },
    { name: 'cpu spelled differently', next: withChanges((s) => (s.allocatable!.cpu = '2000m')), changed: false },
    { name: 'empty vs missing list', next: withChanges((s) => (s.images = [])), changed: false },
    { name: 'Ready flipped', next: withChanges((s) => (s.conditions![1].status = 'False')), changed: true },
    { name: 'transition time moved', next: withChanges((s) => (s.conditions![0].lastTransitionTime = T1)), changed: true },
    { name: 'condition added', next: withChanges((s) => s.conditions!.push({ type: 'PIDPressure', status: 'False' })), changed: true },
    { name: 'allocatable changed', next: withChanges((s) => (s.allocatable!.cpu = '1500m')), changed: true },
    { name: 'capacity resource added', next: withChanges((s) => (s.capacity!['hugepages-2Mi'] = '0')), changed: true },
    { name: 'runtime version', next: withChanges((s) => (s.nodeInfo!.containerRuntimeVersion = 'containerd://1.7.0')), changed: true },
    { name: 'address', next: withChanges((s) => (s.addresses![0].address = '10.0.0.2')), changed: true },
  ];
  for (const testCase of cases) assert.equal(nodeStatusHasChanged(BASE, testCase.next), testCase.changed, testCase.name);
  assert.equal(nodeStatusHasChanged(undefined, BASE), true);
});

test('shouldSendNodeStatus: on change, else every report frequency', () => {
  const reportMs = 300_000;
  const heartbeatOnly = withChanges((s) => s.conditions!.forEach((c) => (c.lastHeartbeatTime = T1)));
  const flipped = withChanges((s) => (s.conditions![1].status = 'False'));
  const cases: Array<{ name: string; next: V1NodeStatus; lastSentMs?: number; nowMs: number; jitterMs?: number; send: boolean }> = [
    { name: 'never sent', next: heartbeatOnly, lastSentMs: undefined, nowMs: 0, send: true },
    { name: 'unchanged, 10 s after the last send', next: heartbeatOnly, lastSentMs: 0, nowMs: 10_000, send: false },
    { name: 'changed, 10 s after the last send', next: flipped, lastSentMs: 0, nowMs: 10_000, send: true },
    { name: 'unchanged, just before the report period', next: heartbeatOnly, lastSentMs: 0, nowMs: reportMs - 1, send: false },
    { name: 'unchanged, report period reached', next: heartbeatOnly, lastSentMs: 0, nowMs: reportMs, send: true },
    { name: 'negative jitter brings it forward', next: heartbeatOnly, lastSentMs: 0, nowMs: 200_000, jitterMs: -100_000, send: true },
    { name: 'positive jitter pushes it back', next: heartbeatOnly, lastSentMs: 0, nowMs: reportMs, jitterMs: 50_000, send: false },
  ];
  for (const c of cases) {
    assert.equal(shouldSendNodeStatus(BASE, c.next, c.lastSentMs, c.nowMs, reportMs, c.jitterMs), c.send, c.name);
  }
});

test('report jitter after a send', () => {
  assert.equal(reportJitterAfterSendMs(false, 300_000, () => 0.9), 0);
  assert.equal(reportJitterAfterSendMs(true, 300_000, () => 0), -150_000);
  assert.equal(reportJitterAfterSendMs(true, 300_000, () => 0.75), 75_000);
});
