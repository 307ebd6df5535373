import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPodStatusByKubeletEqual, podStatusPatch } from '../../../src/main/status/status-equality.js';
import { strategicMerge } from '../../../src/testapiserver/patch.js';
import type { PodStatus } from '../../../src/shared/types.js';

const T0 = new Date('2026-11-24T00:00:00Z');
const T1 = new Date('2026-11-24T00:00:05Z');

function base(): PodStatus {
  return {
    phase: 'Pending',
    podIP: '10.88.0.5',
    podIPs: [{ ip: '10.88.0.5' }],
    startTime: T0,
    conditions: [
      { type: 'Initialized', status: 'True', lastTransitionTime: T0 },
      { type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [main]', lastTransitionTime: T0 },
      { type: 'PodScheduled', status: 'True' },
    ],
    containerStatuses: [
      { name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ErrImagePull', message: 'pull failed: 500' } } },
    ],
  };
}

function changed(edit: (status: PodStatus) => void): PodStatus {
  const status = structuredClone(base());
  edit(status);
  return status;
}

// As upstream's TestIsPodStatusByKubeletEqual: what the API server would store decides, not the log summary.
const cases: Array<{ name: string; next: PodStatus; equal: boolean }> = [
  { name: 'the same status', next: base(), equal: true },
  { name: 'conditions in another order', next: changed((s) => s.conditions!.reverse()), equal: true },
  { name: 'a condition probed or changed at another time', next: changed((s) => Object.assign(s.conditions![1], { lastProbeTime: T1, lastTransitionTime: T1 })), equal: true },
  { name: 'times as strings (as a watch delivers them)', next: changed((s) => Object.assign(s, { startTime: '2026-11-24T00:00:00Z' })), equal: true },
  { name: 'an absent list and an empty one', next: changed((s) => Object.assign(s, { initContainerStatuses: [] })), equal: true },
  { name: 'a new waiting message under the same reason', next: changed((s) => (s.containerStatuses![0].state!.waiting!.message = 'pull failed: 503')), equal: false },
  {
    name: 'a new exit code under the same reason',
    next: changed((s) => (s.containerStatuses![0].lastState = { terminated: { exitCode: 2, reason: 'Error' } })),
    equal: false,
  },
  { name: 'a condition message', next: changed((s) => (s.conditions![1].message = 'containers with unready status: [main side]')), equal: false },
  { name: 'a condition reason', next: changed((s) => (s.conditions![1].reason = 'PodCompleted')), equal: false },
  { name: 'a kubelet condition more', next: changed((s) => s.conditions!.push({ type: 'ContainersReady', status: 'False' })), equal: false },
  // Upstream compares only the conditions the kubelet owns or shares: another component's is not the kubelet's to write.
  { name: 'a condition another component owns', next: changed((s) => s.conditions!.push({ type: 'example.com/Gate', status: 'True' })), equal: true },
  { name: 'a new pod IP', next: changed((s) => Object.assign(s, { podIP: '10.88.0.6', podIPs: [{ ip: '10.88.0.6' }] })), equal: false },
];

for (const { name, next, equal } of cases) {
  test(`isPodStatusByKubeletEqual: ${name} → ${equal ? 'equal' : 'a write'}`, () => {
    assert.equal(isPodStatusByKubeletEqual(base(), next), equal);
  });
}

test('the patch removes what the kubelet stopped setting, as the server stores it', () => {
  const old = base();
  const next = changed((s) => {
    s.phase = 'Running';
    s.conditions![1] = { type: 'Ready', status: 'True', lastTransitionTime: T1 };
    s.podIP = '10.88.0.6';
    s.podIPs = [{ ip: '10.88.0.6' }];
    s.containerStatuses![0].state = { running: { startedAt: T1 } };
  });
  const stored = JSON.parse(JSON.stringify({ metadata: { uid: 'u1' }, status: old }));
  const patch = JSON.parse(JSON.stringify(podStatusPatch('u1', old, next)));
  const result = strategicMerge(stored, patch) as unknown as { status: PodStatus };
  assert.equal(isPodStatusByKubeletEqual(result.status, next), true, JSON.stringify(result.status));
  const ready = result.status.conditions!.find((c) => c.type === 'Ready')!;
  assert.equal(ready.reason, undefined, 'the Ready condition lost its old reason');
  assert.deepEqual(result.status.podIPs, [{ ip: '10.88.0.6' }], 'the old pod IP is gone');
  assert.equal(patch.metadata.uid, 'u1');
});
