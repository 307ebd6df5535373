// The bench's --creation-limit sweep: every run once per value, side by side
// against one floor, and shardlet started with each value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BenchUsageError, parseBenchOptions, type BenchOptions } from '../../bench/options.js';
import { planBench } from '../../bench/plan.js';
import { describeRun } from '../../bench/scenarios.js';

test('--creation-limit off,adaptive runs each containerd run with the guard off and adaptive against the same floor', () => {
  const options = parseBenchOptions(['--runtime', 'containerd', '--pods', '250', '--workers', '2', '--creation-limit', 'off,adaptive']) as BenchOptions;
  assert.deepEqual(options.creationLimits, ['off', 'adaptive']);
  const plan = planBench(options, 'registry.local/busybox:1');
  assert.equal(plan.floors.length, 1, 'one bare-client floor for both');
  assert.deepEqual(plan.runs.map((run) => run.creationLimit), ['off', 'adaptive']);
  assert.ok(plan.runs.every((run) => run.floorId === plan.floors[0]!.id));
  assert.deepEqual(plan.scenarios[0]!.rows.map((row) => row.label), ['containerd-250 limit off', 'containerd-250 limit adaptive']);
  assert.match(describeRun(plan.runs[0]!), /--runtime-creation-limit=off/);
});

test('without --creation-limit the runs take shardlet’s default and keep their ids', () => {
  const plan = planBench(parseBenchOptions(['--runtime', 'containerd', '--pods', '50', '--workers', '2']) as BenchOptions, 'img');
  assert.deepEqual(plan.runs.map((run) => [run.id, run.creationLimit]), [['containerd:50p:local:parallel-5:static:w2', undefined]]);
});

test('a --creation-limit value shardlet would refuse is refused before anything starts', () => {
  assert.throws(() => parseBenchOptions(['--creation-limit', 'off,0']), BenchUsageError);
  assert.throws(() => parseBenchOptions(['--creation-limit', 'fast']), /--creation-limit: "fast" must be adaptive, off or an integer/);
  assert.deepEqual((parseBenchOptions(['--creation-limit', '8']) as BenchOptions).creationLimits, ['8']);
});
