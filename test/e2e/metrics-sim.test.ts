// /metrics, /metrics/cadvisor, /metrics/resource, /metrics/probes and /stats/summary of a kubelet with
// two shard threads running pods on the simulated runtime (over its real socket),
// served through the metrics route module on a plain HTTP server (the :10250 server
// puts TLS and auth in front of the same routes). The text passes `promtool check
// metrics`, and a real Prometheus server scrapes it and answers a query (for
// /metrics/cadvisor, the community's per-pod CPU and memory queries).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { Kubelet } from '../../src/main/kubelet.js';
import { registerMetricsRoutes } from '../../src/main/metrics/metrics-routes.js';
import { parseFlags } from '../../src/main/options/flags.js';
import { mergeFlags } from '../../src/main/options/kubelet-config.js';
import { KubeletRoutes } from '../../src/main/server/kubelet-routes.js';
import type { Summary } from '../../src/main/stats/summary-types.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { ensurePrometheus, promtoolCheckMetrics, startPrometheus, type PrometheusBinaries, type PrometheusServer } from '../../src/tools/prometheus-env.js';
import { signalGroup, waitUntil } from '../helpers/kubelet-process.js';
import { serveRoutes, type RouteServer } from '../../src/tools/route-server.js';
import { manifest } from './scenarios.js';

const WORKERS = 2;
const PODS = 6;
const NODE = 'metrics-node';
const TIMEOUT_MS = 60_000;

let sim: SimRuntime;
let kubelet: Kubelet;
let server: RouteServer;
let binaries: PrometheusBinaries;
let prometheus: PrometheusServer | undefined;
let cadvisorPrometheus: PrometheusServer | undefined;

async function get(path: string): Promise<{ status: number; text: string; contentType: string }> {
  const res = await fetch(`${server.url}${path}`);
  return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') ?? '' };
}

/** The value of the sample `name{labels}` exactly as written in the text, or undefined. */
function sampleValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1).split(' ')[0]);
}

before(async () => {
  binaries = ensurePrometheus();
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-metrics-sim-'));
  const manifestDir = join(workDir, 'manifests');
  mkdirSync(manifestDir);
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  for (let i = 0; i < PODS; i++) {
    const resources = i === 0 ? { limits: { memory: '64Mi', cpu: '500m' } } : undefined;
    // m1 is probed (an exec readiness probe through the sim's ExecSync) for /metrics/probes.
    const readinessProbe = i === 1 ? { exec: { command: ['cat', '/etc/hostname'] }, periodSeconds: 1 } : undefined;
    writeFileSync(join(manifestDir, `m${i}.yaml`), manifest(`m${i}`, { containers: [{ name: 'main', image: 'busybox:1.35', command: ['sleep', 'infinity'], resources, readinessProbe }] }));
  }
  const flags = parseFlags([
    `--container-runtime-endpoint=${sim.endpoint}`,
    `--pod-manifest-path=${manifestDir}`,
    `--root-dir=${join(workDir, 'root')}`,
    '--read-only-port=0',
    // The routes are served by the test's own adapter: no :10250 server, no fixed healthz port.
    '--enable-server=false',
    '--healthz-port=0',
    `--workers=${WORKERS}`,
    `--hostname-override=${NODE}`,
  ]);
  const logger = pino({ level: 'warn' });
  kubelet = new Kubelet(mergeFlags(undefined, flags), logger);
  await kubelet.start();
  const routes = new KubeletRoutes();
  registerMetricsRoutes(routes, { metrics: kubelet.metrics, summary: kubelet.summary, logger });
  server = await serveRoutes(routes);
  await waitUntil(
    async () => {
      const text = (await get('/metrics')).text;
      return sampleValue(text, 'kubelet_running_pods') === PODS;
    },
    TIMEOUT_MS,
    `kubelet_running_pods to reach ${PODS}`,
  );
});

after(async () => {
  if (prometheus) await signalGroup(prometheus.process, 'SIGTERM');
  if (cadvisorPrometheus) await signalGroup(cadvisorPrometheus.process, 'SIGTERM');
  await server?.close();
  await kubelet?.stop();
  await sim?.close();
});

test('/metrics passes promtool check metrics and has upstream’s series, CRI operations counted in the shard threads', async () => {
  // Every pod was seen starting (m1 counts once its readiness probe has passed), and a
  // full relist has run since: the runtime gauges hold the last relist's counts, and on a
  // busy machine that relist can have begun before the last containers started.
  const { status, text, contentType } = await waitUntil(async () => {
    const reply = await get('/metrics');
    const started = sampleValue(reply.text, 'kubelet_pod_start_duration_seconds_count') === PODS;
    const relisted = sampleValue(reply.text, 'kubelet_running_containers{container_state="running"}') === PODS;
    return started && relisted ? reply : false;
  }, 30_000, 'every pod start observed and relisted');
  assert.equal(status, 200);
  assert.match(contentType, /^text\/plain; version=0\.0\.4/);
  const check = promtoolCheckMetrics(binaries.promtool, text);
  assert.ok(check.ok, `promtool check metrics: ${check.output}`);

  assert.equal(sampleValue(text, 'kubelet_running_pods'), PODS);
  assert.equal(sampleValue(text, `kubelet_node_name{node="${NODE}"}`), 1);
  assert.match(text, /^# HELP kubelet_running_pods \[ALPHA\] Number of pods that have a running pod sandbox$/m);
  // Sandboxes are created only in the shard threads (--workers 2): these counts crossed threads through shared memory.
  assert.ok((sampleValue(text, 'kubelet_runtime_operations_total{operation_type="run_podsandbox"}') ?? 0) >= PODS);
  assert.ok((sampleValue(text, 'kubelet_runtime_operations_duration_seconds_count{operation_type="start_container"}') ?? 0) >= PODS);
  assert.ok((sampleValue(text, 'kubelet_runtime_operations_duration_seconds_bucket{le="+Inf",operation_type="run_podsandbox"}') ?? 0) >= PODS);
  // Every pod was seen starting; relists happen every second.
  assert.equal(sampleValue(text, 'kubelet_pod_start_duration_seconds_count'), PODS);
  assert.ok((sampleValue(text, 'kubelet_pleg_relist_duration_seconds_count') ?? 0) >= 1);
  assert.ok((sampleValue(text, 'kubelet_pod_worker_duration_seconds_count{operation_type="create"}') ?? 0) >= PODS);
  const shardSyncs = [0, 1].map((shard) => sampleValue(text, `shardlet_shard_syncs_total{shard="${shard}"}`) ?? 0);
  assert.ok(shardSyncs[0] + shardSyncs[1] >= PODS, `shard syncs ${shardSyncs}`);
  assert.equal(sampleValue(text, 'shardlet_shard_thread_restarts_total{shard="0"}'), 0);
  assert.match(text, /^process_cpu_seconds_total /m);
  assert.match(text, /^nodejs_heap_size_used_bytes /m);
});

test('/stats/summary has every pod with CPU and memory, and the node’s own figures', async () => {
  const { status, text } = await get('/stats/summary');
  assert.equal(status, 200);
  const summary = JSON.parse(text) as Summary;
  assert.equal(summary.node.nodeName, NODE);
  assert.ok((summary.node.cpu?.usageCoreNanoSeconds ?? 0) > 0);
  assert.ok((summary.node.memory?.workingSetBytes ?? 0) > 0);
  assert.ok((summary.node.fs?.capacityBytes ?? 0) > 0);
  assert.ok((summary.node.runtime?.imageFs?.usedBytes ?? 0) > 0, 'the sim’s ImageFsInfo counts the pulled image');
  assert.deepEqual(summary.node.systemContainers?.map((c) => c.name), ['kubelet', 'pods']);
  const pods = summary.pods.filter((pod) => pod.podRef.name.startsWith('m'));
  assert.equal(pods.length, PODS);
  for (const pod of pods) {
    assert.equal(pod.podRef.namespace, 'default');
    assert.ok(pod.startTime, `${pod.podRef.name} has a start time`);
    assert.ok((pod.cpu?.usageCoreNanoSeconds ?? 0) > 0, `${pod.podRef.name} cpu`);
    assert.ok((pod.memory?.workingSetBytes ?? 0) > 0, `${pod.podRef.name} memory`);
    assert.equal(pod.containers.length, 1);
    assert.equal(pod.containers[0].name, 'main');
    assert.ok(pod.containers[0].startTime);
    assert.ok((pod.containers[0].memory?.workingSetBytes ?? 0) > 0);
    assert.ok(pod.network?.name, `${pod.podRef.name} network`);
  }
  // The pod with a 64 MiB limit: the sim models a quarter of the limit as its working set.
  const limited = pods.find((pod) => pod.podRef.name.startsWith('m0'))!;
  assert.equal(limited.containers[0].memory?.workingSetBytes, 16 * 1024 * 1024);

  const cpuAndMemory = JSON.parse((await get('/stats/summary?only_cpu_and_memory=true')).text) as Summary;
  assert.equal(cpuAndMemory.pods.length, summary.pods.length);
  assert.equal(cpuAndMemory.node.fs, undefined);
  assert.equal(cpuAndMemory.pods[0].network, undefined);
  // A second sample gives the rate upstream's cached CPU usage gives.
  assert.ok(cpuAndMemory.pods.every((pod) => pod.containers[0].cpu?.usageNanoCores !== undefined));
});

test('/metrics/resource passes promtool and has each container’s CPU and working set', async () => {
  const { status, text } = await get('/metrics/resource');
  assert.equal(status, 200);
  const check = promtoolCheckMetrics(binaries.promtool, text);
  assert.ok(check.ok, `promtool check metrics: ${check.output}`);
  for (let i = 0; i < PODS; i++) {
    assert.match(text, new RegExp(`^container_cpu_usage_seconds_total\\{container="main",namespace="default",pod="m${i}-${NODE}"\\} [0-9.e-]+ \\d+$`, 'm'));
    assert.match(text, new RegExp(`^container_memory_working_set_bytes\\{container="main",namespace="default",pod="m${i}-${NODE}"\\} \\d+ \\d+$`, 'm'));
  }
  assert.match(text, /^node_cpu_usage_seconds_total [0-9.e+]+ \d+$/m);
  assert.equal(sampleValue(text, 'resource_scrape_error'), 0);
});

test('/metrics/probes serves prober_probe_total as counted in the shard running the probe', async () => {
  const series = new RegExp(`^prober_probe_total\\{probe_type="Readiness",result="successful",container="main",pod="m1-${NODE}",namespace="default",pod_uid="[0-9a-f]+"\\} (\\d+)$`, 'm');
  const text = await waitUntil(async () => {
    const reply = await get('/metrics/probes');
    return reply.status === 200 && Number(series.exec(reply.text)?.[1] ?? 0) >= 2 ? reply.text : false;
  }, 30_000, 'two successful readiness probes of m1 counted');
  assert.ok(promtoolCheckMetrics(binaries.promtool, text).ok);
  assert.doesNotMatch(text, /pod="m0-/, 'pods without probes have no series');
});

test('a real Prometheus server scrapes /metrics and its query API returns kubelet_running_pods', async () => {
  prometheus = await startPrometheus(binaries.prometheus, `127.0.0.1:${server.port}`);
  const value = await waitUntil(
    async () => {
      const res = await fetch(`${prometheus!.url}/api/v1/query?query=kubelet_running_pods`);
      const body = (await res.json()) as { data?: { result?: Array<{ metric: Record<string, string>; value: [number, string] }> } };
      return body.data?.result?.[0]?.value[1];
    },
    TIMEOUT_MS,
    'Prometheus to have scraped kubelet_running_pods',
  );
  assert.equal(Number(value), PODS);
});

test('/metrics/cadvisor passes promtool and has a CPU and working-set series per container and per pod cgroup', async () => {
  const { status, text } = await get('/metrics/cadvisor');
  assert.equal(status, 200);
  const check = promtoolCheckMetrics(binaries.promtool, text);
  assert.ok(check.ok, `promtool check metrics: ${check.output}`);
  const lines = text.split('\n');
  for (let i = 0; i < PODS; i++) {
    const container = lines.find((l) => l.startsWith('container_memory_working_set_bytes{container="main",') && l.includes(`pod="m${i}-${NODE}"`));
    assert.ok(container, `a working set of m${i}'s container`);
    assert.match(container, /image="busybox:1\.35",name="[^"]+",namespace="default"/);
    assert.ok(lines.some((l) => l.startsWith('container_cpu_usage_seconds_total{container="",cpu="total",') && l.includes(`pod="m${i}-${NODE}"`)), `m${i}'s pod cgroup CPU`);
  }
  // m0 has limits of 500m and 64Mi: its container's cgroup spec says so.
  assert.ok(lines.some((l) => l.startsWith('container_spec_memory_limit_bytes{container="main",') && l.includes(`pod="m0-${NODE}"`) && l.endsWith(' 67108864')));
  assert.ok(lines.some((l) => l.startsWith('container_spec_cpu_quota{container="main",') && l.includes(`pod="m0-${NODE}"`) && l.endsWith(' 50000')));
  assert.match(text, /^container_scrape_error 0$/m);
});

test('a real Prometheus scraping /metrics/cadvisor answers the community’s per-pod CPU and memory queries with a series per pod', async () => {
  cadvisorPrometheus = await startPrometheus(binaries.prometheus, `127.0.0.1:${server.port}`, 'cadvisor', undefined, '/metrics/cadvisor');
  const query = async (expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> => {
    const res = await fetch(`${cadvisorPrometheus!.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as { data?: { result?: Array<{ metric: Record<string, string>; value: [number, string] }> } };
    return body.data?.result ?? [];
  };
  // The CPU half of kube-prometheus' node_namespace_pod_container:container_cpu_usage_seconds_total:sum_irate
  // (its join with kube-state-metrics' kube_pod_info aside), and the usual per-pod rate.
  const perContainerIrate = 'sum by (namespace, pod, container) (irate(container_cpu_usage_seconds_total{job="cadvisor", image!=""}[5m]))';
  const perPodRate = 'sum by (namespace, pod) (rate(container_cpu_usage_seconds_total{container!=""}[1m]))';
  const perPodMemory = 'sum by (namespace, pod) (container_memory_working_set_bytes{job="cadvisor", container!="", image!=""})';
  for (const expr of [perContainerIrate, perPodRate, perPodMemory]) {
    const result = await waitUntil(
      async () => {
        const rows = await query(expr);
        return rows.length === PODS ? rows : undefined;
      },
      TIMEOUT_MS,
      `${expr} to return ${PODS} series`,
    );
    const pods = new Set(result.map((row) => row.metric.pod));
    assert.equal(pods.size, PODS, `one series per pod for ${expr}`);
    for (const row of result) assert.ok(Number(row.value[1]) >= 0 && Number.isFinite(Number(row.value[1])), `${expr}: ${JSON.stringify(row)}`);
  }
  const memory = await query(perPodMemory);
  assert.ok(memory.every((row) => Number(row.value[1]) > 0), 'every pod has a working set');
});
