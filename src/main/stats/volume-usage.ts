// What a pod volume's directory uses, measured as upstream's MetricsDu does
// (pkg/volume/metrics_du.go over pkg/volume/util/fs DiskUsage): bytes as the blocks
// allocated (st_blocks × 512) and inodes as the entries found, each inode once (hard
// links), without leaving the volume's filesystem (`du -x`); capacity, available and
// inode counts of the filesystem it is on by statfs.
//
// The content is the pod's, and its containers may swap a directory for a symlink
// while the walk runs: so no path inside the volume is resolved by name. Each
// directory is opened relative to its parent's open descriptor with O_NOFOLLOW (the
// /proc/self/fd/<fd>/<name> form of openat, src/shared/open-at.ts), each
// entry lstat()ed the same way, so a symlink counts as itself and leads nowhere. A
// walk deeper than VOLUME_WALK_MAX_DEPTH, with more entries than VOLUME_WALK_MAX_ENTRIES
// or past its deadline stops, and the volume is reported without figures.
import { lstat, open, opendir, readdir, statfs, type FileHandle } from 'node:fs/promises';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { atPath, DIRECTORY_NOFOLLOW_FLAGS } from '../../shared/open-at.js';

/** An upper bound on entries walked per volume: a pod cannot make the kubelet walk without end. */
export const VOLUME_WALK_MAX_ENTRIES = 1_000_000;
/** Directories open at once are one per level: a pod cannot exhaust the kubelet's descriptors. */
export const VOLUME_WALK_MAX_DEPTH = 128;
/** As upstream's du timeout: a walk taking longer than this is abandoned. */
export const VOLUME_WALK_TIMEOUT_MS = 60_000;
const BYTES_PER_BLOCK = 512;
/** Entries of one directory lstat()ed at once, and read from it per call. */
const LSTATS_AT_ONCE = 32;
const DIRECTORY_READ_ENTRIES = 128;
/**
 * A directory's size grows with its names (ext4 and xfs: a block per hundred or so;
 * tmpfs: 20 bytes each): up to this it is listed in one call, beyond it streamed.
 */
const READDIR_MAX_DIRECTORY_BYTES = 256n * 1024n;

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
  /** Directories larger than this are streamed rather than listed at once (READDIR_MAX_DIRECTORY_BYTES). */
  listAtOnceMaxBytes?: bigint;
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

  /** Counts the named entries of the open directory, lstat()ed together; the subdirectories among them are added to `subdirectories`. */
  private async entries(handle: FileHandle, names: string[], subdirectories: Array<{ name: string; ino: bigint; sizeBytes: bigint }>): Promise<void> {
    // Gone since it was listed (undefined): the pod changes its volume as it likes.
    const statsByIndex = await Promise.all(names.map((name) => lstat(atPath(handle, name), { bigint: true }).catch(() => undefined)));
    names.forEach((name, index) => {
      const stats = statsByIndex[index];
      if (stats && this.count(stats) && stats.isDirectory()) subdirectories.push({ name, ino: stats.ino, sizeBytes: stats.size });
    });
  }

  /** The entries of the open directory, then each subdirectory opened through it, one level at a time. */
  async directory(handle: FileHandle, depth: number, sizeBytes: bigint): Promise<void> {
    if (depth > this.limits.maxDepth) throw walkStopped(`deeper than ${this.limits.maxDepth} directories`);
    const subdirectories: Array<{ name: string; ino: bigint; sizeBytes: bigint }> = [];
    if (sizeBytes <= (this.limits.listAtOnceMaxBytes ?? READDIR_MAX_DIRECTORY_BYTES)) {
      // One scandir for the usual small directory: half the main thread's CPU of streaming it.
      const names = await readdir(atPath(handle, '.'));
      for (let start = 0; start < names.length; start += LSTATS_AT_ONCE) await this.entries(handle, names.slice(start, start + LSTATS_AT_ONCE), subdirectories);
    } else {
      // Streamed: a directory of millions of names must not be held at once.
      const batch: string[] = [];
      for await (const entry of await opendir(atPath(handle, '.'), { bufferSize: DIRECTORY_READ_ENTRIES })) {
        batch.push(entry.name);
        if (batch.length === LSTATS_AT_ONCE) await this.entries(handle, batch.splice(0), subdirectories);
      }
      await this.entries(handle, batch, subdirectories);
    }
    for (const { name, ino, sizeBytes: childSizeBytes } of subdirectories) {
      const child = await open(atPath(handle, name), DIRECTORY_NOFOLLOW_FLAGS).catch(() => undefined);
      if (!child) continue; // Replaced by a symlink (ELOOP) or a file, or removed.
      try {
        // Replaced by another directory between the lstat and the open: counted already or not at all.
        if ((await child.stat({ bigint: true })).ino === ino) await this.directory(child, depth + 1, childSizeBytes);
      } finally {
        await child.close();
      }
    }
  }
}

/** Blocks and inodes below the directory `root` (itself included), on root's filesystem only, no symlink followed. */
export async function diskUsage(root: string, limits: WalkLimits = defaultLimits()): Promise<{ usedBytes: number; inodesUsed: number }> {
  const handle = await open(root, DIRECTORY_NOFOLLOW_FLAGS);
  try {
    const top = await handle.stat({ bigint: true });
    const walk = new UsageWalk(top.dev, limits);
    walk.count(top);
    await walk.directory(handle, 1, top.size);
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
