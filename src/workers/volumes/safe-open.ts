// Opening a pod's subPath inside its volume without ever following a symlink, as
// upstream's doSafeOpen and doSafeMakeDir (pkg/volume/util/subpath/subpath_linux.go).
// The subPath is pod-supplied and the volume's content belongs to the pod's
// containers, which may swap any directory for a symlink at any moment: so no step is
// resolved by name twice. Each component is opened relative to the directory opened
// before it, with O_NOFOLLOW; the final descriptor is what gets bind-mounted.
// Each step goes through atPath (src/shared/open-at.ts), Node's openat.
import { constants } from 'node:fs';
import { mkdir, open, realpath, type FileHandle } from 'node:fs/promises';
import { atPath, DIRECTORY_NOFOLLOW_FLAGS } from '../../shared/open-at.js';

/** Linux's O_PATH (x86-64 and arm64; fs.constants lacks it): a descriptor that names a file without opening it, so a FIFO cannot block. */
export const O_PATH = 0o10000000;
/** The last component may be a file too (a file subPath); a symlink opens as itself and is refused after fstat. */
const FINAL_STEP_FLAGS = O_PATH | constants.O_NOFOLLOW;

/** The subPath's components; '' and '.' name the directory they are in. The caller refused '..' and absolute paths. */
export function subPathComponents(subPath: string): string[] {
  return subPath.split('/').filter((component) => component !== '' && component !== '.');
}

/**
 * Opens volumePath/subPath one component at a time, creating missing directories
 * with the volume's own mode (upstream: SafeMakeDir with GetMode(volumePath), then
 * fchmod past the umask). The volume path itself is the kubelet's and resolved once.
 * Resolves with an O_PATH descriptor of the subPath (a directory one when it was just
 * made), which the caller closes. Rejects when any step is a symlink, or an
 * intermediate step is not a directory; messages name the step within the volume only.
 */
export async function openSubPathSafely(volumePath: string, subPath: string): Promise<FileHandle> {
  const components = subPathComponents(subPath);
  let current = await open(await realpath(volumePath), DIRECTORY_NOFOLLOW_FLAGS);
  try {
    const mode = (await current.stat()).mode & 0o7777;
    for (const [index, component] of components.entries()) {
      const walked = components.slice(0, index + 1).join('/');
      const last = index === components.length - 1;
      const next = last ? await openFinalStep(current, component, walked, mode) : await openDirectoryStep(current, component, walked, mode);
      await current.close();
      current = next;
    }
    return current;
  } catch (err) {
    await current.close();
    throw err;
  }
}

async function openDirectoryStep(parent: FileHandle, name: string, walked: string, mode: number): Promise<FileHandle> {
  try {
    return await open(atPath(parent, name), DIRECTORY_NOFOLLOW_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return makeDirectory(parent, name, walked, mode);
    if (code === 'ENOTDIR' || code === 'ELOOP') throw await refusal(parent, name, walked);
    throw err;
  }
}

async function openFinalStep(parent: FileHandle, name: string, walked: string, mode: number): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(atPath(parent, name), FINAL_STEP_FLAGS);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return makeDirectory(parent, name, walked, mode);
    throw err;
  }
  if ((await handle.stat()).isSymbolicLink()) {
    await handle.close();
    throw new Error(`unexpected symlink found ${walked}`);
  }
  return handle;
}

/**
 * mkdirat, then open the new directory with O_NOFOLLOW: whatever the containers
 * put there in between (a symlink fails the open; a directory of theirs is theirs
 * to use anyway), nothing outside the volume is reached.
 */
async function makeDirectory(parent: FileHandle, name: string, walked: string, mode: number): Promise<FileHandle> {
  let created = true;
  try {
    await mkdir(atPath(parent, name), { mode });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    created = false;
  }
  let handle: FileHandle;
  try {
    handle = await open(atPath(parent, name), DIRECTORY_NOFOLLOW_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'ELOOP') throw await refusal(parent, name, walked);
    throw err;
  }
  try {
    // mkdir's mode went through the umask: the container must get the volume's.
    if (created) await handle.chmod(mode);
  } catch (err) {
    await handle.close();
    throw err;
  }
  return handle;
}

/** Why a directory step failed: a symlink (upstream's "unexpected symlink found") or something else in the way. */
async function refusal(parent: FileHandle, name: string, walked: string): Promise<Error> {
  try {
    const handle = await open(atPath(parent, name), FINAL_STEP_FLAGS);
    const symlink = (await handle.stat()).isSymbolicLink();
    await handle.close();
    return new Error(symlink ? `unexpected symlink found ${walked}` : `${walked} is not a directory`);
  } catch {
    return new Error(`${walked} is not a directory`);
  }
}
