// Taking subPath bind mounts down, as upstream's doCleanSubPaths, cleanSubPath and
// removeEmptyDirs (pkg/volume/util/subpath/subpath_linux.go). Every mount under the
// directory goes first, found in /proc/self/mountinfo (a bind mount of a directory of
// the same filesystem looks like any directory to stat); only then are the emptied
// entries removed, one by one with rmdir or unlink. Nothing here removes recursively:
// a remove that went down into a bind mount still in place would delete the volume's
// content through it.
import { readdir, realpath, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { mountsUnder, readMountInfo, unmount } from './mountinfo.js';
import { CONTAINER_SUBPATH_DIRECTORY_NAME, podVolumeSubpathsDir } from './subpath-paths.js';
import { podsDir } from './volume-paths.js';

/** Directory levels below volume-subpaths down to a bind target: <volume>/<container>/<index>. */
const TARGET_DEPTH_BELOW_POD = 3;
/** And below a container's directory: <index>. */
const TARGET_DEPTH_BELOW_CONTAINER = 1;

/** Every subPath mount of the pod, as CleanSubPaths for each of its volumes when they are torn down. */
export async function cleanPodSubPaths(rootDir: string, podUid: string): Promise<void> {
  await cleanTree(podVolumeSubpathsDir(rootDir, podUid), TARGET_DEPTH_BELOW_POD);
}

/** The subPath mounts made for one container of the pod (in every volume), once no instance of it is left. */
export async function cleanContainerSubPaths(rootDir: string, podUid: string, containerName: string): Promise<void> {
  const subpathsDir = podVolumeSubpathsDir(rootDir, podUid);
  const volumes = await directoryNames(subpathsDir);
  for (const volume of volumes) {
    await cleanTree(join(subpathsDir, volume, containerName), TARGET_DEPTH_BELOW_CONTAINER);
    await removeIfEmpty(join(subpathsDir, volume));
  }
  if (volumes.length > 0) await removeIfEmpty(subpathsDir);
}

/**
 * One bind target that failed half-way, as upstream's cleanSubPath: unmounted if it
 * got mounted, removed, and its directories up to the pod's removed while empty.
 */
export async function cleanSubPath(rootDir: string, podUid: string, target: string): Promise<void> {
  await unmountAllUnder(target);
  await unlink(target).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code === 'EISDIR' || err.code === 'EPERM') await rmdir(target);
    else if (err.code !== 'ENOENT') throw err;
  });
  const podSubpathsDir = await realpath(podVolumeSubpathsDir(rootDir, podUid)).catch(() => undefined);
  if (podSubpathsDir === undefined || !target.startsWith(`${podSubpathsDir}/`)) return;
  // <container>, <volume>, then volume-subpaths itself.
  let directory = target;
  for (let level = 0; level < TARGET_DEPTH_BELOW_POD; level++) {
    directory = join(directory, '..');
    if (!(await removeIfEmpty(directory))) return;
  }
}

/** The UIDs of pods under rootDir that have a subPath bind mount in place, from /proc/self/mountinfo. */
export async function podsWithSubpathMounts(rootDir: string): Promise<Set<string>> {
  const uids = new Set<string>();
  const pods = await realpath(podsDir(rootDir)).catch(() => undefined);
  if (pods === undefined) return uids;
  for (const entry of await readMountInfo()) {
    if (!entry.mountPoint.startsWith(`${pods}/`)) continue;
    const [uid, directory] = entry.mountPoint.slice(pods.length + 1).split('/');
    if (directory === CONTAINER_SUBPATH_DIRECTORY_NAME) uids.add(uid);
  }
  return uids;
}

/** Unmounts everything at or under directory, then removes the layout's entries bottom up. */
async function cleanTree(directory: string, depth: number): Promise<void> {
  let canonical: string;
  try {
    canonical = await realpath(directory);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  await unmountAllUnder(canonical);
  await removeLayout(canonical, depth);
}

async function unmountAllUnder(directory: string): Promise<void> {
  // Deepest first; a target with mounts stacked on it is listed once per mount.
  for (const entry of await mountsUnder(directory)) await unmount(entry.mountPoint);
  const left = await mountsUnder(directory);
  if (left.length > 0) {
    throw new ShardletError(ErrorCodes.SUBPATH_FAILED, `subPath mounts still in place under ${directory}: ${left.map((entry) => entry.mountPoint).join(', ')}`, {
      mounts: left.map((entry) => entry.mountPoint),
    });
  }
}

/**
 * rmdir and unlink only, levels deep: with nothing mounted any more every bind
 * target is an empty directory or an empty file, and anything else makes rmdir fail
 * with ENOTEMPTY rather than be deleted.
 */
async function removeLayout(directory: string, levels: number): Promise<void> {
  if (levels > 0) {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) await removeLayout(path, levels - 1);
      else await unlink(path);
    }
  }
  await rmdir(directory);
}

/** rmdir that leaves a directory with something in it (or one already gone); true when it is gone. */
async function removeIfEmpty(directory: string): Promise<boolean> {
  try {
    await rmdir(directory);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return true;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
    throw err;
  }
}

async function directoryNames(directory: string): Promise<string[]> {
  try {
    return (await readdir(directory, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
