// Pod cgroup names, limits and the cgroup filesystem writer, as upstream's
// container manager lays them out.
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cgroupPath, cgroupRootName, podCgroupName, runtimeCgroupParent } from '../../../src/shared/cm/cgroup-name.js';
import { podCgroupLimits } from '../../../src/shared/cm/pod-cgroup-config.js';
import { detectCgroupLayout, ensureCgroup, removeCgroup, type CgroupLayout } from '../../../src/shared/cm/cgroup-fs.js';
import { cpuSharesToWeight } from '../../../src/shared/cm/cpu-shares.js';
import type { Pod } from '../../../src/shared/types.js';

const UID = '1a2b-3c';

function pod(containers: Array<{ requests?: Record<string, string>; limits?: Record<string, string> }>): Pod {
  return {
    metadata: { name: 'p', namespace: 'default', uid: UID },
    spec: { containers: containers.map((resources, i) => ({ name: `c${i}`, image: 'busybox', resources })) },
  };
}

test('cgroup names: cgroupfs paths and systemd slices, under cgroupRoot', () => {
  const burstable = podCgroupName(cgroupRootName('/'), 'Burstable', UID);
  assert.equal(cgroupPath(burstable, 'cgroupfs'), `/kubepods/burstable/pod${UID}`);
  assert.equal(runtimeCgroupParent(burstable, 'cgroupfs'), `/kubepods/burstable/pod${UID}`);
  assert.equal(cgroupPath(burstable, 'systemd'), '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b_3c.slice');
  assert.equal(runtimeCgroupParent(burstable, 'systemd'), 'kubepods-burstable-pod1a2b_3c.slice');
  assert.equal(cgroupPath(podCgroupName(cgroupRootName(''), 'Guaranteed', UID), 'cgroupfs'), `/kubepods/pod${UID}`);
  assert.equal(cgroupPath(podCgroupName(cgroupRootName('/custom/'), 'BestEffort', UID), 'cgroupfs'), `/custom/kubepods/besteffort/pod${UID}`);
});

test('pod limits: Guaranteed gets shares, quota and memory; Burstable only what every container declares; BestEffort the minimum', () => {
  const guaranteed = podCgroupLimits(pod([{ limits: { cpu: '500m', memory: '64Mi' } }, { limits: { cpu: '250m', memory: '32Mi' } }]), -1);
  assert.deepEqual(guaranteed, { cpuShares: 768, cpuQuotaUs: 75_000, cpuPeriodUs: 100_000, memoryLimitBytes: 96 * 1024 * 1024 });

  const allLimited = podCgroupLimits(pod([{ requests: { cpu: '100m', memory: '16Mi' }, limits: { cpu: '1', memory: '64Mi' } }]), 0);
  assert.deepEqual(allLimited, { cpuShares: 102, cpuQuotaUs: 100_000, cpuPeriodUs: 100_000, memoryLimitBytes: 64 * 1024 * 1024 });

  // One container without limits makes the pod unbounded in both.
  const partly = podCgroupLimits(pod([{ requests: { cpu: '100m' }, limits: { cpu: '1', memory: '64Mi' } }, { requests: { memory: '8Mi' } }]), 1024);
  assert.deepEqual(partly, { cpuShares: 102, pidsLimit: 1024 });

  assert.deepEqual(podCgroupLimits(pod([{}]), -1), { cpuShares: 2 });
});

test('cgroup layout from mountinfo: v1, hybrid and v2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shardlet-mountinfo-'));
  const write = (name: string, lines: string[]) => {
    writeFileSync(join(dir, name), `${lines.join('\n')}\n`);
    return join(dir, name);
  };
  const hybrid = await detectCgroupLayout(write('hybrid', [
    '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
    '32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct',
    '33 31 0:30 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
    '34 31 0:31 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd',
    '35 31 0:32 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
  ]));
  assert.equal(hybrid.version, 'v1');
  assert.match(hybrid.description, /^hybrid/);
  assert.deepEqual(hybrid.mounts, {
    cpu: '/sys/fs/cgroup/cpu,cpuacct',
    cpuacct: '/sys/fs/cgroup/cpu,cpuacct',
    memory: '/sys/fs/cgroup/memory',
    'name=systemd': '/sys/fs/cgroup/systemd',
  });
  const v2 = await detectCgroupLayout(write('v2', ['30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate']));
  assert.deepEqual(v2, { version: 'v2', mounts: { unified: '/sys/fs/cgroup' }, description: 'v2' });
  await assert.rejects(detectCgroupLayout(write('none', ['1 0 0:1 / / rw - ext4 /dev/sda1 rw'])), /no cgroup filesystem/);
});

test('ensureCgroup writes v1 limits in their controllers and makes the directory in every hierarchy; removeCgroup takes it away', async () => {
  const base = mkdtempSync(join(tmpdir(), 'shardlet-cgroupfs-'));
  const layout: CgroupLayout = {
    version: 'v1',
    mounts: { cpu: join(base, 'cpu'), memory: join(base, 'memory'), pids: join(base, 'pids'), freezer: join(base, 'freezer') },
    description: 'v1',
  };
  await ensureCgroup(layout, '/kubepods/burstable/podx', { cpuShares: 102, cpuQuotaUs: 50_000, cpuPeriodUs: 100_000, memoryLimitBytes: 1 << 26, pidsLimit: 64 });
  const read = (controller: string, file: string) => readFileSync(join(base, controller, 'kubepods/burstable/podx', file), 'utf8');
  assert.equal(read('cpu', 'cpu.shares'), '102');
  assert.equal(read('cpu', 'cpu.cfs_quota_us'), '50000');
  assert.equal(read('memory', 'memory.limit_in_bytes'), String(1 << 26));
  assert.equal(read('pids', 'pids.max'), '64');
  assert.ok(existsSync(join(base, 'freezer/kubepods/burstable/podx')));
  // A real cgroup directory holds only kernel files, which rmdir ignores; the fake one must be emptied first.
  for (const [controller, file] of [['cpu', 'cpu.shares'], ['cpu', 'cpu.cfs_quota_us'], ['cpu', 'cpu.cfs_period_us'], ['memory', 'memory.limit_in_bytes'], ['pids', 'pids.max']]) {
    (await import('node:fs')).rmSync(join(base, controller!, 'kubepods/burstable/podx', file!));
  }
  await removeCgroup(layout, '/kubepods/burstable/podx');
  await removeCgroup(layout, '/kubepods/burstable/podx');
  assert.equal(existsSync(join(base, 'cpu/kubepods/burstable/podx')), false);
});

test('ensureCgroup on v2 delegates the controllers down the tree and writes weight, cpu.max, memory.max, pids.max', async () => {
  const base = mkdtempSync(join(tmpdir(), 'shardlet-cgroup2-'));
  for (const dir of ['', 'kubepods']) {
    mkdirSync(join(base, dir), { recursive: true });
    writeFileSync(join(base, dir, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
  }
  const layout: CgroupLayout = { version: 'v2', mounts: { unified: base }, description: 'v2' };
  await ensureCgroup(layout, '/kubepods/podx', { cpuShares: 1024, cpuQuotaUs: 0, cpuPeriodUs: 100_000, memoryLimitBytes: 0 });
  assert.equal(readFileSync(join(base, 'cgroup.subtree_control'), 'utf8'), '+cpu +memory +pids');
  assert.equal(readFileSync(join(base, 'kubepods/cgroup.subtree_control'), 'utf8'), '+cpu +memory +pids');
  assert.equal(readFileSync(join(base, 'kubepods/podx/cpu.weight'), 'utf8'), String(cpuSharesToWeight(1024)));
  assert.equal(readFileSync(join(base, 'kubepods/podx/cpu.max'), 'utf8'), 'max 100000');
  assert.equal(readFileSync(join(base, 'kubepods/podx/memory.max'), 'utf8'), 'max');
  assert.equal(cpuSharesToWeight(2), 1);
  assert.equal(cpuSharesToWeight(262_144), 10_000);
});

test('cgroup names: a pod UID that is not one plain segment is refused, not joined into the path', () => {
  for (const uid of ['x/../../../../../../../../../../tmp/victim', '/tmp/victim', 'a/b', '', '..', 'a\0b']) {
    assert.throws(() => podCgroupName(cgroupRootName('/'), 'BestEffort', uid), { code: 'SHARDLET_PATH_UNSAFE', message: /^metadata\.uid: / }, JSON.stringify(uid));
  }
  assert.equal(cgroupPath(podCgroupName(cgroupRootName('/'), 'BestEffort', '..a'), 'cgroupfs'), '/kubepods/besteffort/pod..a');
});
