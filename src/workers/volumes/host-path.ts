// hostPath volumes, as upstream's pkg/volume/hostpath: the volume is the node path
// itself (nothing is mounted by the kubelet); the type field asks for a check, and
// for DirectoryOrCreate / FileOrCreate for creating what is missing. FileOrCreate
// does not create parent directories: upstream documents that the pod fails instead.
import type { Stats } from 'node:fs';
import { chmod, mkdir, open, stat } from 'node:fs/promises';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import type { Volume } from '../../shared/types.js';

export type HostPathType =
  | ''
  | 'DirectoryOrCreate'
  | 'Directory'
  | 'FileOrCreate'
  | 'File'
  | 'Socket'
  | 'CharDevice'
  | 'BlockDevice';

/** Modes upstream's makeDir and makeFile use. */
const CREATED_DIRECTORY_MODE = 0o755;
const CREATED_FILE_MODE = 0o644;

interface TypeCheck {
  test: (stats: Stats) => boolean;
  /** How the failure reads: "<path> is not <what>". */
  what: string;
}

const TYPE_CHECKS: Record<Exclude<HostPathType, ''>, TypeCheck> = {
  DirectoryOrCreate: { test: (stats) => stats.isDirectory(), what: 'a directory' },
  Directory: { test: (stats) => stats.isDirectory(), what: 'a directory' },
  FileOrCreate: { test: (stats) => stats.isFile(), what: 'a file' },
  File: { test: (stats) => stats.isFile(), what: 'a file' },
  Socket: { test: (stats) => stats.isSocket(), what: 'a socket file' },
  CharDevice: { test: (stats) => stats.isCharacterDevice(), what: 'a character device' },
  BlockDevice: { test: (stats) => stats.isBlockDevice(), what: 'a block device' },
};

/** Checks (and for the *OrCreate types creates) the volume's path; resolves with it. */
export async function setupHostPath(volume: Volume): Promise<string> {
  const path = volume.hostPath?.path ?? '';
  const type = (volume.hostPath?.type ?? '') as HostPathType;
  if (path === '' || path.split('/').includes('..')) {
    throw hostPathError(volume, path, type, `hostPath path ${JSON.stringify(path)} must be set and must not contain '..'`);
  }
  if (type === '') return path;
  const check = TYPE_CHECKS[type];
  if (!check) throw hostPathError(volume, path, type, `${type} is an invalid volume type`);
  const stats = await statOrUndefined(volume, path, type);
  if (stats === undefined && (type === 'DirectoryOrCreate' || type === 'FileOrCreate')) {
    await createMissing(volume, path, type);
    return path;
  }
  if (stats === undefined || !check.test(stats)) {
    throw hostPathError(volume, path, type, `hostPath type check failed: ${path} is not ${check.what}`);
  }
  return path;
}

async function createMissing(volume: Volume, path: string, type: 'DirectoryOrCreate' | 'FileOrCreate'): Promise<void> {
  try {
    if (type === 'DirectoryOrCreate') {
      await mkdir(path, { recursive: true, mode: CREATED_DIRECTORY_MODE });
      await chmod(path, CREATED_DIRECTORY_MODE);
    } else {
      // 'a' creates the file when missing and leaves one created meanwhile untouched.
      await (await open(path, 'a', CREATED_FILE_MODE)).close();
    }
  } catch (err) {
    throw hostPathError(volume, path, type, `creating ${path} failed: ${(err as Error).message}`);
  }
}

async function statOrUndefined(volume: Volume, path: string, type: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw hostPathError(volume, path, type, `checking ${path} failed: ${(err as Error).message}`);
  }
}

function hostPathError(volume: Volume, path: string, type: string, message: string): ShardletError {
  return new ShardletError(
    ErrorCodes.VOLUME_SETUP,
    `MountVolume.SetUp failed for volume "${volume.name}" (hostPath ${path}, type ${type || '""'}): ${message}`,
    { volume: volume.name, path, expectedType: type },
  );
}
