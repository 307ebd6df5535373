// The pod's own cgroup, on a cgroup layout of plain directories: a UID that would
// climb out of the QoS tier gets no cgroup made (the UID wrote cpu.shares
// into /tmp/victim) and its removal removes nothing, while an ordinary pod's cgroup
// is made and removed as before.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cgroupRootName } from '../../../src/shared/cm/cgroup-name.js';
import type { PodCgroupSettings } from '../../../src/shared/shard-protocol.js';
import type { Pod } from '../../../src/shared/types.js';
import { ensurePodCgroup, podCgroupParent, removePodCgroup } from '../../../src/workers/cm/pod-cgroup.js';
import { snapshotTree, treeChanges } from '../../helpers/tree-snapshot.js';

const base = mkdtempSync(join(tmpdir(), 'shardlet-pod-cgroup-'));
after(() => rmSync(base, { recursive: true, force: true }));

function settings(): PodCgroupSettings {
  const mounts = { cpu: join(base, 'cgroup', 'cpu'), memory: join(base, 'cgroup', 'memory'), pids: join(base, 'cgroup', 'pids') };
  for (const mount of Object.values(mounts)) mkdirSync(mount, { recursive: true });
  return { layout: { version: 'v1', mounts, description: 'v1' }, driver: 'cgroupfs', root: cgroupRootName('/') };
}

function pod(uid: string): Pod {
  return { metadata: { name: 'p', namespace: 'default', uid }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
}

test('a UID that would climb out of the QoS tier: no cgroup is made, none removed, and the sandbox gets no parent', async () => {
  const cgroups = settings();
  mkdirSync(join(base, 'victim'), { recursive: true });
  writeFileSync(join(base, 'victim', 'keep'), 'outside the cgroup mounts');
  const before = await snapshotTree(base);
  // <mount>/kubepods/besteffort/podx/../../../../../victim is <base>/victim.
  for (const uid of ['x/../../../../../victim', 'x/../../../../../victim/keep', '/victim', '']) {
    await assert.rejects(ensurePodCgroup(pod(uid), cgroups, 64), { code: 'SHARDLET_PATH_UNSAFE', message: /^metadata\.uid: / }, JSON.stringify(uid));
    assert.throws(() => podCgroupParent(pod(uid), cgroups), { code: 'SHARDLET_PATH_UNSAFE' });
    assert.equal(await removePodCgroup(pod(uid), cgroups), true, 'nothing to remove: it was never made');
  }
  assert.deepEqual(treeChanges(before, await snapshotTree(base)), []);
  assert.equal(readFileSync(join(base, 'victim', 'keep'), 'utf8'), 'outside the cgroup mounts');
});

test('an ordinary pod gets its cgroup in every hierarchy, and loses it again', async () => {
  const cgroups = settings();
  await ensurePodCgroup(pod('6f1c-uid'), cgroups, 64);
  const podPath = (controller: string) => join(base, 'cgroup', controller, 'kubepods', 'besteffort', 'pod6f1c-uid');
  assert.equal(readFileSync(join(podPath('cpu'), 'cpu.shares'), 'utf8'), '2');
  assert.equal(podCgroupParent(pod('6f1c-uid'), cgroups), '/kubepods/besteffort/pod6f1c-uid');
  // A real cgroup directory holds only kernel files, which rmdir ignores; the fake one must be emptied first.
  rmSync(join(podPath('cpu'), 'cpu.shares'));
  rmSync(join(podPath('pids'), 'pids.max'));
  assert.equal(await removePodCgroup(pod('6f1c-uid'), cgroups), true);
  assert.equal(existsSync(podPath('memory')), false);
});
