// A listing of a directory tree (every entry with its type, size and mtime) taken
// before and after something hostile ran, and what changed between the two: the
// way the path tests see that nothing outside the allowed directories was created,
// written or removed. A directory's mtime moves when an entry is added to or removed
// from it, so even something made and removed again in between shows.
import { lstat, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

export interface TreeEntry {
  type: 'file' | 'dir' | 'link' | 'other';
  size: number;
  mtimeNs: bigint;
}

/** Relative path ('' for the root itself) → entry. */
export type TreeSnapshot = Map<string, TreeEntry>;

/** Lists `root` and everything below it, not descending into `skip` (absolute paths); a missing root lists nothing. */
export async function snapshotTree(root: string, skip: readonly string[] = []): Promise<TreeSnapshot> {
  const snapshot: TreeSnapshot = new Map();
  const walk = async (path: string): Promise<void> => {
    let stats;
    try {
      stats = await lstat(path, { bigint: true });
    } catch {
      return;
    }
    const type = stats.isDirectory() ? 'dir' : stats.isFile() ? 'file' : stats.isSymbolicLink() ? 'link' : 'other';
    snapshot.set(relative(root, path), { type, size: Number(stats.size), mtimeNs: stats.mtimeNs });
    if (type !== 'dir' || skip.includes(path)) return;
    for (const name of await readdir(path).catch(() => [])) await walk(join(path, name));
  };
  await walk(root);
  return snapshot;
}

/** Every path created, removed or changed between two snapshots, as "created x", "removed y", "changed z". */
export function treeChanges(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const changes: string[] = [];
  for (const [path, entry] of after) {
    const old = before.get(path);
    if (!old) changes.push(`created ${path || '.'}`);
    else if (old.type !== entry.type || old.size !== entry.size || old.mtimeNs !== entry.mtimeNs) changes.push(`changed ${path || '.'}`);
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push(`removed ${path || '.'}`);
  return changes.sort();
}

/** True when `path` (relative to the snapshot's root) is `dir` or lies below it. */
export function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}${sep}`);
}
