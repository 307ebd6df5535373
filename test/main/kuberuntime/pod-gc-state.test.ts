// A pod's standing for the container GC, from the pod manager, the pod workers and
// the sources, as upstream's ShouldPodContentBeRemoved / ShouldPodRuntimeBeRemoved.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podGcState } from '../../../src/main/kuberuntime/pod-gc-state.js';
import type { WorkPhase } from '../../../src/main/podworkers/pod-workers.js';
import type { Pod } from '../../../src/shared/types.js';

interface Case {
  name: string;
  wanted?: Pod;
  phase?: WorkPhase;
  sourcesReady?: boolean;
  expected: ReturnType<typeof podGcState>;
}

const pod: Pod = { metadata: { uid: 'u1', name: 'web', namespace: 'shop' } };
const deleted: Pod = { metadata: { ...pod.metadata, deletionTimestamp: new Date('2026-01-01T00:00:00Z') } };

const CASES: Case[] = [
  { name: 'a running pod a source wants is live', wanted: pod, phase: 'syncing', expected: 'live' },
  { name: 'a pod a source wants, still terminating, is live', wanted: pod, phase: 'terminating', expected: 'live' },
  { name: 'a finished pod a source still wants (a completed static pod) is terminated, not gone', wanted: pod, phase: 'terminated', expected: 'terminated' },
  { name: 'a deleted pod that terminated is gone', wanted: deleted, phase: 'terminated', expected: 'gone' },
  { name: 'a pod admission refused (no worker) is live', wanted: pod, expected: 'live' },
  { name: 'a removed pod still terminating is live', phase: 'terminating', expected: 'live' },
  { name: 'a removed pod that terminated is gone', phase: 'terminated', expected: 'gone' },
  { name: 'an orphan is gone once every source is ready', sourcesReady: true, expected: 'gone' },
  { name: 'an orphan before every source is ready may be a pod not delivered yet: live', sourcesReady: false, expected: 'live' },
];

for (const testCase of CASES) {
  test(testCase.name, () => {
    const state = podGcState('u1', {
      podManager: { get: (uid) => (uid === 'u1' ? testCase.wanted : undefined) },
      podWorkers: { phaseOf: (uid) => (uid === 'u1' ? testCase.phase : undefined) },
      sourcesReady: () => testCase.sourcesReady ?? true,
    });
    assert.equal(state, testCase.expected);
  });
}
