import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { METHOD_BUCKETS, OTHER_BUCKET, pathBuckets, recordHttpRequest, requestLabels, urlRootPath } from '../../../src/main/metrics/http-metrics.js';
import { KubeletMetrics } from '../../../src/main/metrics/kubelet-metrics.js';
import { probeRegistry, setProbeCountSource } from '../../../src/main/metrics/probe-metrics.js';
import type { ProbeCountRecord } from '../../../src/shared/shard-protocol.js';
import { CriCallCounts } from '../../../src/shared/cri/call-counts.js';

function sampleValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

function metrics(criCalls = new CriCallCounts()): KubeletMetrics {
  return new KubeletMetrics({ nodeName: 'n1', criCalls, shardStats: () => [{ shard: 0, completed: 7, queued: 2, threadRestarts: 1, runP99Ms: 0, waitP99Ms: 0 }] });
}

test('pod start: from seen to running; the SLI from creation, less the pulls', async () => {
  const m = metrics();
  m.observePodStarted({ uid: 'u', pod: 'default/p', seenAtMs: 10_000, createdAtMs: 9_000, runningAtMs: 14_000, firstStartedPullingAtMs: 11_000, lastFinishedPullingAtMs: 13_500 });
  const text = await m.metrics();
  assert.equal(sampleValue(text, 'kubelet_pod_start_duration_seconds_sum'), 4);
  // 14 s - 9 s - 2.5 s of pulling.
  assert.equal(sampleValue(text, 'kubelet_pod_start_sli_duration_seconds_sum{first_with_network="false"}'), 2.5);
  assert.equal(sampleValue(text, 'kubelet_pod_start_sli_duration_seconds_bucket{le="3",first_with_network="false"}'), 1);
  assert.equal(sampleValue(text, 'kubelet_pod_start_sli_duration_seconds_bucket{le="2",first_with_network="false"}'), 0);
});

test('relists set the running gauges and the interval between them', async () => {
  const m = metrics();
  const counts = { podsWithReadySandbox: 3, containersByState: { created: 1, running: 4, exited: 2, unknown: 0 } };
  m.observeRelist({ events: [], startedAtMs: 1_000, durationMs: 20, counts });
  m.observeRelist({ events: [], startedAtMs: 2_100, durationMs: 30 });
  const text = await m.metrics();
  assert.equal(sampleValue(text, 'kubelet_running_pods'), 3);
  assert.equal(sampleValue(text, 'kubelet_running_containers{container_state="running"}'), 4);
  assert.equal(sampleValue(text, 'kubelet_running_containers{container_state="exited"}'), 2);
  assert.equal(sampleValue(text, 'kubelet_pleg_relist_duration_seconds_count'), 2);
  assert.equal(sampleValue(text, 'kubelet_pleg_relist_interval_seconds_count'), 1);
  assert.equal(sampleValue(text, 'kubelet_pleg_relist_interval_seconds_sum'), 1.1);
});

test('per-shard series come from the shard pool’s figures at scrape time', async () => {
  const text = await metrics().metrics();
  assert.equal(sampleValue(text, 'shardlet_shard_queue_depth{shard="0"}'), 2);
  assert.equal(sampleValue(text, 'shardlet_shard_syncs_total{shard="0"}'), 7);
  assert.equal(sampleValue(text, 'shardlet_shard_thread_restarts_total{shard="0"}'), 1);
  // A second scrape reads the same totals, not twice them.
  assert.equal(sampleValue(await metrics().metrics(), 'shardlet_shard_syncs_total{shard="0"}'), 7);
});

test('CRI operations carry upstream’s operation_type names; errors only where there were some', async () => {
  const calls = new CriCallCounts();
  calls.record('RunPodSandbox', 0.09, false);
  calls.record('ListPodSandboxStats', 0.002, true);
  const text = await metrics(calls).metrics();
  assert.equal(sampleValue(text, 'kubelet_runtime_operations_total{operation_type="run_podsandbox"}'), 1);
  assert.equal(sampleValue(text, 'kubelet_runtime_operations_errors_total{operation_type="list_podsandbox_stats"}'), 1);
  assert.equal(sampleValue(text, 'kubelet_runtime_operations_errors_total{operation_type="run_podsandbox"}'), undefined);
  assert.equal(sampleValue(text, 'kubelet_runtime_operations_duration_seconds_bucket{le="0.078125",operation_type="run_podsandbox"}'), 0);
  assert.equal(sampleValue(text, 'kubelet_runtime_operations_duration_seconds_bucket{le="0.1953125",operation_type="run_podsandbox"}'), 1);
});

const SERVED_PATHS = ['/healthz', '/pods', '/metrics', '/metrics/resource', '/stats/summary', '/containerLogs/', '/exec/', '/runningpods/'];

test('HTTP requests: upstream’s path label and long_running, in flight until served', async () => {
  assert.equal(urlRootPath('/metrics/resource'), 'metrics/resource');
  assert.equal(urlRootPath('/stats/summary'), 'stats');
  assert.equal(urlRootPath('/containerLogs/ns/pod/c'), 'containerLogs');
  const m = metrics();
  const done = recordHttpRequest('GET', '/exec/ns/pod/c', 'readwrite', pathBuckets(SERVED_PATHS));
  let text = await m.metrics();
  const labels = '{method="GET",path="exec",server_type="readwrite",long_running="true"}';
  assert.ok((sampleValue(text, `kubelet_http_requests_total${labels}`) ?? 0) >= 1);
  assert.equal(sampleValue(text, `kubelet_http_inflight_requests${labels}`), 1);
  done();
  done();
  text = await m.metrics();
  assert.equal(sampleValue(text, `kubelet_http_inflight_requests${labels}`), 0);
});

test('HTTP requests: a path the server does not serve is "other", a method outside upstream’s set is "other"', () => {
  const buckets = pathBuckets(SERVED_PATHS);
  assert.deepEqual([...buckets].sort(), ['containerLogs', 'exec', 'healthz', 'metrics', 'metrics/resource', 'pods', 'runningpods', 'stats']);
  assert.equal(requestLabels('GET', '/no-such-root/x', 'readwrite', buckets).path, OTHER_BUCKET);
  assert.equal(requestLabels('GET', '/metrics/cadvisor', 'readwrite', buckets).path, OTHER_BUCKET, 'not served here');
  assert.equal(requestLabels('GET', '/metrics/resource', 'readwrite', buckets).path, 'metrics/resource');
  assert.equal(requestLabels('PROPFIND', '/pods', 'readwrite', buckets).method, OTHER_BUCKET);
  // As upstream's metricsMethodBuckets, which leaves PATCH out.
  assert.equal(requestLabels('PATCH', '/pods', 'readwrite', buckets).method, OTHER_BUCKET);
  assert.equal(requestLabels('HEAD', '/pods', 'readwrite', buckets).method, 'HEAD');
});

test('HTTP requests: whatever method and path arrive, every label value comes from the fixed sets', () => {
  const buckets = pathBuckets(SERVED_PATHS);
  const pathValues = new Set([...buckets, OTHER_BUCKET]);
  const methodValues = new Set([...METHOD_BUCKETS, OTHER_BUCKET]);
  fc.assert(
    fc.property(fc.string(), fc.string(), (method, path) => {
      const labels = requestLabels(method, path, 'readwrite', buckets);
      assert.ok(methodValues.has(labels.method), labels.method);
      assert.ok(pathValues.has(labels.path), labels.path);
      assert.ok(labels.long_running === 'true' || labels.long_running === 'false');
    }),
    { numRuns: 2_000 },
  );
});

test('HTTP requests: a thousand unknown paths and methods add no series after the first "other" ones', async () => {
  const m = metrics();
  const buckets = pathBuckets(SERVED_PATHS);
  const seriesCount = async () => (await m.metrics()).split('\n').filter((line) => line.startsWith('kubelet_http_')).length;
  recordHttpRequest('PROPFIND', '/first-unknown', 'readwrite', buckets)();
  const before = await seriesCount();
  for (let i = 0; i < 1_000; i++) recordHttpRequest(i % 2 ? 'PROPFIND' : 'M-SEARCH', `/unknown-${i}/${'x'.repeat(i % 7)}`, 'readwrite', buckets)();
  assert.equal(await seriesCount(), before);
});

test('prober_probe_total is read from the shards\' counts at each scrape; a pod that left takes its series with it', async () => {
  const record: ProbeCountRecord = { podUid: 'probe-uid', podName: 'p', podNamespace: 'ns', containerName: 'c', probeType: 'liveness', result: 'failed', count: 2 };
  let counts: ProbeCountRecord[] = [record];
  setProbeCountSource(async () => counts);
  const series = 'prober_probe_total{probe_type="Liveness",result="failed",container="c",pod="p",namespace="ns",pod_uid="probe-uid"}';
  assert.equal(sampleValue(await probeRegistry.metrics(), series), 2);
  counts = [];
  const text = await probeRegistry.metrics();
  assert.equal(sampleValue(text, series), undefined);
  assert.ok(!text.includes('probe-uid'));
  setProbeCountSource(undefined);
});

test('the runtime contention guard’s limit and creations in flight are read at scrape time, and absent when it is off', async () => {
  let figures = { limit: 6, inFlight: 4 };
  const stats = () => [];
  const on = new KubeletMetrics({ nodeName: 'n1', criCalls: new CriCallCounts(), shardStats: stats, creationLimit: () => figures });
  let text = await on.metrics();
  assert.equal(sampleValue(text, 'shardlet_runtime_creation_limit'), 6);
  assert.equal(sampleValue(text, 'shardlet_runtime_creations_in_flight'), 4);
  figures = { limit: 3, inFlight: 3 };
  text = await on.metrics();
  assert.equal(sampleValue(text, 'shardlet_runtime_creation_limit'), 3);
  const off = await new KubeletMetrics({ nodeName: 'n1', criCalls: new CriCallCounts(), shardStats: stats, creationLimit: () => undefined }).metrics();
  assert.equal(sampleValue(off, 'shardlet_runtime_creation_limit'), undefined);
  assert.equal(sampleValue(off, 'shardlet_runtime_creations_in_flight'), undefined);
});
