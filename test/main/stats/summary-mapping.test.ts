import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CpuUsageCache } from '../../../src/main/stats/cpu-usage-cache.js';
import { podStatsFromContainers, podStatsFromSandboxes, type PodStatsContext } from '../../../src/main/stats/summary-mapping.js';
import type * as cri from '../../../src/shared/cri/types.js';

const T0_NS = Date.UTC(2026, 10, 24, 10, 0, 0) * 1e6;
const SECOND_NS = 1e9;
const POD_LABELS = { 'io.kubernetes.pod.uid': 'uid-1', 'io.kubernetes.pod.name': 'web', 'io.kubernetes.pod.namespace': 'default' };

function u64(value: number): cri.UInt64Value__Output {
  return { value };
}

function containerStats(name: string, cpuNs: number, workingSet: number, atNs: number, id = `c-${name}`): cri.ContainerStats__Output {
  return {
    attributes: {
      id,
      metadata: { name, attempt: 0 },
      labels: { ...POD_LABELS, 'io.kubernetes.container.name': name },
      annotations: {},
    },
    cpu: { timestamp: atNs, usage_core_nano_seconds: u64(cpuNs), usage_nano_cores: null },
    memory: {
      timestamp: atNs,
      working_set_bytes: u64(workingSet),
      available_bytes: null,
      usage_bytes: u64(workingSet + 100),
      rss_bytes: u64(workingSet / 2),
      page_faults: u64(7),
      major_page_faults: u64(1),
    },
    writable_layer: { timestamp: atNs, fs_id: { mountpoint: '/var/lib/x' }, used_bytes: u64(4096), inodes_used: u64(3) },
    swap: null,
  };
}

function sandboxStats(atNs: number, containers: cri.ContainerStats__Output[]): cri.PodSandboxStats__Output {
  return {
    attributes: { id: 'sb-1', metadata: { name: 'web', namespace: 'default', uid: 'uid-1', attempt: 0 }, labels: POD_LABELS, annotations: {} },
    linux: {
      cpu: { timestamp: atNs, usage_core_nano_seconds: u64(3 * SECOND_NS), usage_nano_cores: null },
      memory: { timestamp: atNs, working_set_bytes: u64(2048), available_bytes: null, usage_bytes: u64(4096), rss_bytes: null, page_faults: null, major_page_faults: null },
      network: {
        timestamp: atNs,
        default_interface: { name: 'eth0', rx_bytes: u64(10), rx_errors: u64(0), tx_bytes: u64(20), tx_errors: u64(0) },
        interfaces: [{ name: 'eth1', rx_bytes: u64(1), rx_errors: u64(0), tx_bytes: u64(2), tx_errors: u64(0) }],
      },
      process: { timestamp: atNs, process_count: u64(3) },
      containers,
    },
  };
}

function context(onlyCpuAndMemory = false, cache = new CpuUsageCache()): PodStatsContext {
  return {
    cpuCache: cache,
    podTimes: (uid) =>
      uid === 'uid-1' ? { startTimeMs: T0_NS / 1e6 - 60_000, containerStartTimeMsByName: new Map([['app', T0_NS / 1e6 - 30_000]]) } : undefined,
    rootfsCapacity: { capacityBytes: 1e9, availableBytes: 5e8, inodes: 1000, inodesFree: 400, usedBytes: 5e8 },
    logsCapacity: { capacityBytes: 2e9, availableBytes: 1e9, inodes: 2000, inodesFree: 900, usedBytes: 1e9 },
    onlyCpuAndMemory,
  };
}

test('a sandbox’s stats become the Summary API pod: podRef, start times, CPU, memory, network, ephemeral storage, processes', () => {
  const [pod] = podStatsFromSandboxes([sandboxStats(T0_NS, [containerStats('app', 2 * SECOND_NS, 1024, T0_NS)])], context());
  assert.deepEqual(pod.podRef, { name: 'web', namespace: 'default', uid: 'uid-1' });
  assert.equal(pod.startTime, '2026-11-24T09:59:00Z');
  assert.deepEqual(pod.cpu, { time: '2026-11-24T10:00:00Z', usageNanoCores: undefined, usageCoreNanoSeconds: 3e9 });
  assert.equal(pod.memory?.workingSetBytes, 2048);
  assert.deepEqual(pod.network, {
    time: '2026-11-24T10:00:00Z',
    name: 'eth0',
    rxBytes: 10,
    rxErrors: 0,
    txBytes: 20,
    txErrors: 0,
    interfaces: [
      { name: 'eth0', rxBytes: 10, rxErrors: 0, txBytes: 20, txErrors: 0 },
      { name: 'eth1', rxBytes: 1, rxErrors: 0, txBytes: 2, txErrors: 0 },
    ],
  });
  assert.deepEqual(pod.process_stats, { process_count: 3 });
  assert.equal(pod['ephemeral-storage']?.usedBytes, 4096);
  assert.equal(pod['ephemeral-storage']?.capacityBytes, 1e9);
  const [app] = pod.containers;
  assert.equal(app.name, 'app');
  assert.equal(app.startTime, '2026-11-24T09:59:30Z');
  assert.equal(app.cpu?.usageCoreNanoSeconds, 2e9);
  assert.deepEqual(app.memory, {
    time: '2026-11-24T10:00:00Z',
    availableBytes: undefined,
    usageBytes: 1124,
    workingSetBytes: 1024,
    rssBytes: 512,
    pageFaults: 7,
    majorPageFaults: 1,
  });
  assert.deepEqual(app.rootfs, {
    time: '2026-11-24T10:00:00Z',
    availableBytes: 5e8,
    capacityBytes: 1e9,
    usedBytes: 4096,
    inodesFree: 400,
    inodes: 1000,
    inodesUsed: 3,
  });
  assert.equal(app.logs?.capacityBytes, 2e9);
});

test('only_cpu_and_memory leaves out network, filesystems and processes', () => {
  const [pod] = podStatsFromSandboxes([sandboxStats(T0_NS, [containerStats('app', SECOND_NS, 1024, T0_NS)])], context(true));
  assert.ok(pod.cpu && pod.memory);
  assert.equal(pod.network, undefined);
  assert.equal(pod['ephemeral-storage'], undefined);
  assert.equal(pod.process_stats, undefined);
  assert.deepEqual(Object.keys(pod.containers[0]).sort(), ['cpu', 'memory', 'name', 'startTime']);
});

test('usageNanoCores is the rate between two samples, as upstream’s cached CPU usage', () => {
  const cache = new CpuUsageCache();
  const first = podStatsFromSandboxes([sandboxStats(T0_NS, [containerStats('app', 2 * SECOND_NS, 1024, T0_NS)])], context(false, cache));
  assert.equal(first[0].containers[0].cpu?.usageNanoCores, undefined, 'one sample has no rate');
  // 0.5 s of CPU over 10 s: half a tenth of a core = 50,000,000 nanocores.
  const later = T0_NS + 10 * SECOND_NS;
  const second = podStatsFromSandboxes([sandboxStats(later, [containerStats('app', 2.5 * SECOND_NS, 1024, later)])], context(false, cache));
  assert.equal(second[0].containers[0].cpu?.usageNanoCores, 50_000_000);
  // A second reader of the same sample gets the same rate, not nothing.
  const again = podStatsFromSandboxes([sandboxStats(later, [containerStats('app', 2.5 * SECOND_NS, 1024, later)])], context(false, cache));
  assert.equal(again[0].containers[0].cpu?.usageNanoCores, 50_000_000);
});

test('a counter that went backwards (a replaced container with the same ID key) gives no rate rather than a negative one', () => {
  const cache = new CpuUsageCache();
  assert.equal(cache.usageNanoCores('c', 5e9, T0_NS), undefined);
  assert.equal(cache.usageNanoCores('c', 1e9, T0_NS + SECOND_NS), undefined);
  assert.equal(cache.usageNanoCores('c', 2e9, T0_NS + 2 * SECOND_NS), 1e9);
});

test('without sandbox stats, pods are grouped from container stats by their labels and summed; the newest instance of a name wins', () => {
  const stale = containerStats('app', 9 * SECOND_NS, 4000, T0_NS - 5 * SECOND_NS, 'c-old');
  const current = containerStats('app', 1 * SECOND_NS, 1000, T0_NS, 'c-new');
  const sidecar = containerStats('sidecar', 2 * SECOND_NS, 500, T0_NS);
  const orphan = { ...containerStats('x', SECOND_NS, 1, T0_NS), attributes: { id: 'c-x', metadata: { name: 'x', attempt: 0 }, labels: {}, annotations: {} } };
  const pods = podStatsFromContainers([stale, current, sidecar, orphan], context());
  assert.equal(pods.length, 1, 'a container without pod labels belongs to no pod');
  const [pod] = pods;
  assert.deepEqual(pod.podRef, { name: 'web', namespace: 'default', uid: 'uid-1' });
  assert.deepEqual(pod.containers.map((c) => c.name).sort(), ['app', 'sidecar']);
  assert.equal(pod.cpu?.usageCoreNanoSeconds, 3e9);
  assert.equal(pod.memory?.workingSetBytes, 1500);
  assert.equal(pod.network, undefined, 'container stats carry no network figures');
  assert.equal(pod['ephemeral-storage']?.usedBytes, 8192);
});

test('a pod listed with an old sandbox and its current one counts once, with the current one’s figures', () => {
  const old = { ...sandboxStats(T0_NS - 60 * SECOND_NS, []), attributes: { ...sandboxStats(T0_NS, []).attributes!, id: 'sb-old' } };
  const current = sandboxStats(T0_NS, [containerStats('app', SECOND_NS, 1024, T0_NS)]);
  const pods = podStatsFromSandboxes([current, old], context());
  assert.equal(pods.length, 1);
  assert.equal(pods[0].containers.length, 1);
});

// containerd 2.x lists a pod's exited instances in ListPodSandboxStats with no figures
// (captured shape: attributes and an empty writable layer, cpu and memory unset).
function exitedInstance(name: string, id: string): cri.ContainerStats__Output {
  return { ...containerStats(name, 0, 0, T0_NS, id), cpu: null, memory: null, writable_layer: { timestamp: T0_NS, fs_id: { mountpoint: '/var/lib/x' }, used_bytes: u64(0), inodes_used: u64(0) } };
}

test('containerd 2.x: an exited instance listed next to the running one is left out; one entry per container name', () => {
  const exited = exitedInstance('app', 'c-exited');
  const running = containerStats('app', 2 * SECOND_NS, 1024, T0_NS, 'c-running');
  const sidecar = containerStats('sidecar', SECOND_NS, 512, T0_NS, 'c-sidecar');
  const ctx = { ...context(), running: new Map([['c-running', T0_NS], ['c-sidecar', T0_NS]]) };
  const [pod] = podStatsFromSandboxes([sandboxStats(T0_NS, [exited, running, sidecar])], ctx);
  assert.deepEqual(pod.containers.map((c) => c.name).sort(), ['app', 'sidecar']);
  assert.equal(pod.containers.find((c) => c.name === 'app')?.cpu?.usageCoreNanoSeconds, 2e9, 'the running instance’s figures');
  // Listed after the running one, the dead instance must not win either.
  const [again] = podStatsFromSandboxes([sandboxStats(T0_NS, [running, exited])], ctx);
  assert.deepEqual(again.containers.map((c) => c.name), ['app']);
  assert.equal(again.containers[0].memory?.workingSetBytes, 1024);
});

test('containerd 2.x: a pod whose only container exited (restartPolicy Never) lists no container stats', () => {
  const [pod] = podStatsFromSandboxes([sandboxStats(T0_NS, [exitedInstance('app', 'c-exited')])], { ...context(), running: new Map() });
  assert.deepEqual(pod.containers, []);
});

test('without the runtime’s running list (ListContainers failed), the instance with figures wins over the dead one', () => {
  const [pod] = podStatsFromSandboxes([sandboxStats(T0_NS, [containerStats('app', SECOND_NS, 1024, T0_NS, 'c-running'), exitedInstance('app', 'c-exited')])], context());
  assert.equal(pod.containers.length, 1);
  assert.equal(pod.containers[0].memory?.workingSetBytes, 1024);
});

test('the ListContainerStats path keeps running containers only too', () => {
  const stale = containerStats('app', 9 * SECOND_NS, 4000, T0_NS + SECOND_NS, 'c-old');
  const current = containerStats('app', SECOND_NS, 1000, T0_NS, 'c-new');
  const [pod] = podStatsFromContainers([stale, current], { ...context(), running: new Map([['c-new', T0_NS]]) });
  assert.equal(pod.containers.length, 1);
  assert.equal(pod.memory?.workingSetBytes, 1000, 'the running instance, though the exited one was sampled later');
});

// CRI-O sends no pod-level cpu or memory in ListPodSandboxStats (captured shape).
function crioSandbox(containers: cri.ContainerStats__Output[]): cri.PodSandboxStats__Output {
  const stats = sandboxStats(T0_NS, containers);
  return { ...stats, linux: { ...stats.linux!, cpu: null, memory: null } };
}

test('CRI-O: a pod without runtime CPU and memory gets its pod cgroup’s figures', () => {
  const sandbox = crioSandbox([containerStats('app', 2 * SECOND_NS, 1024, T0_NS), containerStats('sidecar', SECOND_NS, 512, T0_NS)]);
  const podCgroupSamples = new Map([['uid-1', { timestampNs: T0_NS, usageCoreNanoSeconds: 4 * SECOND_NS, usageBytes: 9000, workingSetBytes: 8000, rssBytes: 6000 }]]);
  const [pod] = podStatsFromSandboxes([sandbox], { ...context(), podCgroupSamples });
  assert.equal(pod.cpu?.usageCoreNanoSeconds, 4e9);
  assert.equal(pod.memory?.workingSetBytes, 8000);
  assert.equal(pod.memory?.usageBytes, 9000);
});

test('CRI-O: without a readable pod cgroup, the pod’s CPU and memory are its containers’ sums', () => {
  const sandbox = crioSandbox([containerStats('app', 2 * SECOND_NS, 1024, T0_NS), containerStats('sidecar', SECOND_NS, 512, T0_NS)]);
  const [pod] = podStatsFromSandboxes([sandbox], context());
  assert.equal(pod.cpu?.usageCoreNanoSeconds, 3e9);
  assert.equal(pod.memory?.workingSetBytes, 1536);
  assert.equal(pod.memory?.time, '2026-11-24T10:00:00Z');
  const [cpuOnly] = podStatsFromSandboxes([crioSandbox([containerStats('app', SECOND_NS, 1024, T0_NS)])], context(true));
  assert.equal(cpuOnly.memory?.workingSetBytes, 1024, 'metrics-server’s only_cpu_and_memory gets them too');
});

test('a runtime that does send pod figures is believed, whatever the cgroup says', () => {
  const podCgroupSamples = new Map([['uid-1', { timestampNs: T0_NS, usageCoreNanoSeconds: 99 * SECOND_NS, workingSetBytes: 99 }]]);
  const [pod] = podStatsFromSandboxes([sandboxStats(T0_NS, [containerStats('app', SECOND_NS, 1024, T0_NS)])], { ...context(), podCgroupSamples });
  assert.equal(pod.cpu?.usageCoreNanoSeconds, 3e9);
  assert.equal(pod.memory?.workingSetBytes, 2048);
});

test('measured volumes are the pod’s volume entries; the local ephemeral ones count in its ephemeral storage', () => {
  const volume = (name: string, usedBytes: number, inodesUsed: number) => ({
    name, time: '2026-11-24T10:00:00Z', availableBytes: 10, capacityBytes: 100, usedBytes, inodesFree: 5, inodes: 50, inodesUsed,
  });
  const volumes = { localEphemeral: [volume('cache', 8192, 4)], other: [volume('token', 4096, 3)] };
  const ctx = { ...context(), volumeStats: (uid: string) => (uid === 'uid-1' ? volumes : undefined) };
  const [pod] = podStatsFromSandboxes([sandboxStats(T0_NS, [containerStats('app', SECOND_NS, 1024, T0_NS)])], ctx);
  assert.deepEqual(pod.volume?.map((v) => v.name), ['cache', 'token']);
  assert.deepEqual(pod.volume?.[0], volume('cache', 8192, 4));
  assert.equal(pod['ephemeral-storage']?.usedBytes, 4096 + 8192, 'writable layer and the emptyDir, not the tmpfs-backed projected volume');
  assert.equal(pod['ephemeral-storage']?.inodesUsed, 3 + 4);
  const [fromContainers] = podStatsFromContainers([containerStats('app', SECOND_NS, 1024, T0_NS)], ctx);
  assert.equal(fromContainers.volume?.length, 2);
  const [bare] = podStatsFromSandboxes([sandboxStats(T0_NS, [containerStats('app', SECOND_NS, 1024, T0_NS)])], context());
  assert.equal(bare.volume, undefined, 'no volume key before a pod’s volumes are measured (upstream’s omitempty)');
});

test('containerd 2.x: a recreated sandbox’s old one, listing more exited instances, does not hide the current one', () => {
  const base = sandboxStats(T0_NS - 60 * SECOND_NS, [exitedInstance('app', 'c-dead-1'), exitedInstance('sidecar', 'c-dead-2')]);
  const old = { ...base, attributes: { ...base.attributes!, id: 'sb-old' } };
  const current = sandboxStats(T0_NS - 120 * SECOND_NS, [containerStats('app', SECOND_NS, 1024, T0_NS, 'c-live')]);
  for (const running of [new Map([['c-live', T0_NS]]), undefined]) {
    const pods = podStatsFromSandboxes([old, current], { ...context(), running });
    assert.equal(pods.length, 1);
    assert.deepEqual(pods[0].containers.map((c) => c.memory?.workingSetBytes), [1024], running ? 'with the running list' : 'without it');
  }
});
