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

test('a name that is not a CRI method is not counted', () => {
  const counts = new CriCallCounts();
  counts.record('NotAMethod');
  assert.deepEqual(counts.snapshot(), {});
});
