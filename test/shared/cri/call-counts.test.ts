import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { CriCallCounts, RUNTIME_OPERATION_BUCKETS_SECONDS } from '../../../src/shared/cri/call-counts.js';

test('calls, errors and durations recorded in another thread show in the main thread’s figures', async () => {
  const counts = new CriCallCounts();
  counts.record('RunPodSandbox', 0.09, false);
  const moduleUrl = new URL('../../../src/shared/cri/call-counts.js', import.meta.url).href;
  const worker = new Worker(
    `import('${moduleUrl}').then(({ CriCallCounts }) => {
       const { workerData } = require('node:worker_threads');
       const counts = new CriCallCounts(workerData);
       for (let i = 0; i < 1000; i++) counts.record('ListContainers', 0.004, i % 10 === 0);
       counts.record('RunPodSandbox', 1000, true);
     });`,
    { eval: true, workerData: counts.buffer },
  );
  await new Promise((resolve, reject) => worker.once('exit', resolve).once('error', reject));
  assert.deepEqual(counts.snapshot(), { RunPodSandbox: 2, ListContainers: 1000 });

  const byMethod = new Map(counts.figures().map((figure) => [figure.method, figure]));
  const list = byMethod.get('ListContainers')!;
  assert.equal(list.errors, 100);
  assert.equal(list.durationSeconds.count, 1000);
  assert.ok(Math.abs(list.durationSeconds.sum - 4) < 1e-6);
  // 4 ms is under the first bound (5 ms): every bucket holds all of them.
  assert.deepEqual(list.durationSeconds.cumulative, RUNTIME_OPERATION_BUCKETS_SECONDS.map(() => 1000));
  const run = byMethod.get('RunPodSandbox')!;
  assert.equal(run.errors, 1);
  // 1000 s is above the last bound (about 745 s): only +Inf (the count) holds it.
  assert.equal(run.durationSeconds.cumulative.at(-1), 1);
  assert.equal(run.durationSeconds.count, 2);
  assert.equal(byMethod.has('Version'), false, 'methods never called are left out');
});

// A misspelt method name is a compile error (checked by tsc in `npm run build`), not a count silently lost.
export function misspeltMethodDoesNotCompile(counts: CriCallCounts): void {
  // @ts-expect-error 'RunPodSandBox' is not a runtime.v1 method name
  counts.record('RunPodSandBox', 0, false);
}
