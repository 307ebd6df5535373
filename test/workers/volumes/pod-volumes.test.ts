import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCodes } from '../../../src/shared/errors.js';
import type { ShardSettings } from '../../../src/shared/shard-protocol.js';
import type { Pod, Volume } from '../../../src/shared/types.js';
import { emptyDirMemorySizeBytes } from '../../../src/workers/volumes/empty-dir.js';
import { parseMountInfo, readMountInfo } from '../../../src/workers/volumes/mountinfo.js';
import { setupPodVolumes, teardownPodVolumes } from '../../../src/workers/volumes/pod-volumes.js';
import { isUnder, snapshotTree, treeChanges } from '../../helpers/tree-snapshot.js';

const UID = 'b7a4d0c2-1111-4e2f-8a9b-0c1d2e3f4a5b';

const createdDirs: string[] = [];
after(() => createdDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function fixture(): { settings: ShardSettings; base: string } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'shardlet-podvolumes-')));
  createdDirs.push(base);
  const settings = {
    rootDir: join(base, 'kubelet'),
    podLogsDir: join(base, 'logs'),
  } as ShardSettings;
  return { settings, base };
}

function podWith(volumes: NonNullable<Pod['spec']>['volumes'], containers: NonNullable<Pod['spec']>['containers'] = [{ name: 'app', image: 'busybox' }]): Pod {
  return { metadata: { name: 'p', namespace: 'ns', uid: UID }, spec: { containers, volumes } };
}

async function tmpfsAt(path: string) {
  return (await readMountInfo()).filter((entry) => entry.mountPoint === path && entry.fsType === 'tmpfs');
}

test('pod volumes: emptyDir and hostPath are set up, then the pod directory goes with the pod', async () => {
  const { settings, base } = fixture();
  const hostDir = join(base, 'host-data');
  mkdirSync(hostDir);
  writeFileSync(join(hostDir, 'precious'), 'keep me');
  const pod = podWith([
    { name: 'scratch', emptyDir: {} },
    { name: 'host', hostPath: { path: hostDir, type: 'Directory' } },
  ]);
  const paths = await setupPodVolumes(pod, settings);
  const scratch = join(settings.rootDir, 'pods', UID, 'volumes', 'kubernetes.io~empty-dir', 'scratch');
  assert.deepEqual(paths, { scratch, host: hostDir });
  assert.equal(statSync(scratch).mode & 0o777, 0o777);
  writeFileSync(join(scratch, 'work'), 'data');
  assert.deepEqual(await setupPodVolumes(pod, settings), paths, 'setup is idempotent');
  assert.equal(readFileSync(join(scratch, 'work'), 'utf8'), 'data', 'a second setup keeps the contents');

  await teardownPodVolumes(UID, settings);
  assert.equal(existsSync(join(settings.rootDir, 'pods', UID)), false);
  assert.equal(readFileSync(join(hostDir, 'precious'), 'utf8'), 'keep me');
  await teardownPodVolumes(UID, settings); // already gone: no error
});

test('pod volumes: a Memory emptyDir is a tmpfs, mounted once and unmounted on teardown', async () => {
  const { settings } = fixture();
  const pod = podWith([{ name: 'cache', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } }]);
  const { cache } = await setupPodVolumes(pod, settings);
  const mounted = await tmpfsAt(cache);
  assert.equal(mounted.length, 1);
  const superOptions = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').find((line) => line.includes(` ${cache} `));
  assert.match(superOptions ?? '', /size=65536k/);
  writeFileSync(join(cache, 'hot'), 'x');
  await setupPodVolumes(pod, settings);
  assert.equal((await tmpfsAt(cache)).length, 1, 'no second tmpfs on a resync');
  assert.equal(readFileSync(join(cache, 'hot'), 'utf8'), 'x');

  await teardownPodVolumes(UID, settings);
  assert.equal((await tmpfsAt(cache)).length, 0);
  assert.equal(existsSync(join(settings.rootDir, 'pods', UID)), false);
});

test('pod volumes: tmpfs size follows node memory, the pod limit and sizeLimit', () => {
  const node = 8 * 1024 ** 3;
  const limited = podWith([], [
    { name: 'a', image: 'x', resources: { limits: { memory: '512Mi' } } },
    { name: 'b', image: 'x', resources: { limits: { memory: '512Mi' } } },
  ]);
  assert.equal(emptyDirMemorySizeBytes(podWith([]), undefined, node), node);
  assert.equal(emptyDirMemorySizeBytes(limited, undefined, node), 1024 ** 3);
  assert.equal(emptyDirMemorySizeBytes(limited, '64Mi', node), 64 * 1024 ** 2);
  assert.equal(emptyDirMemorySizeBytes(limited, '4Gi', node), 1024 ** 3);
  const partly = podWith([], [{ name: 'a', image: 'x', resources: { limits: { memory: '512Mi' } } }, { name: 'b', image: 'x' }]);
  assert.equal(emptyDirMemorySizeBytes(partly, undefined, node), node);
});

test('pod volumes: without API data (standalone), API-backed and unknown volume types are refused', async () => {
  const { settings } = fixture();
  const cases: Array<[Volume, RegExp]> = [
    [{ name: 'cfg', configMap: { name: 'c' } }, /configMap volumes need the API server \(run with --kubeconfig\)/],
    [{ name: 'sec', secret: { secretName: 's' } }, /secret volumes need the API server/],
    [{ name: 'tok', projected: { sources: [] } }, /projected volumes need the API server/],
    [{ name: 'claim', persistentVolumeClaim: { claimName: 'c' } }, /persistentVolumeClaim volumes need the API server \(not yet supported\)/],
    [{ name: 'nfs', nfs: { server: 'x', path: '/' } }, /nfs volume type is not supported/],
  ];
  for (const [volume, pattern] of cases) {
    await assert.rejects(setupPodVolumes(podWith([volume]), settings), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'SHARDLET_VOLUME_SETUP');
      assert.match(err.message, pattern);
      assert.match(err.message, new RegExp(`volume "${volume.name}"`));
      return true;
    });
  }
});

test('pod volumes: an unknown mount under the pod directory stops the removal', async () => {
  const { settings } = fixture();
  await setupPodVolumes(podWith([{ name: 'scratch', emptyDir: {} }]), settings);
  const foreign = join(settings.rootDir, 'pods', UID, 'foreign');
  mkdirSync(foreign);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', foreign]);
  writeFileSync(join(foreign, 'inside'), 'x');
  try {
    await assert.rejects(teardownPodVolumes(UID, settings), { code: 'SHARDLET_VOLUME_SETUP', message: /still mounted/ });
    assert.equal(readFileSync(join(foreign, 'inside'), 'utf8'), 'x');
  } finally {
    execFileSync('umount', [foreign]);
  }
  await teardownPodVolumes(UID, settings);
  assert.equal(existsSync(join(settings.rootDir, 'pods', UID)), false);
});

test('mountinfo: fields and octal escapes', () => {
  const text =
    '36 35 98:0 /mnt1 /mnt\\040two rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n' +
    '42 27 0:39 / /var/lib/kubelet/pods/x rw,relatime shared:5 - tmpfs tmpfs rw,size=1024k\n';
  assert.deepEqual(parseMountInfo(text), [
    { mountPoint: '/mnt two', fsType: 'ext3', source: '/dev/root' },
    { mountPoint: '/var/lib/kubelet/pods/x', fsType: 'tmpfs', source: 'tmpfs' },
  ]);
});

test('pod volumes: a UID or volume name that would climb out is refused at setup, and the teardown of such a UID removes nothing', async () => {
  const { settings, base } = fixture();
  const podsDir = join(settings.rootDir, 'pods');
  mkdirSync(podsDir, { recursive: true });
  writeFileSync(join(settings.rootDir, 'keep'), 'the root dir beside pods/');
  mkdirSync(join(base, 'victim'));
  writeFileSync(join(base, 'victim', 'keep'), 'outside the root dir');
  const before = await snapshotTree(base);
  const outsidePods = (changes: string[]) => changes.filter((change) => !isUnder(change.replace(/^\w+ /, ''), 'kubelet/pods'));

  for (const uid of ['..', '../..', 'x/../../../victim', '../../victim', '.', '']) {
    const pod: Pod = { metadata: { name: 'p', namespace: 'ns', uid }, spec: { containers: [{ name: 'app', image: 'busybox' }], volumes: [{ name: 'scratch', emptyDir: {} }] } };
    await assert.rejects(setupPodVolumes(pod, settings), { code: ErrorCodes.PATH_UNSAFE, message: /^metadata\.uid: / }, JSON.stringify(uid));
    await teardownPodVolumes(uid, settings);
  }
  for (const name of ['..', '../../../victim', 'a/b']) {
    await assert.rejects(setupPodVolumes(podWith([{ name, emptyDir: {} }]), settings), { code: ErrorCodes.PATH_UNSAFE, message: /^volume name: / }, name);
  }
  assert.deepEqual(outsidePods(treeChanges(before, await snapshotTree(base))), [], 'nothing outside <root>/pods was made, changed or removed');
  assert.equal(readFileSync(join(base, 'victim', 'keep'), 'utf8'), 'outside the root dir');
});
