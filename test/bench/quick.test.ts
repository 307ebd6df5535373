// `npm run bench -- --quick` keeps working: the real bench entry as a child
// process, judged on what its users rely on (the tables, results.json with every
// pod's latency, the SVG plots), never on how fast anything was.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { FloorResult, RunResult } from '../../bench/results.js';
import type { RepeatedRowSummary } from '../../bench/repeated-row.js';
import type { ScenarioPlan } from '../../bench/scenarios.js';
import type { TargetCheck } from '../../bench/target-check.js';

const run = promisify(execFile);
const BENCH = fileURLToPath(new URL('../../bench/density.js', import.meta.url));
const QUICK_TIMEOUT_MS = 10 * 60_000;
const SIM_SCENARIOS = ['density', 'pulls', 'sweep', 'kubelet-bound', 'scale', 'steady', 'churn', 'probes'];
/** The scale table's two tables have a profile column; every other table one header. */
const ONE_TABLE_SCENARIOS = SIM_SCENARIOS.filter((name) => name !== 'scale');

interface BenchResults {
  scenarios: ScenarioPlan[];
  runs: RunResult[];
  floors: FloorResult[];
  repeatedRows: RepeatedRowSummary[];
  targets: TargetCheck[];
}

describe('npm run bench -- --quick', { timeout: QUICK_TIMEOUT_MS }, () => {
  let outDir: string;
  let stdout: string;
  let results: BenchResults;

  before(async () => {
    outDir = mkdtempSync(join(tmpdir(), 'shardlet-bench-quick-'));
    // A failed run exits non-zero: execFile rejects with its stdout and stderr for the message.
    ({ stdout } = await run(process.execPath, [BENCH, '--quick', '--out', outDir], { timeout: QUICK_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }));
    results = JSON.parse(readFileSync(join(outDir, 'results.json'), 'utf8')) as BenchResults;
  });

  after(() => rmSync(outDir, { recursive: true, force: true }));

  it('prints a table per scenario and the targets block', () => {
    for (const name of SIM_SCENARIOS) assert.match(stdout, new RegExp(`^${name}: `, 'm'), `a ${name} table`);
    assert.equal(stdout.match(/^scenario\s+source\s/gm)?.length, ONE_TABLE_SCENARIOS.length, 'one header per table');
    assert.equal(stdout.match(/^scenario\s+profile\s+source\s/gm)?.length, 2, 'the scale scenario’s start and cost tables');
    assert.match(stdout, /^targets \(/m);
    assert.match(stdout, /^results: .*results\.json$/m);
  });

  it('writes results.json with every scenario, its rows and every pod’s latency', () => {
    assert.deepEqual(results.scenarios.map((s) => s.name), SIM_SCENARIOS);
    const density = results.scenarios.find((s) => s.name === 'density')!;
    assert.equal(density.rows.length, 4, 'density: static and api × --workers 0 and 1');
    const runsById = new Map(results.runs.map((r) => [r.spec.id, r]));
    for (const scenario of results.scenarios) {
      for (const row of scenario.rows) assert.ok(runsById.has(row.runId), `${scenario.name} row ${row.label} has its run`);
    }
    for (const result of results.runs) {
      assert.equal(result.error, undefined, `${result.spec.id} ran`);
      const start = result.start!;
      assert.equal(start.pods.length, result.spec.pods, `${result.spec.id}: a latency for every pod`);
      for (const pod of start.pods) {
        assert.ok(Number.isFinite(pod.latencyMs) && pod.latencyMs >= 0, `${pod.pod} latency ${pod.latencyMs}`);
        assert.ok(pod.latencyExcludingPullsMs <= pod.latencyMs);
      }
      assert.ok(start.cpuSeconds > 0 && start.peakRssMiB > 0, `${result.spec.id}: cpu ${start.cpuSeconds} s, peak RSS ${start.peakRssMiB} MiB`);
      assert.ok(start.startup.cpuSeconds > 0 && start.startup.byThread!.main > 0, `${result.spec.id}: start-up CPU ${JSON.stringify(start.startup)}`);
      assert.ok(start.firstSeenMs >= 0 && start.firstSeenMs <= start.allRunningMs, `${result.spec.id}: first pod seen after ${start.firstSeenMs} ms`);
      assert.ok(start.criCalls?.RunPodSandbox !== undefined && start.criCalls.RunPodSandbox >= result.spec.pods, `${result.spec.id}: a sandbox per pod`);
      if (result.spec.source === 'api') assert.ok(Object.keys(start.apiWrites).length > 0, `${result.spec.id}: shardlet wrote pod statuses`);
      const byThread = start.threadCpuPerPod;
      assert.ok(byThread && byThread.mainMs > 0, `${result.spec.id}: the main thread's CPU per pod`);
      if (result.spec.workers > 0) assert.ok(byThread.shardsMs > 0, `${result.spec.id}: the shard threads synced the pods`);
      else assert.equal(byThread.shardsMs, 0, `${result.spec.id}: no shard thread at --workers 0`);
    }
    const steady = results.runs.filter((r) => r.steady && !r.spec.probes);
    assert.equal(steady.length, 1, 'one run kept going for the steady window');
    assert.ok(Number.isFinite(steady[0].steady!.cpuPercentOfCore), `steady CPU ${steady[0].steady!.cpuPercentOfCore} %`);
    for (const floor of results.floors) assert.ok(floor.measured && floor.measured.podLatenciesMs.length === floor.spec.pods, `floor ${floor.spec.id}`);
    assert.ok(results.targets.length > 0);
  });

  it('runs the scale row twice and reports its median and spread, the start-up cost apart', () => {
    const scale = results.scenarios.find((s) => s.name === 'scale')!;
    assert.equal(scale.rows.length, 1);
    assert.equal(scale.rows[0].runIds?.length, 2, 'two runs of the quick scale row');
    assert.equal(results.repeatedRows.length, 1);
    const summary = results.repeatedRows[0];
    assert.equal(summary.measured, 2);
    for (const figure of [summary.allRunningMs, summary.startupCpuSeconds, summary.cpuMsPerPod, summary.byThreadMsPerPod?.main, summary.peakRssMiB]) {
      assert.ok(figure && figure.runs === 2 && figure.min <= figure.median && figure.median <= figure.max, `a spread over both runs: ${JSON.stringify(figure)}`);
    }
    assert.match(stdout, /^scale-20\s+instant\s+static\s+1\s+2\/2\s+[\d.]+ \([\d.]+–[\d.]+\)/m, 'a scale row: median (min–max)');
    assert.match(stdout, /^ {2}scale-20 instant static wk 1 +per pod main [\d.]+ .* start-up main [\d.]+/m);
  });

  it('prints issue 22’s targets, the ones whose runs did not happen as not run', () => {
    const issue22 = results.targets.filter((target) => target.group.startsWith('issue 22'));
    assert.equal(issue22.length, 8, issue22.map((target) => target.text).join('\n'));
    assert.ok(issue22.every((target) => target.status === 'not run'), 'a quick bench has no 2,500-, 500- or 250-pod run');
    assert.match(stdout, /^ issue 22: 2,500 pods on one node:$/m);
    assert.match(stdout, /^ {2}not run {6}steady state, 2500 running pods/m);
  });

  it('probes every pod and reports the probes per second, their latency and the CPU by thread', () => {
    const probed = results.runs.filter((r) => r.spec.probes && r.spec.probes.readiness !== 'none');
    assert.equal(probed.length, 1, 'one probes run');
    const baseline = results.runs.filter((r) => r.spec.probes?.readiness === 'none');
    assert.equal(baseline.length, 1, 'and the same run without probes');
    assert.equal(baseline[0].steady?.probes, undefined);
    const steady = probed[0].steady!;
    assert.ok(steady.probes && steady.probes.perSecond > 0 && steady.probes.sampled > 0, `probes ${JSON.stringify(steady.probes)}`);
    assert.ok(Number.isFinite(steady.probes.latency.p99Ms));
    assert.ok(steady.threadCpuPercent && steady.threadCpuPercent.shards > 0, 'the shards probed');
    assert.match(stdout, /^ {2}probes http static wk 1 {2}[\d.]+ probes\/s; latency p50 [\d.]+ p99 [\d.]+/m);
  });

  it('churns pods for 20 s and reports what it left behind', () => {
    const churned = results.runs.filter((r) => r.churn);
    assert.equal(churned.length, 1, 'one run churned');
    const churn = churned[0].churn!;
    assert.ok(churn.seconds >= 20, `churned ${churn.seconds} s`);
    assert.ok(churn.created > 0 && churn.deleted > 0, `${churn.created} created, ${churn.deleted} deleted`);
    assert.ok(churn.samples.length > 0 && churn.samples.every((sample) => sample.rssMiB > 0), 'RSS sampled');
    assert.equal(churn.windows.length, 10);
    assert.ok(churn.heapSamples.length > 0, 'each isolate\'s heap sampled');
    for (const sample of churn.heapSamples) {
      assert.ok(sample.main.usedMiB > 0 && sample.shards.usedMiB > 0 && sample.pleg.usedMiB > 0, `every isolate reported: ${JSON.stringify(sample)}`);
    }
    assert.deepEqual(
      churn.memoryParts.map((part) => part.part),
      ['main heap', 'shard heaps', 'PLEG heap', 'outside the heaps'],
    );
    assert.match(stdout, /memory after warm-up → end: main heap [\d.]+→[\d.]+ \(live/, 'the RSS split by isolate in the report');
    for (const count of Object.values(churn.leaks)) assert.ok(Number.isInteger(count) && count >= 0, 'leak counts');
    assert.equal(churn.leaks.sandboxes, 0, 'no sandbox left of a deleted pod');
    assert.equal(churn.leaks.containers, 0, 'no container left of a deleted pod');
    assert.equal(churn.leaks.podDirs, 0, 'no pod directory left of a deleted pod');
    assert.equal(churn.leaks.logDirs, 0, 'no log directory left of a deleted pod');
    assert.match(stdout, /^churn\s+static\s+20\s+1\s/m, 'a churn row');
    assert.ok(results.targets.some((target) => /^churn .*leaked \d+ sandboxes/.test(target.text)), 'the leaks in the targets');
  });

  it('draws the latency CDFs, the workers sweep and the churn over time as SVG with data points', () => {
    const plots = [...stdout.matchAll(/^plot:\s+(\S+)$/gm)].map((m) => m[1]);
    const names = plots.map((path) => path.slice(outDir.length + 1)).sort();
    assert.deepEqual(names, ['churn-over-time.svg', 'density-latency.svg', 'kubelet-bound-latency.svg', 'pulls-latency.svg', 'sweep-latency.svg', 'sweep-pods-per-second.svg']);
    for (const path of plots) {
      const svg = readFileSync(path, 'utf8');
      assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      assert.match(svg, /<\/svg>\s*$/);
      const points = [...svg.matchAll(/<polyline [^>]*points="([^"]+)"/g)].map((m) => m[1].split(' ').length);
      assert.ok(points.length > 0 && points.every((count) => count >= 2), `${path}: lines with points`);
    }
  });
});
