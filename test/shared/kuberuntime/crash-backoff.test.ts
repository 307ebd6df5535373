import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  crashBackoffDelayMs,
  crashBackoffUntilMs,
  formatGoDurationSeconds,
  MAX_CRASH_BACKOFF_MS,
} from '../../../src/shared/kuberuntime/crash-backoff.js';
import type { RuntimeContainer } from '../../../src/shared/runtime-pod.js';

const FINISHED_MS = 1_700_000_000_000;

function exitedWith(restartCount: number, ranForMs = 5_000): RuntimeContainer {
  return {
    id: `c-${restartCount}`,
    name: 'app',
    hash: 'abcd1234',
    restartCount,
    type: 'REGULAR',
    sandboxId: 'sb',
    state: 'exited',
    createdAtMs: FINISHED_MS - ranForMs - 100,
    startedAtMs: FINISHED_MS - ranForMs,
    finishedAtMs: FINISHED_MS,
    exitCode: 1,
    reason: 'Error',
    message: '',
    image: 'app:1',
    imageRef: 'sha256:app',
  };
}

// restartCount of the exited instance → wait after its finishedAt.
const delays: Array<[number, number]> = [
  [0, 0], // first exit: restarted at once
  [1, 10_000],
  [2, 20_000],
  [3, 40_000],
  [4, 80_000],
  [5, 160_000],
  [6, 300_000], // 320 s capped
  [40, 300_000],
];

for (const [restartCount, expectedMs] of delays) {
  test(`crash backoff: instance with restartCount ${restartCount} waits ${expectedMs / 1000}s`, () => {
    const container = exitedWith(restartCount);
    assert.equal(crashBackoffDelayMs(container), expectedMs);
    assert.equal(crashBackoffUntilMs(container), expectedMs === 0 ? 0 : FINISHED_MS + expectedMs);
  });
}

test('crash backoff: a container that ran over 600 s is restarted at once (upstream reset)', () => {
  assert.equal(crashBackoffUntilMs(exitedWith(7, 601_000)), 0);
  assert.equal(crashBackoffUntilMs(exitedWith(7, 599_000)), FINISHED_MS + MAX_CRASH_BACKOFF_MS);
});

test('crash backoff: only exited containers are in backoff', () => {
  assert.equal(crashBackoffUntilMs({ ...exitedWith(3), state: 'running' }), 0);
  assert.equal(crashBackoffUntilMs({ ...exitedWith(3), state: 'created' }), 0);
});

test('crash backoff: durations print as Go does', () => {
  assert.equal(formatGoDurationSeconds(10_000), '10s');
  assert.equal(formatGoDurationSeconds(80_000), '1m20s');
  assert.equal(formatGoDurationSeconds(300_000), '5m0s');
});
