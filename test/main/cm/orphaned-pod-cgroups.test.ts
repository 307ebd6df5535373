// Orphaned pod cgroups, as upstream's cleanupOrphanedPodCgroups: on the host's real
// cgroup filesystem (root, as the kubelet runs), under a cgroupRoot of the test's own
// so the host's kubepods is never touched.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { OrphanedPodCgroups, podUidOf } from '../../../src/main/cm/orphaned-pod-cgroups.js';
import { cgroupDirectory, detectCgroupLayout, ensureCgroup, removeCgroup } from '../../../src/shared/cm/cgroup-fs.js';
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
  test(`${driver}: cgroups of pods no one knows go, with their children and what runs in them; known pods and the tiers stay`, async () => {
    const layout = await detectCgroupLayout();
    const settings: PodCgroupSettings = { layout, driver, root: cgroupRootName(`/shardlet-orphan-test-${process.pid}-${driver}`) };
    const pathOf = (uid: string, qos: 'Guaranteed' | 'Burstable' | 'BestEffort') => cgroupPath(podCgroupName(settings.root, qos, uid), driver);
    for (const qos of ['Guaranteed', 'Burstable', 'BestEffort'] as const) await ensureCgroup(layout, cgroupPath(qosCgroupName(settings.root, qos), driver), {});
    await ensureCgroup(layout, pathOf('known-1', 'Burstable'), {});
    await ensureCgroup(layout, pathOf('gone-1', 'BestEffort'), {});
    await ensureCgroup(layout, pathOf('gone-2', 'Guaranteed'), {});
    // What a runtime nests in a pod cgroup (a container's), with a process in it that the runtime forgot.
    const nested = `${pathOf('gone-1', 'BestEffort')}/stray-container`;
    await ensureCgroup(layout, nested, {});
    const stray = spawn('sleep', ['600'], { stdio: 'ignore' });
    const strayExit = new Promise<NodeJS.Signals | null>((resolve) => stray.once('exit', (_code, signal) => resolve(signal)));
    const procs = cgroupDirectory(layout, layout.version === 'v2' ? 'unified' : 'memory', nested)!;
    await writeFile(join(procs, 'cgroup.procs'), String(stray.pid));
    try {
      const cleaner = new OrphanedPodCgroups(settings, pino({ level: 'silent' }));
      assert.deepEqual([...(await cleaner.podCgroups()).keys()].sort(), ['gone-1', 'gone-2', 'known-1']);
      const outcome = await cleaner.cleanup((uid) => uid === 'known-1');
      assert.deepEqual(outcome, { removed: ['gone-2', 'gone-1'], failed: [] });
      assert.equal(await strayExit, 'SIGKILL', 'the stray process was killed');
      assert.deepEqual([...(await cleaner.podCgroups()).keys()], ['known-1']);
      for (const mount of new Set(Object.values(layout.mounts))) {
        assert.ok(!existsSync(join(mount, pathOf('gone-1', 'BestEffort'))), `gone in ${mount}`);
        assert.ok(existsSync(join(mount, cgroupPath(qosCgroupName(settings.root, 'BestEffort'), driver))), `the tier stays in ${mount}`);
      }
    } finally {
      stray.kill('SIGKILL');
      for (const path of [nested, pathOf('gone-1', 'BestEffort'), pathOf('gone-2', 'Guaranteed'), pathOf('known-1', 'Burstable')]) await removeCgroup(layout, path).catch(() => undefined);
      for (const qos of ['BestEffort', 'Burstable', 'Guaranteed'] as const) await removeCgroup(layout, cgroupPath(qosCgroupName(settings.root, qos), driver)).catch(() => undefined);
      for (let depth = settings.root.length; depth > 0; depth--) await removeCgroup(layout, cgroupPath(settings.root.slice(0, depth), driver)).catch(() => undefined);
    }
  });
}
