// subPath bind mounts with real mounts (the tests run as root), in temp directories:
// the safe open walk, the bind target handed to the runtime, and its cleanup.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import type { ShardSettings } from '../../../src/shared/shard-protocol.js';
import { OrphanedPodSubpaths } from '../../../src/main/volumes/orphaned-pod-subpaths.js';
import { bindMountNoCanonicalize, mountsAt, mountsUnder, readMountInfo } from '../../../src/workers/volumes/mountinfo.js';
import { setupPodVolumes, teardownPodVolumes } from '../../../src/workers/volumes/pod-volumes.js';
import { openSubPathSafely } from '../../../src/workers/volumes/safe-open.js';
import { prepareSafeSubpath, type Subpath } from '../../../src/workers/volumes/subpath-bind.js';
import { cleanContainerSubPaths, cleanPodSubPaths, podsWithSubpathMounts } from '../../../src/workers/volumes/subpath-cleanup.js';

const UID = '3c1f9a7e-5b2d-4c8e-9f10-2a3b4c5d6e7f';
const OTHER_UID = '9d8c7b6a-1f2e-4d3c-8b4a-5f6e7d8c9b0a';

const bases: string[] = [];
// Unmount before removing, even after a failed test: rm -r through a bind mount would empty the volume.
after(async () => {
  for (const base of bases) {
    for (const entry of await mountsUnder(base)) execFileSync('umount', ['-l', entry.mountPoint]);
    rmSync(base, { recursive: true, force: true });
  }
});

interface Fixture {
  base: string;
  rootDir: string;
  volume: string;
  /** A directory outside the volume with a file the pod must never reach. */
  outside: string;
}

function fixture(volumeMode = 0o777): Fixture {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'shardlet-subpath-')));
  bases.push(base);
  const volume = join(base, 'volume');
  mkdirSync(volume);
  execFileSync('chmod', [volumeMode.toString(8), volume]);
  const outside = join(base, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'host-secret'), 'not for the pod');
  return { base, rootDir: join(base, 'kubelet'), volume, outside };
}

function subpathOf(f: Fixture, subPath: string, overrides: Partial<Subpath> = {}): Subpath {
  return { rootDir: f.rootDir, podUid: UID, volumeName: 'data', volumePath: f.volume, subPath, containerName: 'app', volumeMountIndex: 0, ...overrides };
}

async function openedIno(f: Fixture, subPath: string): Promise<number> {
  const handle = await openSubPathSafely(f.volume, subPath);
  try {
    return (await handle.stat()).ino;
  } finally {
    await handle.close();
  }
}

test('safe open: a symlink at any step of the subPath is refused', async () => {
  const f = fixture();
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 1, maxLength: 4 }),
      fc.nat(),
      fc.constantFrom('outside', '/', '.', '..'),
      async (components, position, linkTo) => {
        const step = position % components.length;
        const root = join(f.volume, `case-${Math.random().toString(36).slice(2)}`);
        mkdirSync(join(root, ...components.slice(0, step)), { recursive: true });
        symlinkSync(linkTo === 'outside' ? f.outside : linkTo, join(root, ...components.slice(0, step + 1)));
        const subPath = [root.slice(f.volume.length + 1), ...components].join('/');
        await assert.rejects(openSubPathSafely(f.volume, subPath), /unexpected symlink found/);
      },
    ),
    { numRuns: 60 },
  );
  assert.equal(readFileSync(join(f.outside, 'host-secret'), 'utf8'), 'not for the pod');
  assert.deepEqual(readdirSync(f.outside), ['host-secret'], 'nothing was created outside the volume');
});

test('safe open: an intermediate file is refused; a file as the last step is opened', async () => {
  const f = fixture();
  writeFileSync(join(f.volume, 'config.yaml'), 'a: 1\n');
  await assert.rejects(openSubPathSafely(f.volume, 'config.yaml/x'), /config\.yaml is not a directory/);
  assert.equal(await openedIno(f, 'config.yaml'), statSync(join(f.volume, 'config.yaml')).ino);
  assert.equal(await openedIno(f, ''), statSync(f.volume).ino, 'an empty subPath is the volume itself');
});

test('safe open: missing directories are made with the volume\'s mode, past the umask', async () => {
  const f = fixture(0o2775);
  const previous = process.umask(0o077);
  try {
    await openedIno(f, 'logs/web-0/today');
  } finally {
    process.umask(previous);
  }
  for (const path of ['logs', 'logs/web-0', 'logs/web-0/today']) {
    assert.equal(statSync(join(f.volume, path)).mode & 0o7777, 0o2775, path);
  }
  mkdirSync(join(f.volume, 'kept'), { mode: 0o700 });
  await openedIno(f, 'kept/new');
  assert.equal(statSync(join(f.volume, 'kept')).mode & 0o777, 0o700, 'a directory that was there is left as it is');
});

test('bind: a symlink swapped in after the open is never followed, by the mount or after it', async () => {
  const f = fixture();
  mkdirSync(join(f.volume, 'd'));
  writeFileSync(join(f.volume, 'd', 'pod-file'), 'mine');
  const target = join(f.base, 'target');
  mkdirSync(target);
  const handle = await openSubPathSafely(f.volume, 'd');
  try {
    // The container's move: d becomes a symlink to somewhere outside between the check and the mount.
    renameSync(join(f.volume, 'd'), join(f.volume, 'd-old'));
    symlinkSync(f.outside, join(f.volume, 'd'));
    await bindMountNoCanonicalize(`/proc/${process.pid}/fd/${handle.fd}`, target);
  } finally {
    await handle.close();
  }
  assert.deepEqual(readdirSync(target), ['pod-file'], 'the mount shows the directory that was opened');
  execFileSync('umount', [target]);

  // The same through prepareSafeSubpath: its target, handed to the runtime, keeps showing the opened directory.
  rmSync(join(f.volume, 'd'));
  mkdirSync(join(f.volume, 'd'));
  writeFileSync(join(f.volume, 'd', 'pod-file'), 'mine');
  const bound = await prepareSafeSubpath(subpathOf(f, 'd'));
  assert.equal(bound, join(f.rootDir, 'pods', UID, 'volume-subpaths', 'data', 'app', '0'));
  renameSync(join(f.volume, 'd'), join(f.volume, 'd-older'));
  symlinkSync('/', join(f.volume, 'd'));
  assert.deepEqual(readdirSync(bound), ['pod-file']);
  await assert.rejects(prepareSafeSubpath(subpathOf(f, 'd')), /unexpected symlink found d/, 'the next start is refused');
  await cleanPodSubPaths(f.rootDir, UID);
});

test('bind: a file subPath is bind-mounted onto a file; a restart reuses a target that still matches', async () => {
  const f = fixture();
  writeFileSync(join(f.volume, 'config.yaml'), 'a: 1\n');
  mkdirSync(join(f.volume, 'd'));
  const file = await prepareSafeSubpath(subpathOf(f, 'config.yaml', { volumeMountIndex: 1 }));
  assert.equal(readFileSync(file, 'utf8'), 'a: 1\n');
  assert.equal(statSync(file).ino, statSync(join(f.volume, 'config.yaml')).ino);

  const directory = await prepareSafeSubpath(subpathOf(f, 'd'));
  assert.equal(await prepareSafeSubpath(subpathOf(f, 'd')), directory);
  assert.equal((await mountsAt(directory)).length, 1, 'no second mount for the same directory');
  // The directory replaced by another one: the target is mounted again, once.
  rmSync(join(f.volume, 'd'), { recursive: true });
  mkdirSync(join(f.volume, 'd'));
  writeFileSync(join(f.volume, 'd', 'new'), '');
  assert.equal(await prepareSafeSubpath(subpathOf(f, 'd')), directory);
  assert.deepEqual(readdirSync(directory), ['new']);
  assert.equal((await mountsAt(directory)).length, 1);
  await cleanPodSubPaths(f.rootDir, UID);
  assert.equal(existsSync(join(f.rootDir, 'pods', UID, 'volume-subpaths')), false);
});

test('cleanup: a container\'s mounts go with it; the pod\'s volumes keep their content through every cleanup', async () => {
  const f = fixture();
  mkdirSync(join(f.volume, 'd'));
  writeFileSync(join(f.volume, 'd', 'precious'), 'keep');
  const app = await prepareSafeSubpath(subpathOf(f, 'd'));
  const sidecar = await prepareSafeSubpath(subpathOf(f, 'd', { containerName: 'sidecar', volumeMountIndex: 2 }));
  await cleanContainerSubPaths(f.rootDir, UID, 'app');
  assert.equal(existsSync(app), false);
  assert.equal((await mountsAt(sidecar)).length, 1, 'the other container keeps its mount');
  await cleanPodSubPaths(f.rootDir, UID);
  assert.equal((await mountsUnder(join(f.rootDir, 'pods'))).length, 0);
  assert.equal(readFileSync(join(f.volume, 'd', 'precious'), 'utf8'), 'keep');
});

test('cleanup: the pod teardown unmounts subPaths before removing the pod directory; the volume keeps its content', async () => {
  const f = fixture();
  mkdirSync(join(f.volume, 'd'));
  writeFileSync(join(f.volume, 'd', 'precious'), 'keep');
  const settings = { rootDir: f.rootDir, podLogsDir: join(f.base, 'logs') } as ShardSettings;
  const pod = { metadata: { name: 'p', namespace: 'ns', uid: UID }, spec: { containers: [{ name: 'app' }], volumes: [{ name: 'data', hostPath: { path: f.volume } }, { name: 'scratch', emptyDir: {} }] } };
  const paths = await setupPodVolumes(pod, settings);
  mkdirSync(join(paths.scratch, 's'));
  await prepareSafeSubpath(subpathOf(f, 'd'));
  await prepareSafeSubpath(subpathOf(f, 's', { volumeName: 'scratch', volumePath: paths.scratch }));
  await teardownPodVolumes(UID, settings);
  assert.equal(existsSync(join(f.rootDir, 'pods', UID)), false);
  assert.equal((await mountsUnder(f.base)).length, 0);
  assert.equal(readFileSync(join(f.volume, 'd', 'precious'), 'utf8'), 'keep');
});

test('cleanup: housekeeping unmounts what pods the kubelet does not have left behind, and only theirs', async () => {
  const f = fixture();
  mkdirSync(join(f.volume, 'd'));
  writeFileSync(join(f.volume, 'd', 'precious'), 'keep');
  const known = await prepareSafeSubpath(subpathOf(f, 'd'));
  const gone = await prepareSafeSubpath(subpathOf(f, 'd', { podUid: OTHER_UID }));
  assert.deepEqual([...(await podsWithSubpathMounts(f.rootDir))].sort(), [UID, OTHER_UID].sort());
  const sweep = new OrphanedPodSubpaths(f.rootDir, pino({ level: 'silent' }));
  assert.deepEqual(await sweep.cleanup((uid) => uid === UID), [OTHER_UID]);
  assert.equal(existsSync(gone), false);
  assert.equal(existsSync(join(f.rootDir, 'pods', OTHER_UID, 'volume-subpaths')), false);
  assert.equal((await mountsAt(known)).length, 1);
  assert.equal(readFileSync(join(f.volume, 'd', 'precious'), 'utf8'), 'keep');
  assert.equal((await readMountInfo()).some((entry) => entry.mountPoint === gone), false);
  await cleanPodSubPaths(f.rootDir, UID);
});
