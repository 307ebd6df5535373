import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesListObject, KubernetesObject, Watch } from '@kubernetes/client-node';
import { pino } from 'pino';
import { SupervisedListWatch } from '../../../../src/main/cluster/apiclient/supervised-list-watch.js';
import { Backoff } from '../../../../src/shared/backoff.js';
import { ErrorCodes } from '../../../../src/shared/errors.js';

/** Lets the list's promise chain run (setImmediate is not among the mocked timers). */
const turn = () => new Promise((resolve) => setImmediate(resolve));

test('a list that keeps failing is restarted with the jittered backoff; one warning per streak, one line when it resumes', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  let lists = 0;
  const listFn = async (): Promise<KubernetesListObject<KubernetesObject>> => {
    lists++;
    if (lists <= 3) throw new Error('connect ECONNREFUSED');
    return { items: [], metadata: { resourceVersion: '7' } } as KubernetesListObject<KubernetesObject>;
  };
  const watch = { watch: async () => ({ abort: () => undefined }) } as unknown as Watch;
  let started = 0;
  const supervised = new SupervisedListWatch({
    path: '/api/v1/pods',
    watch,
    listFn,
    logger,
    logContext: { resource: 'pods' },
    failureMessage: 'Lost the pod list',
    onStarted: () => started++,
    // 1 s doubling, +10 % jitter pinned: 1.1 s, 2.2 s, 4.4 s.
    backoff: new Backoff({ initialMs: 1_000, multiplier: 2, maxMs: 30_000, jitter: 0.2, random: () => 0.5 }),
  });
  try {
    await supervised.start();
    for (const delayMs of [1_100, 2_200, 4_400]) {
      const before = lists;
      t.mock.timers.tick(delayMs - 1);
      await turn();
      assert.equal(lists, before, `no restart before ${delayMs} ms`);
      t.mock.timers.tick(1);
      await turn();
      assert.equal(lists, before + 1, `restarted after ${delayMs} ms`);
    }
    assert.equal(started, 1, 'the fourth list succeeded');
    const warnings = logs.filter((line) => line.msg === 'Lost the pod list');
    assert.equal(warnings.length, 1, 'one warning for the whole streak');
    assert.equal(warnings[0]!.code, ErrorCodes.API_UNAVAILABLE);
    assert.equal(warnings[0]!.retryInMs, 1_100);
    assert.equal(logs.filter((line) => line.msg === 'List/watch resumed').length, 1);
  } finally {
    supervised.stop();
  }
});
