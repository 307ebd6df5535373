// A container's subPath, made safe for the runtime as upstream's PrepareSafeSubpath
// (doBindSubPath, prepareSubpathTarget, checkSubPathFileEqual): the subPath is opened
// inside its volume without following symlinks (safe-open.ts), and that open
// descriptor, through /proc/<pid>/fd/<fd>, is bind-mounted onto a kubelet-owned target
// under the pod's directory (subpath-paths.ts). The runtime gets the target: nothing
// the pod's containers do inside the volume afterwards can change what it shows,
// whereas a path name inside the volume would be resolved again by the runtime, after
// a container had the chance to swap a directory for a symlink to / (CVE-2021-25741).
// The targets go with the container (cleanContainerSubPaths) and with the pod's
// volumes (cleanPodSubPaths).
import type { BigIntStats } from 'node:fs';
import { lstat, mkdir, realpath, rmdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bindMountNoCanonicalize, mountsAt, unmount } from './mountinfo.js';
import { openSubPathSafely } from './safe-open.js';
import { cleanSubPath } from './subpath-cleanup.js';
import { containerSubpathsDir } from './subpath-paths.js';

/** Upstream's modes for the target's directories and a file target. */
const SUBPATH_TARGET_DIR_MODE = 0o750;
const SUBPATH_TARGET_FILE_MODE = 0o640;

/** Upstream's subpath.Subpath, with the subPath itself rather than the joined path. */
export interface Subpath {
  rootDir: string;
  podUid: string;
  volumeName: string;
  /** The volume's host path: the kubelet's own (or the admin's hostPath), trusted. */
  volumePath: string;
  /** Pod-supplied, already checked to be relative and free of '..'. */
  subPath: string;
  containerName: string;
  volumeMountIndex: number;
}

/**
 * Resolves with the bind target to hand the runtime. A target that already shows
 * the same file (a restarted container) is used as it is; one that shows anything
 * else is unmounted and mounted again.
 */
export async function prepareSafeSubpath(subpath: Subpath): Promise<string> {
  const source = await openSubPathSafely(subpath.volumePath, subpath.subPath);
  try {
    const sourceStats = await source.stat({ bigint: true });
    const target = await bindTargetPath(subpath);
    if (await alreadyBound(target, sourceStats)) return target;
    await makeBindTarget(target, sourceStats.isDirectory());
    try {
      // The child mount(8) reaches this process's descriptor through /proc/<pid>, not /proc/self.
      await bindMountNoCanonicalize(`/proc/${process.pid}/fd/${source.fd}`, target);
      if (!sameFile(await lstat(target, { bigint: true }), sourceStats)) {
        throw new Error('the bind mount does not show the opened subPath');
      }
    } catch (err) {
      await cleanSubPath(subpath.rootDir, subpath.podUid, target).catch(() => undefined);
      throw err;
    }
    return target;
  } finally {
    await source.close();
  }
}

/** The target's canonical path (mountinfo lists canonical paths), its directory made. */
async function bindTargetPath(subpath: Subpath): Promise<string> {
  const directory = containerSubpathsDir(subpath.rootDir, subpath.podUid, subpath.volumeName, subpath.containerName);
  await mkdir(directory, { recursive: true, mode: SUBPATH_TARGET_DIR_MODE });
  return join(await realpath(directory), String(subpath.volumeMountIndex));
}

/** As prepareSubpathTarget's early check: mounted and the same file (checkSubPathFileEqual), or unmounted now. */
async function alreadyBound(target: string, sourceStats: BigIntStats): Promise<boolean> {
  const mounts = await mountsAt(target);
  if (mounts.length === 0) return false;
  if (sameFile(await lstat(target, { bigint: true }), sourceStats)) return true;
  for (let stacked = 0; stacked < mounts.length; stacked++) await unmount(target);
  return false;
}

/** A directory for a directory, an empty file for anything else (bind-mounting onto a file takes the source's type). */
async function makeBindTarget(target: string, directory: boolean): Promise<void> {
  const existing = await lstat(target).catch(() => undefined);
  if (existing && existing.isDirectory() === directory) return;
  // Nothing is mounted here (alreadyBound saw to it): the other kind goes.
  if (existing?.isDirectory()) await rmdir(target);
  else if (existing) await unlink(target);
  if (directory) await mkdir(target, { mode: SUBPATH_TARGET_DIR_MODE });
  else await writeFile(target, '', { mode: SUBPATH_TARGET_FILE_MODE, flag: 'wx' });
}

/** os.SameFile: the same device and inode. */
function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}
