// The summary provider at its CRI seam, served through the real metrics routes:
// ListPodSandboxStats replies shaped as containerd 2.x and CRI-O send them (captured
// shapes: containerd 2.x lists exited instances without figures; CRI-O gives no pod
// linux.cpu or memory), read back from /stats/summary and /metrics/resource as
// metrics-server and Prometheus read them, and ranked by the eviction manager.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { rankForEviction } from '../../../src/main/eviction/pod-ranking.js';
import { KubeletMetrics } from '../../../src/main/metrics/kubelet-metrics.js';
import { registerMetricsRoutes } from '../../../src/main/metrics/metrics-routes.js';
import { KubeletRoutes } from '../../../src/main/server/kubelet-routes.js';
import { SummaryProvider, type SummarySource } from '../../../src/main/stats/summary-provider.js';
import type { Summary } from '../../../src/main/stats/summary-types.js';
import { CriCallCounts } from '../../../src/shared/cri/call-counts.js';
import type { CriClient } from '../../../src/shared/cri/client.js';
import type * as cri from '../../../src/shared/cri/types.js';
import type { PodCgroupSettings } from '../../../src/shared/shard-protocol.js';
import type { Pod } from '../../../src/shared/types.js';
import { serveRoutes, type RouteServer } from '../../../src/tools/route-server.js';

const logger = pino({ level: 'silent' });
const NOW_NS = Date.now() * 1e6;
const Mi = 1024 * 1024;

function u64(value: number): cri.UInt64Value__Output {
  return { value };
}

function labelsOf(pod: string, container?: string): Record<string, string> {
  const labels: Record<string, string> = { 'io.kubernetes.pod.uid': `uid-${pod}`, 'io.kubernetes.pod.name': pod, 'io.kubernetes.pod.namespace': 'default' };
  if (container) labels['io.kubernetes.container.name'] = container;
  return labels;
}

function liveContainer(pod: string, name: string, id: string, workingSetBytes: number, cpuNs: number): cri.ContainerStats__Output {
  return {
    attributes: { id, metadata: { name, attempt: 1 }, labels: labelsOf(pod, name), annotations: {} },
    cpu: { timestamp: NOW_NS, usage_core_nano_seconds: u64(cpuNs), usage_nano_cores: null },
    memory: { timestamp: NOW_NS, working_set_bytes: u64(workingSetBytes), available_bytes: null, usage_bytes: u64(workingSetBytes), rss_bytes: null, page_faults: null, major_page_faults: null },
    writable_layer: { timestamp: NOW_NS, fs_id: { mountpoint: '/' }, used_bytes: u64(4096), inodes_used: u64(2) },
    swap: null,
  };
}

/** containerd 2.x's entry for an exited instance: its attributes, no figures. */
function deadInstance(pod: string, name: string, id: string): cri.ContainerStats__Output {
  return { attributes: { id, metadata: { name, attempt: 0 }, labels: labelsOf(pod, name), annotations: {} }, cpu: null, memory: null, writable_layer: null, swap: null };
}

function sandbox(pod: string, containers: cri.ContainerStats__Output[], podFigures: { workingSetBytes: number; cpuNs: number } | undefined): cri.PodSandboxStats__Output {
  return {
    attributes: { id: `sb-${pod}`, metadata: { name: pod, namespace: 'default', uid: `uid-${pod}`, attempt: 0 }, labels: labelsOf(pod), annotations: {} },
    linux: {
      cpu: podFigures ? { timestamp: NOW_NS, usage_core_nano_seconds: u64(podFigures.cpuNs), usage_nano_cores: null } : null,
      memory: podFigures
        ? { timestamp: NOW_NS, working_set_bytes: u64(podFigures.workingSetBytes), available_bytes: null, usage_bytes: u64(podFigures.workingSetBytes), rss_bytes: null, page_faults: null, major_page_faults: null }
        : null,
      network: null,
      process: null,
      containers,
    },
    windows: null,
  } as cri.PodSandboxStats__Output;
}

/** A CRI client that answers the summary's calls with the given replies. */
function fakeCri(sandboxes: cri.PodSandboxStats__Output[], runningIds: string[]): CriClient {
  return {
    listPodSandboxStats: async () => ({ stats: sandboxes }),
    listContainers: async (req: cri.ListContainersRequest) => {
      assert.equal(req.filter?.state?.state, 'CONTAINER_RUNNING', 'only running containers are asked for');
      return { containers: runningIds.map((id) => ({ id, pod_sandbox_id: '', image_ref: '', state: 'CONTAINER_RUNNING', created_at: NOW_NS, labels: {}, annotations: {}, metadata: null, image: null })) };
    },
    listContainerStats: async () => ({ stats: [] }),
    imageFsInfo: async () => ({ image_filesystems: [], container_filesystems: [] }),
  } as unknown as CriClient;
}

function podOf(name: string, memoryRequest: string): Pod {
  return { metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: { containers: [{ name: 'main', image: 'busybox', resources: { requests: { memory: memoryRequest }, limits: { memory: '1Gi' } } }] } };
}

const servers: RouteServer[] = [];
after(async () => {
  for (const server of servers) await server.close();
});

let metrics: KubeletMetrics | undefined;

async function serve(source: Partial<SummarySource> & Pick<SummarySource, 'cri'>): Promise<{ summary: Summary; resource: string }> {
  const provider = new SummaryProvider({ nodeName: 'n1', rootDir: '/', podTimes: () => undefined, logger, ...source });
  metrics ??= new KubeletMetrics({ nodeName: 'n1', criCalls: new CriCallCounts(), shardStats: () => [] });
  const routes = new KubeletRoutes();
  registerMetricsRoutes(routes, { metrics, summary: provider, logger });
  const server = await serveRoutes(routes);
  servers.push(server);
  const summaryReply = await fetch(`${server.url}/stats/summary`);
  assert.equal(summaryReply.status, 200);
  const resourceReply = await fetch(`${server.url}/metrics/resource`);
  return { summary: (await summaryReply.json()) as Summary, resource: await resourceReply.text() };
}

function seriesCount(text: string, prefix: string): number {
  return text.split('\n').filter((line) => line.startsWith(prefix)).length;
}

test('containerd 2.x: /stats/summary lists each container once and /metrics/resource has no duplicate series', async () => {
  // "main" restarted once: its exited first instance is still listed, without figures.
  const reply = [sandbox('web', [deadInstance('web', 'main', 'c-dead'), liveContainer('web', 'main', 'c-live', 3 * Mi, 2e9)], { workingSetBytes: 4 * Mi, cpuNs: 3e9 })];
  const { summary, resource } = await serve({ cri: () => fakeCri(reply, ['c-live']), podTimes: () => ({ containerStartTimeMsByName: new Map([['main', Date.now() - 5000]]) }) });
  assert.deepEqual(summary.pods[0].containers.map((c) => c.name), ['main']);
  assert.equal(summary.pods[0].containers[0].memory?.workingSetBytes, 3 * Mi);
  assert.equal(seriesCount(resource, 'container_start_time_seconds{container="main",namespace="default",pod="web"}'), 1);
  assert.equal(seriesCount(resource, 'container_memory_working_set_bytes{container="main",namespace="default",pod="web"}'), 1);
  assert.equal(seriesCount(resource, 'container_cpu_usage_seconds_total{container="main",namespace="default",pod="web"}'), 1);
});

test('CRI-O: pods get CPU and memory from their pod cgroup, and /metrics/resource has the pod series', async () => {
  const reply = [sandbox('web', [liveContainer('web', 'main', 'c-web', 3 * Mi, 2e9)], undefined)];
  const settings = { layout: { version: 'v2', mounts: { unified: '/sys/fs/cgroup' }, description: 'v2' }, driver: 'systemd', root: [] } as PodCgroupSettings;
  const pods = new Map([['uid-web', podOf('web', '1Mi')]]);
  const read = async (_settings: PodCgroupSettings, pod: Pod) => {
    assert.equal(pod.metadata?.uid, 'uid-web');
    return { timestampNs: NOW_NS, usageCoreNanoSeconds: 5e9, usageBytes: 6 * Mi, workingSetBytes: 5 * Mi };
  };
  const { summary, resource } = await serve({ cri: () => fakeCri(reply, ['c-web']), pod: (uid) => pods.get(uid), podCgroups: () => settings, readPodCgroup: read });
  assert.equal(summary.pods[0].memory?.workingSetBytes, 5 * Mi, 'the pod cgroup also holds the pause process, so it exceeds the container');
  assert.equal(summary.pods[0].cpu?.usageCoreNanoSeconds, 5e9);
  assert.match(resource, /^pod_memory_working_set_bytes\{namespace="default",pod="web"\} 5242880 \d+$/m);
  assert.match(resource, /^pod_cpu_usage_seconds_total\{namespace="default",pod="web"\} 5 \d+$/m);
});

test('CRI-O with no pod cgroups: the pod figures are its containers’ sums, and eviction ranks the pod by its real usage', async () => {
  // Memory pressure: "hog" uses 300Mi over its 100Mi request; "calm" uses 2Mi of its 10Mi request.
  const reply = [
    sandbox('calm', [liveContainer('calm', 'main', 'c-calm', 2 * Mi, 1e9)], undefined),
    sandbox('hog', [liveContainer('hog', 'main', 'c-hog', 200 * Mi, 1e9), liveContainer('hog', 'side', 'c-hog-side', 100 * Mi, 1e9)], undefined),
  ];
  const { summary, resource } = await serve({ cri: () => fakeCri(reply, ['c-calm', 'c-hog', 'c-hog-side']) });
  const hogStats = summary.pods.find((pod) => pod.podRef.name === 'hog');
  assert.equal(hogStats?.memory?.workingSetBytes, 300 * Mi);
  assert.match(resource, /^pod_memory_working_set_bytes\{namespace="default",pod="hog"\} 314572800 \d+$/m);
  const statsByUid = new Map(summary.pods.map((pod) => [pod.podRef.uid, pod]));
  // Seen as using nothing, "calm" would go first: its (zero) use exceeds its request by more.
  const ranked = rankForEviction([podOf('calm', '10Mi'), podOf('hog', '100Mi')].map((pod) => ({ pod, stats: statsByUid.get(pod.metadata!.uid!) })), 'memory.available');
  assert.deepEqual(ranked.map((entry) => entry.pod.metadata?.name), ['hog', 'calm']);
});

test('/metrics/cadvisor: one series set per live container and per pod, every pod cgroup read for its page cache', async () => {
  const reply = [sandbox('web', [deadInstance('web', 'main', 'c-dead'), liveContainer('web', 'main', 'c-live', 3 * Mi, 2e9)], { workingSetBytes: 4 * Mi, cpuNs: 3e9 })];
  const settings = { layout: { version: 'v2', mounts: { unified: '/sys/fs/cgroup' }, description: 'v2' }, driver: 'cgroupfs', root: [] } as PodCgroupSettings;
  const pods = new Map([['uid-web', podOf('web', '1Mi')]]);
  const cgroupReads: string[] = [];
  const read = async (_settings: PodCgroupSettings, pod: Pod) => {
    cgroupReads.push(pod.metadata!.uid!);
    return { timestampNs: NOW_NS, cacheBytes: 7 * Mi };
  };
  // ListContainers as runtimes answer it: with the labels the kubelet put on the container.
  const base = fakeCri(reply, ['c-live']);
  const runtime = {
    ...base,
    listContainers: async (req: cri.ListContainersRequest) => {
      const listed = await base.listContainers(req);
      return { containers: listed.containers.map((c) => ({ ...c, labels: labelsOf('web', 'main') })) };
    },
  } as unknown as CriClient;
  const provider = new SummaryProvider({ nodeName: 'n1', rootDir: '/', podTimes: () => undefined, logger, cri: () => runtime, pod: (uid) => pods.get(uid), podCgroups: () => settings, readPodCgroup: read });
  metrics ??= new KubeletMetrics({ nodeName: 'n1', criCalls: new CriCallCounts(), shardStats: () => [] });
  const routes = new KubeletRoutes();
  registerMetricsRoutes(routes, { metrics, summary: provider, logger });
  const server = await serveRoutes(routes);
  servers.push(server);
  const text = await (await fetch(`${server.url}/metrics/cadvisor`)).text();
  assert.deepEqual(cgroupReads, ['uid-web'], 'the runtime gave pod figures, and the pod cgroup is still read for what the CRI lacks');
  assert.equal(seriesCount(text, 'container_memory_working_set_bytes{container="main",id="/kubepods/burstable/poduid-web/c-live",image="busybox",name="c-live",namespace="default",pod="web"}'), 1);
  assert.equal(seriesCount(text, 'container_memory_working_set_bytes{container="main"'), 1, 'the exited instance has no series');
  assert.match(text, /^container_memory_working_set_bytes\{container="",id="\/kubepods\/burstable\/poduid-web",image="",name="",namespace="default",pod="web"\} 4194304 \d+$/m);
  assert.match(text, /^container_memory_cache\{container="",id="\/kubepods\/burstable\/poduid-web",.*\} 7340032 \d+$/m);
});
