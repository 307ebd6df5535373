// The verdict a pod the kubelet terminated carries on every later status, as the
// status function upstream's killPodFunc passes: eviction fails any pod, a node
// shutdown leaves one that already Succeeded as it was.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KubeletTerminations } from '../../../src/main/status/kubelet-terminations.js';
import type { PodStatus } from '../../../src/shared/types.js';

const running: PodStatus = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }, { type: 'DisruptionTarget', status: 'False' }] };

test('the first verdict stands and shows on every status until forgotten; other pods are left as they are', () => {
  const terminations = new KubeletTerminations();
  terminations.record('u1', { reason: 'Evicted', message: 'The node was low on resource: memory.', keepSucceeded: false }, 1_700_000_000_999);
  terminations.record('u1', { reason: 'Terminated', message: 'later', keepSucceeded: true });
  const status = terminations.overlay('u1', running);
  assert.equal(status.phase, 'Failed');
  assert.equal(status.reason, 'Evicted');
  assert.deepEqual(status.conditions, [
    { type: 'Ready', status: 'True' },
    { type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message: 'The node was low on resource: memory.', lastTransitionTime: new Date(1_700_000_000_000) },
  ]);
  assert.equal(terminations.overlay('u1', { phase: 'Succeeded' }).phase, 'Failed', 'eviction fails a pod whatever it was');
  assert.equal(terminations.overlay('u2', running), running);
  terminations.forget('u1');
  assert.equal(terminations.overlay('u1', running), running);
});

test('a node shutdown keeps Succeeded and fails anything else', () => {
  const terminations = new KubeletTerminations();
  const verdict = { reason: 'Terminated', message: 'Pod was terminated in response to imminent node shutdown.', keepSucceeded: true };
  terminations.record('done', verdict);
  terminations.record('busy', verdict);
  assert.equal(terminations.overlay('done', { phase: 'Succeeded' }).phase, 'Succeeded');
  assert.equal(terminations.overlay('busy', running).phase, 'Failed');
  assert.equal(terminations.overlay('busy', running).reason, 'Terminated');
});

test('the DisruptionTarget condition carries the generation of the status it joins', () => {
  const terminations = new KubeletTerminations();
  terminations.record('u1', { reason: 'Evicted', message: 'The node was low on resource: memory.', keepSucceeded: false });
  const status = terminations.overlay('u1', { ...running, observedGeneration: 4 });
  assert.equal(status.conditions?.find((c) => c.type === 'DisruptionTarget')?.observedGeneration, 4);
});
