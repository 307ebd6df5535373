// A start's CPU split where shardlet first saw a pod: the fixed start-up cost is not
// spread over the pods.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ThreadCpuReport } from '../../src/shared/thread-cpu.js';
import { splitStartCost, startupLine, type CpuSnapshot } from '../../bench/start-cost.js';

const STARTUP_SECONDS = 1.5;

/** A node whose shardlet spends STARTUP_SECONDS before the first pod and `msPerPod` per pod after. */
function start(pods: number, msPerPod: number): { atFirstSeen: CpuSnapshot; atAllRunning: CpuSnapshot } {
  return { atFirstSeen: { processSeconds: STARTUP_SECONDS }, atAllRunning: { processSeconds: STARTUP_SECONDS + (pods * msPerPod) / 1000 } };
}

test('the per-pod figure is the CPU after the first pod seen, the same at 500 and 2,500 pods for the same per-pod cost', () => {
  const small = start(500, 8);
  const large = start(2500, 8);
  const at500 = splitStartCost(small.atFirstSeen, small.atAllRunning, 500);
  const at2500 = splitStartCost(large.atFirstSeen, large.atAllRunning, 2500);
  assert.equal(at500.cpuMsPerPod, 8);
  assert.equal(at2500.cpuMsPerPod, 8);
  assert.equal(at500.startup.cpuSeconds, STARTUP_SECONDS);
  assert.equal(at2500.cpuSeconds, 20);
});

test('the start-up cost by thread is each thread’s CPU at the first pod, other being the process’s rest', () => {
  const atFirstSeen: ThreadCpuReport = { mainMicros: 600_000, shardsMicros: [200_000, 300_000], plegMicros: 100_000, processMicros: 1_500_000 };
  const atAllRunning: ThreadCpuReport = { mainMicros: 1_600_000, shardsMicros: [2_200_000, 2_300_000], plegMicros: 600_000, processMicros: 8_500_000 };
  const split = splitStartCost({ processSeconds: 1.5, threads: atFirstSeen }, { processSeconds: 8.5, threads: atAllRunning }, 1000);
  assert.deepEqual(split.startup.byThread, { main: 0.6, shards: 0.5, pleg: 0.1, other: 0.3 });
  assert.equal(split.threadCpuPerPod?.mainMs, 1);
  assert.equal(split.threadCpuPerPod?.shardsMs, 4);
  assert.equal(split.threadCpuPerPod?.plegMs, 0.5);
  assert.equal(split.threadCpuPerPod?.otherMs, 1.5);
  assert.match(startupLine(split.startup), /^1\.50 s: main 0\.60 {2}shards 0\.50 {2}pleg 0\.10 {2}other 0\.30 s$/);
});

test('without thread figures from shardlet there is no breakdown, only the totals', () => {
  const split = splitStartCost({ processSeconds: 2 }, { processSeconds: 3 }, 100);
  assert.equal(split.startup.byThread, undefined);
  assert.equal(split.threadCpuPerPod, undefined);
  assert.equal(split.cpuMsPerPod, 10);
});
