import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  formatMicroTime,
  jitteredRenewIntervalMs,
  leaseEnsureBackoffMs,
  newLease,
  renewedLease,
  renewIntervalMs,
} from '../../../../src/main/cluster/nodestatus/lease.js';

const NOW = new Date('2024-05-01T10:00:00.123Z');

test('a new node lease as the kubelet creates it', () => {
  const cases: Array<{ name: string; uid?: string; owners?: unknown }> = [
    { name: 'owner known', uid: 'uid-1', owners: [{ apiVersion: 'v1', kind: 'Node', name: 'node-a', uid: 'uid-1' }] },
    { name: 'owner unknown', uid: undefined, owners: undefined },
  ];
  for (const testCase of cases) {
    const wire = JSON.parse(JSON.stringify(newLease('node-a', 40, NOW, testCase.uid)));
    assert.deepEqual(
      wire,
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: 'node-a',
          namespace: 'kube-node-lease',
          ...(testCase.owners ? { ownerReferences: testCase.owners } : {}),
        },
        spec: { holderIdentity: 'node-a', leaseDurationSeconds: 40, renewTime: '2024-05-01T10:00:00.123000Z' },
      },
      testCase.name,
    );
  }
});

test('renewing keeps the base and sets renewTime and a missing owner', () => {
  const base = newLease('node-a', 40, new Date(0));
  base.metadata!.resourceVersion = '42';
  const renewed = renewedLease(base, NOW, 'node-a', 'uid-1');
  assert.equal(renewed.metadata?.resourceVersion, '42');
  assert.equal(formatMicroTime(renewed.spec!.renewTime!), '2024-05-01T10:00:00.123000Z');
  assert.deepEqual(renewed.metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'node-a', uid: 'uid-1' }]);
  assert.equal(base.metadata?.ownerReferences, undefined, 'base untouched');
  const existingOwner = renewedLease(renewed, NOW, 'node-a', 'uid-2');
  assert.equal(existingOwner.metadata?.ownerReferences?.[0].uid, 'uid-1');
});

test('renew interval, jitter and backoff', () => {
  const cases: Array<[number, number]> = [
    [40, 10_000],
    [10, 2_500],
    [1, 250],
  ];
  for (const [durationSeconds, want] of cases) assert.equal(renewIntervalMs(durationSeconds), want, String(durationSeconds));
  assert.equal(jitteredRenewIntervalMs(40, () => 0), 10_000);
  assert.equal(jitteredRenewIntervalMs(40, () => 1), 10_400);
  assert.deepEqual([0, 1, 2, 4, 5, 9].map(leaseEnsureBackoffMs), [200, 400, 800, 3200, 6400, 7000]);
});
