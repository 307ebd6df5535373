import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { CriCallCounts } from '../../../src/shared/cri/call-counts.js';

test('calls counted in another thread show in the main thread’s snapshot', async () => {
  const counts = new CriCallCounts();
  counts.record('RunPodSandbox');
  const moduleUrl = new URL('../../../src/shared/cri/call-counts.js', import.meta.url).href;
  const worker = new Worker(
    `import('${moduleUrl}').then(({ CriCallCounts }) => {
       const { workerData } = require('node:worker_threads');
       const counts = new CriCallCounts(workerData);
       for (let i = 0; i < 1000; i++) counts.record('ListContainers');
       counts.record('RunPodSandbox');
     });`,
    { eval: true, workerData: counts.buffer },
  );
  await new Promise((resolve, reject) => worker.once('exit', resolve).once('error', reject));
  assert.deepEqual(counts.snapshot(), { RunPodSandbox: 2, ListContainers: 1000 });
});

// A misspelt method name is a compile error (checked by tsc in `npm run build`), not a count silently lost.
export function misspeltMethodDoesNotCompile(counts: CriCallCounts): void {
  // @ts-expect-error 'RunPodSandBox' is not a runtime.v1 method name
  counts.record('RunPodSandBox');
}
