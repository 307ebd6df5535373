// Reading the mount table (/proc/self/mountinfo) and mounting / unmounting with the
// system's mount(8) and umount(8), the way upstream's mount-utils Mounter does on
// Linux.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const SELF_MOUNTINFO_PATH = '/proc/self/mountinfo';

export interface MountInfoEntry {
  mountPoint: string;
  fsType: string;
  source: string;
}

/** mountinfo escapes space, tab, newline and backslash as \ooo octal. */
function unescapeOctal(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** Parses mountinfo(5) lines: field 5 is the mount point, the fields after " - " the type and source. */
export function parseMountInfo(text: string): MountInfoEntry[] {
  const entries: MountInfoEntry[] = [];
  for (const line of text.split('\n')) {
    const separator = line.indexOf(' - ');
    if (separator === -1) continue;
    const before = line.slice(0, separator).split(' ');
    const after = line.slice(separator + 3).split(' ');
    if (before.length < 5 || after.length < 2) continue;
    entries.push({ mountPoint: unescapeOctal(before[4]), fsType: after[0], source: unescapeOctal(after[1]) });
  }
  return entries;
}

export async function readMountInfo(path: string = SELF_MOUNTINFO_PATH): Promise<MountInfoEntry[]> {
  return parseMountInfo(await readFile(path, 'utf8'));
}

/** The entries mounted exactly at mountPoint (the last one is on top). */
export async function mountsAt(mountPoint: string): Promise<MountInfoEntry[]> {
  return (await readMountInfo()).filter((entry) => entry.mountPoint === mountPoint);
}

/** Mount points at or below directory, deepest first (the order to unmount them in). */
export async function mountsUnder(directory: string): Promise<MountInfoEntry[]> {
  const prefix = directory.endsWith('/') ? directory : `${directory}/`;
  const entries = (await readMountInfo()).filter(
    (entry) => entry.mountPoint === directory || entry.mountPoint.startsWith(prefix),
  );
  return entries.sort((a, b) => b.mountPoint.length - a.mountPoint.length);
}

export async function mountTmpfs(target: string, options: string[]): Promise<void> {
  const args = ['-t', 'tmpfs'];
  if (options.length > 0) args.push('-o', options.join(','));
  await execFileAsync('mount', [...args, 'tmpfs', target]);
}

/**
 * mount --bind without mount(8)'s canonicalisation, which would resolve the source by
 * name: the source is a /proc/<pid>/fd/<fd> link to an open descriptor (upstream's
 * doBindSubPath passes --no-canonicalize for the same reason).
 */
export async function bindMountNoCanonicalize(source: string, target: string): Promise<void> {
  await execFileAsync('mount', ['--no-canonicalize', '--bind', source, target]);
}

export async function unmount(target: string): Promise<void> {
  await execFileAsync('umount', [target]);
}
