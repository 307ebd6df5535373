// The default bench runs the scale scenario's rows several times and steady state at
// 2,500 pods; --quick keeps its size; --repeats changes the count.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BenchUsageError, parseBenchOptions, type BenchOptions } from '../../bench/options.js';
import { planBench } from '../../bench/plan.js';

const options = (argv: string[]) => parseBenchOptions(argv) as BenchOptions;

test('the default scale scenario: 1,000 and 2,500 pods static × instant and arm, and the 500-pod reference, each 3 times', () => {
  const plan = planBench(options([]));
  const scale = plan.scenarios.find((scenario) => scenario.name === 'scale')!;
  assert.equal(scale.kind, 'scale');
  assert.equal(scale.rows.length, 1 + 2 * 2);
  for (const row of scale.rows) assert.equal(row.runIds?.length, 3, `${row.label}: 3 runs`);
  const runsById = new Map(plan.runs.map((run) => [run.id, run]));
  const specs = scale.rows.map((row) => runsById.get(row.runId)!);
  assert.deepEqual(specs[0], { ...specs[0], pods: 500, profile: 'instant', source: 'static', workers: 2 });
  const grid = specs.slice(1).map((spec) => `${spec.profile} ${spec.pods} ${spec.source} w${spec.workers}`).sort();
  assert.deepEqual(grid, ['arm 1000 static w2', 'arm 2500 static w2', 'instant 1000 static w2', 'instant 2500 static w2']);
  for (const row of scale.rows) for (const id of row.runIds!) assert.ok(runsById.has(id), `${id} is planned`);
});

test('--source both adds the API source to every scale row but the 500-pod reference', () => {
  const plan = planBench(options(['--scenarios', 'scale', '--source', 'both']));
  const runsById = new Map(plan.runs.map((run) => [run.id, run]));
  const rows = plan.scenarios[0].rows.map((row) => runsById.get(row.runId)!);
  assert.equal(rows.length, 1 + 2 * 2 * 2);
  assert.equal(rows.filter((run) => run.source === 'api').length, 4);
});

test('a row’s repetitions are spread over its floor group, and the first is shared with the other scenarios', () => {
  const plan = planBench(options([]));
  const group = plan.runs.filter((run) => run.floorId === 'instant:2500p:10x50MB:parallel-5').map((run) => run.id.split(':').slice(4).join(':'));
  assert.deepEqual(group, ['static:w2', 'static:w2:rep2', 'static:w2:rep3']);
  const both = planBench(options(['--scenarios', 'scale', '--source', 'both', '--profile', 'instant', '--pods', '2500']));
  const spread = both.runs.map((run) => run.id.split(':').slice(4).join(':'));
  assert.deepEqual(spread, ['static:w2', 'api:w2', 'static:w2:rep2', 'api:w2:rep2', 'static:w2:rep3', 'api:w2:rep3']);
  const kubeletBound = plan.scenarios.find((scenario) => scenario.name === 'kubelet-bound')!;
  const scaleReference = plan.scenarios.find((scenario) => scenario.name === 'scale')!.rows[0];
  assert.ok(kubeletBound.rows.some((row) => row.runId === scaleReference.runId), 'kubelet-bound 500 static --workers 2 is the reference’s first run');
});

test('steady state runs at 500 and 2,500 pods; the 2,500 window follows the first scale run of the same kind', () => {
  const plan = planBench(options([]));
  const steady = plan.scenarios.find((scenario) => scenario.name === 'steady')!;
  const runsById = new Map(plan.runs.map((run) => [run.id, run]));
  assert.deepEqual(steady.rows.map((row) => runsById.get(row.runId)!.pods), [500, 2500]);
  const steady2500 = runsById.get(steady.rows[1].runId)!;
  assert.equal(steady2500.steadySeconds, 30);
  const scaleRow = plan.scenarios.find((scenario) => scenario.name === 'scale')!.rows.find((row) => row.runId === steady2500.id);
  assert.ok(scaleRow, 'shared with a scale row');
  assert.ok(scaleRow.runIds!.slice(1).every((id) => runsById.get(id)!.steadySeconds === 0), 'the other repetitions stop after their start');
});

test('--quick keeps the scale scenario small: 20 pods, instant, static, twice', () => {
  const plan = planBench(options(['--quick']));
  const scale = plan.scenarios.find((scenario) => scenario.name === 'scale')!;
  const runsById = new Map(plan.runs.map((run) => [run.id, run]));
  assert.equal(scale.rows.length, 1);
  assert.equal(scale.rows[0].runIds?.length, 2);
  assert.ok(plan.runs.every((run) => run.pods === 20), 'every quick run has 20 pods');
  assert.deepEqual(scale.rows[0].runIds!.map((id) => runsById.get(id)!.profile), ['instant', 'instant']);
});

test('--repeats sets the count, 1 runs each row once', () => {
  const five = planBench(options(['--scenarios', 'scale', '--repeats', '5', '--pods', '1000', '--source', 'static', '--profile', 'instant']));
  assert.deepEqual(five.scenarios[0].rows.map((row) => row.runIds?.length), [5]);
  assert.equal(five.runs.length, 5);
  const once = planBench(options(['--scenarios', 'scale', '--repeats', '1']));
  assert.ok(once.scenarios[0].rows.every((row) => row.runIds === undefined));
  assert.throws(() => parseBenchOptions(['--repeats', '0']), BenchUsageError);
  assert.throws(() => parseBenchOptions(['--repeats', '2.5']), /--repeats: "2\.5" is not an integer ≥ 1/);
});
