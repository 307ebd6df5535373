// Orphaned pod cgroups, as upstream's cleanupOrphanedPodCgroups: on the host's real
// cgroup filesystem (root, as the kubelet runs), under a cgroupRoot of the test's own
// so the host's kubepods is never touched.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { OrphanedPodCgroups, podUidOf } from '../../../src/main/cm/orphaned-pod-cgroups.js';
import { cgroupDirectory, cgroupMounts, detectCgroupLayout, ensureCgroup, removeCgroup } from '../../../src/shared/cm/cgroup-fs.js';
import { cgroupPath, cgroupRootName, podCgroupName, qosCgroupName, type CgroupDriver } from '../../../src/shared/cm/cgroup-name.js';
import type { PodCgroupSettings } from '../../../src/shared/shard-protocol.js';

test('the pod UID in a pod cgroup directory name, cgroupfs and systemd; the tiers are no pods', () => {
  assert.equal(podUidOf('pod1a2b-3c', 'cgroupfs'), '1a2b-3c');
  assert.equal(podUidOf('kubepods-burstable-pod1a2b_3c.slice', 'systemd'), '1a2b-3c');
  assert.equal(podUidOf('kubepods-pod9f.slice', 'systemd'), '9f');
  for (const [name, driver] of [['burstable', 'cgroupfs'], ['besteffort', 'cgroupfs'], ['kubepods-besteffort.slice', 'systemd'], ['pod', 'cgroupfs']] as const) {
    assert.equal(podUidOf(name, driver), undefined, name);
  }
});

for (const driver of ['cgroupfs', 'systemd'] as CgroupDriver[]) {
  test(`${driver}: empty cgroups of pods no one knows go, with their children; known pods, busy orphans and the tiers stay`, async () => {
    const layout = await detectCgroupLayout();
    const settings: PodCgroupSettings = { layout, driver, root: cgroupRootName(`/shardlet-orphan-test-${process.pid}-${driver}`) };
    const pathOf = (uid: string, qos: 'Guaranteed' | 'Burstable' | 'BestEffort') => cgroupPath(podCgroupName(settings.root, qos, uid), driver);
    for (const qos of ['Guaranteed', 'Burstable', 'BestEffort'] as const) await ensureCgroup(layout, cgroupPath(qosCgroupName(settings.root, qos), driver), {});
    await ensureCgroup(layout, pathOf('known-1', 'Burstable'), {});
    await ensureCgroup(layout, pathOf('gone-1', 'BestEffort'), {});
    await ensureCgroup(layout, pathOf('gone-2', 'Guaranteed'), {});
    // What a runtime nests in a pod cgroup (a container's); another orphan has a process in it.
    const nested = `${pathOf('gone-1', 'BestEffort')}/stray-container`;
    await ensureCgroup(layout, pathOf('busy-1', 'BestEffort'), {});
    const busyContainer = `${pathOf('busy-1', 'BestEffort')}/container`;
    await ensureCgroup(layout, nested, {});
    await ensureCgroup(layout, busyContainer, {});
    const stray = spawn('sleep', ['600'], { stdio: 'ignore' });
    const procs = cgroupDirectory(layout, layout.version === 'v2' ? 'unified' : 'memory', busyContainer)!;
    await writeFile(join(procs, 'cgroup.procs'), String(stray.pid));
    try {
      const warnings: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) });
      const cleaner = new OrphanedPodCgroups(settings, logger);
      assert.deepEqual([...(await cleaner.podCgroups()).keys()].sort(), ['busy-1', 'gone-1', 'gone-2', 'known-1']);
      const outcome = await cleaner.cleanup((uid) => uid === 'known-1');
      assert.deepEqual(outcome, { removed: ['gone-2', 'gone-1'], busy: ['busy-1'], failed: [] });
      assert.equal(stray.exitCode, null, 'a process in an orphan cgroup is left running');
      assert.deepEqual([...(await cleaner.podCgroups()).keys()].sort(), ['busy-1', 'known-1']);
      assert.deepEqual((await cleaner.cleanup((uid) => uid === 'known-1')).busy, ['busy-1']);
      assert.deepEqual(warnings, ['Processes run in the cgroup of a pod neither this kubelet nor its runtime has; left alone'], 'named once');
      for (const mount of new Set(Object.values(layout.mounts))) {
        assert.ok(!existsSync(join(mount, pathOf('gone-1', 'BestEffort'))), `gone in ${mount}`);
        assert.ok(existsSync(join(mount, cgroupPath(qosCgroupName(settings.root, 'BestEffort'), driver))), `the tier stays in ${mount}`);
      }
    } finally {
      stray.kill('SIGKILL');
      await new Promise((resolve) => stray.once('exit', resolve));
      for (const path of [nested, pathOf('gone-1', 'BestEffort'), pathOf('gone-2', 'Guaranteed'), pathOf('known-1', 'Burstable'), busyContainer, pathOf('busy-1', 'BestEffort')]) {
        await removeCgroup(layout, path).catch(() => undefined);
      }
      for (const qos of ['BestEffort', 'Burstable', 'Guaranteed'] as const) await removeCgroup(layout, cgroupPath(qosCgroupName(settings.root, qos), driver)).catch(() => undefined);
      for (let depth = settings.root.length; depth > 0; depth--) await removeCgroup(layout, cgroupPath(settings.root.slice(0, depth), driver)).catch(() => undefined);
    }
  });
}

test('a pod cgroup left in some hierarchies only (a removal cut short, a runtime leftover in the hybrid v2 mount) is found and removed from all', async () => {
  const layout = await detectCgroupLayout();
  const driver: CgroupDriver = 'cgroupfs';
  const settings: PodCgroupSettings = { layout, driver, root: cgroupRootName(`/shardlet-orphan-partial-${process.pid}`) };
  const tier = cgroupPath(qosCgroupName(settings.root, 'BestEffort'), driver);
  const podPath = cgroupPath(podCgroupName(settings.root, 'BestEffort', 'half-gone'), driver);
  const mounts = cgroupMounts(layout);
  const last = mounts.at(-1)!;
  try {
    await ensureCgroup(layout, tier, {});
    // Left only in the last hierarchy (on this hybrid host: the v2 mount, where runc nests
    // its containers' cgroups), with an empty cgroup of a container below it.
    for (const mount of mounts) await mkdir(join(mount, tier), { recursive: true });
    await mkdir(join(last, podPath, 'leftover-container'), { recursive: true });
    const cleaner = new OrphanedPodCgroups(settings, pino({ level: 'silent' }));
    assert.deepEqual([...(await cleaner.podCgroups()).keys()], ['half-gone']);
    assert.deepEqual(await cleaner.cleanup(() => false), { removed: ['half-gone'], busy: [], failed: [] });
    assert.ok(!existsSync(join(last, podPath)), `gone from ${last}`);
    if (layout.version === 'v1') {
      // Most passes list the memory hierarchy only; every 30th (a minute of housekeeping) lists them all.
      await mkdir(join(last, podPath), { recursive: true });
      for (let pass = 2; pass <= 30; pass++) assert.deepEqual((await cleaner.cleanup(() => false)).removed, [], `pass ${pass}`);
      assert.deepEqual((await cleaner.cleanup(() => false)).removed, ['half-gone'], 'pass 31');
    }
    // A pod's own removal takes the runtime's empty leftovers below it in every hierarchy too.
    await ensureCgroup(layout, podPath, {});
    await mkdir(join(last, podPath, 'leftover-container'), { recursive: true });
    await removeCgroup(layout, podPath);
    for (const mount of mounts) assert.ok(!existsSync(join(mount, podPath)), `removed from ${mount}`);
  } finally {
    // The test's own root, with everything below it (all empty by now).
    await removeCgroup(layout, cgroupPath(settings.root.slice(0, 1), driver)).catch(() => undefined);
  }
});

test('removeCgroup refuses the root of the hierarchies', async () => {
  const layout = await detectCgroupLayout();
  for (const path of ['', '/', '//']) await assert.rejects(removeCgroup(layout, path), /refusing to remove the root/);
});
