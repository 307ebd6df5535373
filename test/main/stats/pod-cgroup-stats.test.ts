// Pod cgroup figures for runtimes that send none (CRI-O), read from a pod cgroup laid
// out as the shard makes it, on cgroup v2, v1 and hybrid hosts (a temporary directory
// stands in for each hierarchy's mount point).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { podSampleV1, podSampleV2, readPodCgroupSample } from '../../../src/main/stats/pod-cgroup-stats.js';
import type { CgroupLayout } from '../../../src/shared/cm/cgroup-fs.js';
import type { PodCgroupSettings } from '../../../src/shared/shard-protocol.js';
import type { Pod } from '../../../src/shared/types.js';

const AT_NS = 1_700_000_000_000_000_000;
const UID = '0f3c2a8e-1b7d-4c1e-9a55-3d2f6c7e8a90';
/** Burstable: a request without an equal limit. */
const POD: Pod = { metadata: { name: 'web', namespace: 'default', uid: UID }, spec: { containers: [{ name: 'main', image: 'busybox', resources: { requests: { memory: '10Mi' } } }] } };

function write(dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
}

test('v2: usage_usec in nanoseconds; the working set is memory.current less inactive_file; available from memory.max', () => {
  const sample = podSampleV2(
    { cpuStat: 'usage_usec 2500000\nuser_usec 2000000\n', memoryCurrent: '10485760\n', memoryMax: '20971520\n', memoryStat: 'anon 4194304\ninactive_file 2097152\npgfault 77\npgmajfault 3\n' },
    AT_NS,
  );
  assert.deepEqual(sample, {
    timestampNs: AT_NS,
    usageCoreNanoSeconds: 2.5e9,
    usageBytes: 10485760,
    workingSetBytes: 8388608,
    availableBytes: 20971520 - 8388608,
    rssBytes: 4194304,
    cacheBytes: undefined,
    pageFaults: 77,
    majorPageFaults: 3,
    cfs: undefined,
  });
  assert.equal(podSampleV2({ memoryCurrent: '100', memoryMax: 'max\n' }, AT_NS)?.availableBytes, undefined, 'no limit, no available figure');
  assert.equal(podSampleV2({}, AT_NS), undefined);
});

test('v1: cpuacct.usage, usage_in_bytes less total_inactive_file; the "unlimited" limit gives no available figure', () => {
  const sample = podSampleV1(
    { cpuacctUsage: '123456789\n', memoryUsage: '8192\n', memoryStat: 'rss 1\nhierarchical_memory_limit 9223372036854771712\ntotal_rss 4096\ntotal_inactive_file 1024\ninactive_file 9\ntotal_pgfault 5\ntotal_pgmajfault 1\n' },
    AT_NS,
  );
  assert.deepEqual(sample, { timestampNs: AT_NS, usageCoreNanoSeconds: 123456789, usageBytes: 8192, workingSetBytes: 7168, availableBytes: undefined, rssBytes: 4096, cacheBytes: undefined, pageFaults: 5, majorPageFaults: 1, cfs: undefined });
});

test('page cache and CFS throttling, as cAdvisor reads them: v2 file and throttled_usec, v1 total_cache and throttled_time', () => {
  const v2 = podSampleV2(
    { cpuStat: 'usage_usec 10\nnr_periods 40\nnr_throttled 7\nthrottled_usec 250000\n', memoryCurrent: '100\n', memoryStat: 'file 60\ninactive_file 10\n' },
    AT_NS,
  );
  assert.equal(v2?.cacheBytes, 60);
  assert.deepEqual(v2?.cfs, { periods: 40, throttledPeriods: 7, throttledNanoSeconds: 250_000_000 });
  const v1 = podSampleV1({ cpuacctUsage: '5\n', memoryUsage: '100\n', memoryStat: 'total_cache 30\n', cpuStat: 'nr_periods 3\nnr_throttled 1\nthrottled_time 999\n' }, AT_NS);
  assert.equal(v1?.cacheBytes, 30);
  assert.deepEqual(v1?.cfs, { periods: 3, throttledPeriods: 1, throttledNanoSeconds: 999 });
  assert.equal(podSampleV1({ cpuacctUsage: '5\n' }, AT_NS)?.cfs, undefined, 'no cpu.stat read, no CFS figures');
});

test('the pod cgroup is found where the shard made it: v2 with the systemd driver', async () => {
  const mount = mkdtempSync(join(tmpdir(), 'shardlet-cg2-'));
  const dir = join(mount, 'kubepods.slice', 'kubepods-burstable.slice', `kubepods-burstable-pod${UID.replaceAll('-', '_')}.slice`);
  write(dir, { 'cpu.stat': 'usage_usec 1000\n', 'memory.current': '4096\n', 'memory.max': 'max\n', 'memory.stat': 'inactive_file 1024\nanon 2048\n' });
  const settings: PodCgroupSettings = { layout: { version: 'v2', mounts: { unified: mount }, description: 'v2' }, driver: 'systemd', root: [] };
  const sample = await readPodCgroupSample(settings, POD);
  assert.equal(sample?.usageCoreNanoSeconds, 1e6);
  assert.equal(sample?.workingSetBytes, 3072);
});

test('v1 and hybrid with the cgroupfs driver: cpuacct and memory read from their own hierarchies', async () => {
  for (const hybrid of [false, true]) {
    const root = mkdtempSync(join(tmpdir(), 'shardlet-cg1-'));
    const cpuMount = join(root, 'cpu,cpuacct');
    const memoryMount = join(root, 'memory');
    const path = join('kubepods', 'burstable', `pod${UID}`);
    write(join(cpuMount, path), { 'cpuacct.usage': '5000000000\n' });
    // A memory.stat longer than one read, as on a real host, with the keys that matter at its end.
    const padding = Array.from({ length: 300 }, (_, i) => `unrelated_${i} ${i}`).join('\n');
    write(join(memoryMount, path), { 'memory.usage_in_bytes': '65536\n', 'memory.stat': `${padding}\nhierarchical_memory_limit 131072\ntotal_inactive_file 0\ntotal_rss 60000\n` });
    const layout: CgroupLayout = { version: 'v1', mounts: { cpu: cpuMount, cpuacct: cpuMount, memory: memoryMount }, description: 'v1' };
    if (hybrid) layout.hybridUnified = join(root, 'unified');
    const sample = await readPodCgroupSample({ layout, driver: 'cgroupfs', root: [] }, POD);
    assert.equal(sample?.usageCoreNanoSeconds, 5e9, hybrid ? 'hybrid' : 'v1');
    assert.equal(sample?.workingSetBytes, 65536);
    assert.equal(sample?.availableBytes, 65536);
  }
});

test('a pod cgroup that is gone, or a UID that is not one path segment, gives no figures', async () => {
  const mount = mkdtempSync(join(tmpdir(), 'shardlet-cg2-'));
  const settings: PodCgroupSettings = { layout: { version: 'v2', mounts: { unified: mount }, description: 'v2' }, driver: 'cgroupfs', root: [] };
  assert.equal(await readPodCgroupSample(settings, POD), undefined);
  assert.equal(await readPodCgroupSample(settings, { ...POD, metadata: { ...POD.metadata, uid: '../../etc' } }), undefined);
});
