import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { PodStatusCache } from '../../../src/main/status/pod-status-cache.js';
import type { Pod, PodStatus } from '../../../src/shared/types.js';

const pod: Pod = { metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { containers: [{ name: 'c', image: 'i' }] } };

function waiting(message: string, exitCode = 1): PodStatus {
  return {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [c]' }],
    containerStatuses: [
      {
        name: 'c',
        image: 'i',
        imageID: '',
        ready: false,
        restartCount: 1,
        state: { waiting: { reason: 'CrashLoopBackOff', message } },
        lastState: { terminated: { exitCode, reason: 'Error' } },
      },
    ],
  };
}

test('every change the API server would store reaches the listeners; only summary changes are logged', () => {
  const lines: Array<{ msg: string }> = [];
  const cache = new PodStatusCache(pino({ level: 'info' }, { write: (text: string) => void lines.push(JSON.parse(text)) }));
  const changes: PodStatus[] = [];
  cache.onChange(({ status }) => changes.push(status));
  cache.set(pod, waiting('back-off 10s'));
  cache.set(pod, waiting('back-off 10s'));
  cache.set(pod, waiting('back-off 20s'));
  cache.set(pod, waiting('back-off 20s', 2));
  const ready = waiting('back-off 20s', 2);
  ready.conditions![0].message = 'containers with unready status: [c d]';
  cache.set(pod, ready);
  assert.deepEqual(
    changes.map((s) => [s.containerStatuses![0].state!.waiting!.message, s.containerStatuses![0].lastState!.terminated!.exitCode, s.conditions![0].message]),
    [
      ['back-off 10s', 1, 'containers with unready status: [c]'],
      ['back-off 20s', 1, 'containers with unready status: [c]'],
      ['back-off 20s', 2, 'containers with unready status: [c]'],
      ['back-off 20s', 2, 'containers with unready status: [c d]'],
    ],
  );
  assert.equal(lines.filter((l) => l.msg === 'Pod status changed').length, 1, 'the summary (phase, ready, reason, restarts) did not change');
});
