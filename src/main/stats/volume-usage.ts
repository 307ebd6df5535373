// What a pod volume's directory uses, measured as upstream's MetricsDu does
// (pkg/volume/metrics_du.go over pkg/volume/util/fs DiskUsage): bytes as the blocks
// allocated (st_blocks × 512) and inodes as the entries found, each inode once (hard
// links), without leaving the volume's filesystem (`du -x`); capacity, available and
// inode counts of the filesystem it is on by statfs.
//
// The content is the pod's, and its containers may swap a directory for a symlink
// while the walk runs: so no path inside the volume is resolved by name. Each
// directory is opened relative to its parent's open descriptor with O_NOFOLLOW (the
// /proc/self/fd/<fd>/<name> form of openat, as workers/volumes/safe-open.ts), each
// entry lstat()ed the same way, so a symlink counts as itself and leads nowhere. A
// walk deeper than VOLUME_WALK_MAX_DEPTH, with more entries than VOLUME_WALK_MAX_ENTRIES
// or past its deadline stops, and the volume is reported without figures.
import { constants } from 'node:fs';
import { lstat, open, opendir, statfs, type FileHandle } from 'node:fs/promises';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { atPath } from '../../workers/volumes/safe-open.js';

/** An upper bound on entries walked per volume: a pod cannot make the kubelet walk without end. */
export const VOLUME_WALK_MAX_ENTRIES = 1_000_000;
/** Directories open at once are one per level: a pod cannot exhaust the kubelet's descriptors. */
export const VOLUME_WALK_MAX_DEPTH = 128;
/** As upstream's du timeout: a walk taking longer than this is abandoned. */
export const VOLUME_WALK_TIMEOUT_MS = 60_000;
const BYTES_PER_BLOCK = 512;
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

export interface VolumeUsage {
  usedBytes: number;
  inodesUsed: number;
  capacityBytes: number;
  availableBytes: number;
  inodes: number;
  inodesFree: number;
}

export interface WalkLimits {
  maxEntries: number;
  maxDepth: number;
  deadlineMs: number;
}

function defaultLimits(): WalkLimits {
  return { maxEntries: VOLUME_WALK_MAX_ENTRIES, maxDepth: VOLUME_WALK_MAX_DEPTH, deadlineMs: Date.now() + VOLUME_WALK_TIMEOUT_MS };
}

/** SHARDLET_VOLUME_STATS_FAILED; the caller names the pod and volume. */
function walkStopped(why: string): ShardletError {
  return new ShardletError(ErrorCodes.VOLUME_STATS_FAILED, `volume usage not measured: ${why}`, { why });
}

class UsageWalk {
  usedBytes = 0;
  private readonly seenInodes = new Set<bigint>();

  constructor(
    private readonly device: bigint,
    private readonly limits: WalkLimits,
  ) {}

  get inodesUsed(): number {
    return this.seenInodes.size;
  }

  /** Counts an entry once; false for one already counted or on another filesystem. */
  count(stats: { dev: bigint; ino: bigint; blocks: bigint }): boolean {
    // Another filesystem mounted inside the volume (a nested mount) is not the volume's.
    if (stats.dev !== this.device || this.seenInodes.has(stats.ino)) return false;
    this.seenInodes.add(stats.ino);
    if (this.seenInodes.size > this.limits.maxEntries) throw walkStopped(`more than ${this.limits.maxEntries} entries`);
    if (Date.now() > this.limits.deadlineMs) throw walkStopped('the walk ran past its deadline');
    this.usedBytes += Number(stats.blocks) * BYTES_PER_BLOCK;
    return true;
  }

  /** The entries of the open directory, then each subdirectory opened through it, one level at a time. */
  async directory(handle: FileHandle, depth: number): Promise<void> {
    if (depth > this.limits.maxDepth) throw walkStopped(`deeper than ${this.limits.maxDepth} directories`);
    const subdirectories: Array<{ name: string; ino: bigint }> = [];
    const listing = await opendir(atPath(handle, '.'));
    for await (const entry of listing) {
      const stats = await lstat(atPath(handle, entry.name), { bigint: true }).catch(() => undefined);
      // Gone since it was listed: the pod changes its volume as it likes.
      if (!stats || !this.count(stats)) continue;
      if (stats.isDirectory()) subdirectories.push({ name: entry.name, ino: stats.ino });
    }
    for (const { name, ino } of subdirectories) {
      const child = await open(atPath(handle, name), DIRECTORY_FLAGS).catch(() => undefined);
      if (!child) continue; // Replaced by a symlink (ELOOP) or a file, or removed.
      try {
        // Replaced by another directory between the lstat and the open: counted already or not at all.
        if ((await child.stat({ bigint: true })).ino === ino) await this.directory(child, depth + 1);
      } finally {
        await child.close();
      }
    }
  }
}

/** Blocks and inodes below the directory `root` (itself included), on root's filesystem only, no symlink followed. */
export async function diskUsage(root: string, limits: WalkLimits = defaultLimits()): Promise<{ usedBytes: number; inodesUsed: number }> {
  const handle = await open(root, DIRECTORY_FLAGS);
  try {
    const top = await handle.stat({ bigint: true });
    const walk = new UsageWalk(top.dev, limits);
    walk.count(top);
    await walk.directory(handle, 1);
    return { usedBytes: walk.usedBytes, inodesUsed: walk.inodesUsed };
  } finally {
    await handle.close();
  }
}

/** The volume's usage and its filesystem's capacity. */
export async function volumeUsage(path: string, limits?: WalkLimits): Promise<VolumeUsage> {
  const [usage, fs] = await Promise.all([diskUsage(path, limits), statfs(path)]);
  return {
    ...usage,
    capacityBytes: fs.blocks * fs.bsize,
    availableBytes: fs.bavail * fs.bsize,
    inodes: fs.files,
    inodesFree: fs.ffree,
  };
}
