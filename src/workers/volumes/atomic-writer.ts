// Projects a set of files into a volume directory atomically, as upstream's
// pkg/volume/util AtomicWriter: the payload goes into a fresh hidden directory
// "..<timestamp>.<random>", the "..data" symlink is switched to it by renaming a
// temporary symlink over it (one rename, so a reader sees the old set or the new
// set, never a mix), the user-visible top-level entries are symlinks through
// "..data", and the previous timestamped directory is removed. Names starting with
// ".." are reserved for the writer. A payload equal to what is there is not
// rewritten.
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';

const DATA_DIR_NAME = '..data';
const NEW_DATA_DIR_NAME = '..data_tmp';
/** Upstream chmods the timestamped directory so any container user can traverse it. */
const TS_DIR_MODE = 0o755;
const MAX_PATH_LENGTH = 4096;
const MAX_FILE_NAME_LENGTH = 255;

/** One file of a payload, as upstream's FileProjection. */
export interface FileProjection {
  data: Buffer;
  /** Permission bits (e.g. 0o644). */
  mode: number;
}

/** Relative path → file. */
export type Payload = Record<string, FileProjection>;

/** Thrown for a payload path the writer refuses (upstream's validatePath). */
export class InvalidPayloadPathError extends Error {
  override name = 'InvalidPayloadPathError';
}

/** As validatePath: relative, no ".." element, not starting with "..", within length limits. */
export function validatePayloadPath(targetPath: string): void {
  if (targetPath === '') throw new InvalidPayloadPathError('invalid path: must not be empty');
  if (targetPath.length > MAX_PATH_LENGTH) {
    throw new InvalidPayloadPathError(`invalid path: must be less than or equal to ${MAX_PATH_LENGTH} characters`);
  }
  if (posix.isAbsolute(targetPath)) throw new InvalidPayloadPathError(`invalid path: must be relative path: ${targetPath}`);
  const elements = targetPath.split('/');
  if (elements.some((element) => element === '..')) {
    throw new InvalidPayloadPathError(`invalid path: must not contain '..': ${targetPath}`);
  }
  if (elements[0].startsWith('..')) throw new InvalidPayloadPathError(`invalid path: must not start with '..': ${targetPath}`);
  if (elements.some((element) => element.length > MAX_FILE_NAME_LENGTH)) {
    throw new InvalidPayloadPathError(`invalid path: path elements must be at most ${MAX_FILE_NAME_LENGTH} characters: ${targetPath}`);
  }
}

/** Validates every path and normalises it ("a//b/" → "a/b"), as upstream's validatePayload. */
export function cleanPayload(payload: Payload): Payload {
  const cleaned: Payload = {};
  for (const [path, file] of Object.entries(payload)) {
    validatePayloadPath(path);
    cleaned[posix.normalize(path).replace(/\/+$/, '')] = file;
  }
  return cleaned;
}

/**
 * Writes the payload into targetDir; resolves with true when something was written,
 * false when the directory already held exactly this payload.
 */
export async function writePayloadAtomically(targetDir: string, payload: Payload): Promise<boolean> {
  const cleaned = cleanPayload(payload);
  await mkdir(targetDir, { recursive: true });
  const oldTsName = await currentDataDirName(targetDir);
  const oldFiles = oldTsName === '' ? new Map<string, FileProjection>() : await readTree(join(targetDir, oldTsName));
  if (oldTsName !== '' && samePayload(cleaned, oldFiles)) return false;

  const newTsDir = await newTimestampDir(targetDir);
  await writeTree(newTsDir, cleaned);
  await swapDataLink(targetDir, posix.basename(newTsDir));
  await createUserVisibleLinks(targetDir, cleaned);
  await removeStaleUserVisibleLinks(targetDir, cleaned, oldFiles);
  if (oldTsName !== '') await rm(join(targetDir, oldTsName), { recursive: true, force: true });
  return true;
}

/** The timestamped directory "..data" points to; '' when there is none yet. */
async function currentDataDirName(targetDir: string): Promise<string> {
  try {
    const name = await readlink(join(targetDir, DATA_DIR_NAME));
    await lstat(join(targetDir, name));
    return name;
  } catch {
    return '';
  }
}

/** Every regular file under dir, by relative path, with its bytes and permission bits. */
async function readTree(dir: string): Promise<Map<string, FileProjection>> {
  const files = new Map<string, FileProjection>();
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch {
    return files;
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const absolute = join(entry.parentPath, entry.name);
    const relative = posix.relative(dir, absolute);
    const stats = await lstat(absolute);
    files.set(relative, { data: await readFile(absolute), mode: stats.mode & 0o7777 });
  }
  return files;
}

/** Upstream compares contents only; the mode is compared too, so a changed defaultMode reaches the files. */
function samePayload(payload: Payload, onDisk: Map<string, FileProjection>): boolean {
  const paths = Object.keys(payload);
  if (paths.length !== onDisk.size) return false;
  return paths.every((path) => {
    const existing = onDisk.get(path);
    return existing !== undefined && existing.mode === (payload[path].mode & 0o7777) && existing.data.equals(payload[path].data);
  });
}

/** As newTimestampDir: "..YYYY_MM_DD_HH_MM_SS.<random>", mode 0755. */
async function newTimestampDir(targetDir: string): Promise<string> {
  const stamp = new Date().toISOString().slice(0, 19).replace(/[-T:]/g, '_');
  const dir = await mkdtemp(join(targetDir, `..${stamp}.`));
  await chmod(dir, TS_DIR_MODE);
  return dir;
}

async function writeTree(dir: string, payload: Payload): Promise<void> {
  for (const [path, file] of Object.entries(payload)) {
    const absolute = join(dir, path);
    await mkdir(dirname(absolute), { recursive: true, mode: TS_DIR_MODE });
    await writeFile(absolute, file.data);
    // writeFile's mode passes through the umask; set it exactly as upstream's os.Chmod does.
    await chmod(absolute, file.mode & 0o7777);
  }
}

/** A temporary symlink renamed over "..data": the one atomic step of an update. */
async function swapDataLink(targetDir: string, tsDirName: string): Promise<void> {
  const tmpLink = join(targetDir, NEW_DATA_DIR_NAME);
  await rm(tmpLink, { force: true });
  await symlink(tsDirName, tmpLink);
  await rename(tmpLink, join(targetDir, DATA_DIR_NAME));
}

function topLevelNames(paths: Iterable<string>): Set<string> {
  return new Set([...paths].map((path) => path.split('/')[0]));
}

/** As createUserVisibleFiles: "<name> → ..data/<name>" for each top-level entry not there yet. */
async function createUserVisibleLinks(targetDir: string, payload: Payload): Promise<void> {
  for (const name of topLevelNames(Object.keys(payload))) {
    const linkPath = join(targetDir, name);
    try {
      await lstat(linkPath);
    } catch {
      await symlink(posix.join(DATA_DIR_NAME, name), linkPath);
    }
  }
}

/** As removeUserVisiblePaths: top-level entries of the old payload the new one no longer has. */
async function removeStaleUserVisibleLinks(targetDir: string, payload: Payload, oldFiles: Map<string, FileProjection>): Promise<void> {
  const current = topLevelNames(Object.keys(payload));
  for (const name of topLevelNames(oldFiles.keys())) {
    if (!current.has(name)) await rm(join(targetDir, name), { force: true });
  }
}
