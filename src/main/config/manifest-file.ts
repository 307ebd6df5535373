// Reads one entry of the static pod directory without trusting it: a FIFO must
// not block the scan, a device must not be opened, a symlink loop or an unreadable
// file must say why, and a file larger than the manifest limit is not read at all.
// Every outcome carries a fingerprint of the entry (inode, size, times, or the
// error), so the file source can tell "the same problem again" from "the file
// changed" and log a problem once, as upstream's extractFromDir logs each one.
import { constants, type Stats } from 'node:fs';
import { lstat, open, stat } from 'node:fs/promises';
import { MAX_MANIFEST_BYTES } from '../../shared/manifest/parse-manifest.js';

export type ManifestEntry =
  | { kind: 'bytes'; bytes: Buffer; fingerprint: string }
  | { kind: 'problem'; reason: string; fingerprint: string }
  /** The entry's stat shows the fingerprint the caller last read it with: not opened again. */
  | { kind: 'unchanged'; fingerprint: string };

/**
 * A file changed less than this long before it was read may change again without its
 * stat showing it (file times tick coarsely): as git's racy-clean rule, it is read
 * again rather than trusted unchanged.
 */
const RACY_MARGIN_MS = 2_000;

/** When the caller last read the entry's bytes, and the entry's fingerprint then. */
export interface LastRead {
  fingerprint: string;
  readAtMs: number;
}

/** Opened without blocking on a FIFO, and never becoming its controlling terminal. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * The bytes of a regular file (following symlinks, as upstream's os.Stat), or why it
 * cannot be used. `lastRead`: when the caller last read its bytes; an entry whose
 * stat still shows the fingerprint of then (same inode, size, mtime and ctime: a
 * write, a rename over it or a symlink's new target all change one), and had not
 * changed shortly before, is not read again, so a periodic rescan of a directory of
 * unchanged manifests costs a stat each.
 */
export async function readManifestEntry(file: string, lastRead?: LastRead): Promise<ManifestEntry> {
  let info: Stats;
  try {
    info = await stat(file);
  } catch (err) {
    return problem(describeError(err), `${errorCode(err)}:${await linkFingerprint(file)}`);
  }
  const fingerprint = fingerprintOf(info);
  if (lastRead && fingerprint === lastRead.fingerprint && info.isFile() && Math.max(info.mtimeMs, info.ctimeMs) < lastRead.readAtMs - RACY_MARGIN_MS) {
    return { kind: 'unchanged', fingerprint };
  }
  const notRegular = notRegularReason(info);
  if (notRegular) return problem(notRegular, fingerprint);
  if (info.size > MAX_MANIFEST_BYTES) return problem(`larger than ${MAX_MANIFEST_BYTES} bytes (${info.size} bytes)`, fingerprint);
  try {
    const handle = await open(file, OPEN_FLAGS);
    try {
      // Checked again on the open file: it may have been swapped for something else since the stat.
      const opened = await handle.stat();
      const swapped = notRegularReason(opened);
      if (swapped) return problem(swapped, fingerprintOf(opened));
      const bytes = await readAtMost(handle, MAX_MANIFEST_BYTES + 1);
      if (bytes.length > MAX_MANIFEST_BYTES) return problem(`larger than ${MAX_MANIFEST_BYTES} bytes`, fingerprintOf(opened));
      return { kind: 'bytes', bytes, fingerprint: fingerprintOf(opened) };
    } finally {
      await handle.close();
    }
  } catch (err) {
    return problem(`cannot be read: ${describeError(err)}`, `${errorCode(err)}:${fingerprint}`);
  }
}

/** Reads until end of file or `limitBytes`, so a file growing under us cannot make us buffer without end. */
async function readAtMost(handle: Awaited<ReturnType<typeof open>>, limitBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < limitBytes) {
    const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, limitBytes - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
  }
  return Buffer.concat(chunks, total);
}

function notRegularReason(info: Stats): string | undefined {
  if (info.isFile()) return undefined;
  if (info.isDirectory()) return 'is a directory; manifests in subdirectories are not read';
  const kind = info.isFIFO() ? 'FIFO' : info.isSocket() ? 'socket' : info.isCharacterDevice() ? 'character device' : info.isBlockDevice() ? 'block device' : 'special file';
  return `is a ${kind}, not a regular file`;
}

function fingerprintOf(info: Stats): string {
  return `${info.dev}:${info.ino}:${info.mode}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

/** For an entry that cannot be stat'ed (a symlink loop, a dangling link): the link itself. */
async function linkFingerprint(file: string): Promise<string> {
  const info = await lstat(file).catch(() => undefined);
  return info ? fingerprintOf(info) : 'gone';
}

function problem(reason: string, fingerprint: string): ManifestEntry {
  return { kind: 'problem', reason, fingerprint };
}

function errorCode(err: unknown): string {
  return String((err as NodeJS.ErrnoException).code ?? 'ERROR');
}

/** "ELOOP: too many symbolic links encountered" without the repeated path. */
function describeError(err: unknown): string {
  const error = err as NodeJS.ErrnoException;
  if (error.code === 'ELOOP') return 'symbolic link loop (ELOOP)';
  if (error.code === 'ENOENT') return 'vanished, or a symbolic link to nothing (ENOENT)';
  const message = (error.message ?? String(err)).replace(/, \w+ '.*'$/, '');
  return message;
}
