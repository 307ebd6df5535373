// A volume's usage as du -x counts it, on a volume whose content is hostile: symlinks
// to the host's root and to other directories are counted as links and never
// followed, hard links count once, and walks too deep or too large stop.
import assert from 'node:assert/strict';
import { linkSync, lstatSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { diskUsage, volumeUsage, type WalkLimits } from '../../../src/main/stats/volume-usage.js';
import { ErrorCodes } from '../../../src/shared/errors.js';

const BIG_BYTES = 4 * 1024 * 1024;

function blocksOf(...paths: string[]): number {
  return paths.reduce((sum, path) => sum + lstatSync(path).blocks * 512, 0);
}

function limits(overrides: Partial<{ maxEntries: number; maxDepth: number }> = {}): WalkLimits {
  return { maxEntries: 1000, maxDepth: 16, deadlineMs: Date.now() + 60_000, ...overrides };
}

test('blocks and inodes of everything in the volume, each inode once; symlinks counted as themselves, never followed', async () => {
  const base = mkdtempSync(join(tmpdir(), 'shardlet-du-'));
  const outside = join(base, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'big'), Buffer.alloc(BIG_BYTES, 1));
  const volume = join(base, 'volume');
  mkdirSync(join(volume, 'sub'), { recursive: true });
  writeFileSync(join(volume, 'a'), Buffer.alloc(8192, 1));
  writeFileSync(join(volume, 'sub', 'b'), Buffer.alloc(4096, 1));
  linkSync(join(volume, 'a'), join(volume, 'a-again'));
  symlinkSync(outside, join(volume, 'escape'));
  symlinkSync('/', join(volume, 'host-root'));
  symlinkSync(join(outside, 'big'), join(volume, 'sub', 'big-link'));

  const usage = await diskUsage(volume, limits());
  const counted = ['', 'a', 'sub', 'sub/b', 'escape', 'host-root', 'sub/big-link'].map((path) => join(volume, path));
  assert.equal(usage.inodesUsed, counted.length, 'the hard link is the same inode as a');
  assert.equal(usage.usedBytes, blocksOf(...counted));
  assert.ok(usage.usedBytes < BIG_BYTES, `nothing behind a symlink is counted (${usage.usedBytes} bytes)`);

  const streamed = await diskUsage(volume, { ...limits(), listAtOnceMaxBytes: 0n });
  assert.deepEqual(streamed, usage, 'every directory streamed (as a huge one would be) counts the same');

  const withCapacity = await volumeUsage(volume, limits());
  assert.ok(withCapacity.capacityBytes > 0 && withCapacity.inodes > 0, 'the filesystem’s capacity by statfs');
  assert.equal(withCapacity.usedBytes, usage.usedBytes);
});

test('a volume whose directory is itself a symlink is not measured', async () => {
  const base = mkdtempSync(join(tmpdir(), 'shardlet-du-'));
  symlinkSync('/', join(base, 'volume'));
  // O_NOFOLLOW with O_DIRECTORY: the kernel answers ENOTDIR (or ELOOP) rather than open what the link names.
  await assert.rejects(diskUsage(join(base, 'volume'), limits()), (err: NodeJS.ErrnoException) => ['ENOTDIR', 'ELOOP'].includes(err.code ?? ''));
});

test('a walk deeper or larger than its limits stops with SHARDLET_VOLUME_STATS_FAILED', async () => {
  const base = mkdtempSync(join(tmpdir(), 'shardlet-du-'));
  mkdirSync(join(base, 'deep', '1', '2', '3', '4'), { recursive: true });
  await assert.rejects(diskUsage(join(base, 'deep'), limits({ maxDepth: 3 })), { code: ErrorCodes.VOLUME_STATS_FAILED });
  assert.equal((await diskUsage(join(base, 'deep'), limits({ maxDepth: 5 }))).inodesUsed, 5);
  mkdirSync(join(base, 'wide'));
  for (let i = 0; i < 10; i++) writeFileSync(join(base, 'wide', `f${i}`), '');
  await assert.rejects(diskUsage(join(base, 'wide'), limits({ maxEntries: 5 })), { code: ErrorCodes.VOLUME_STATS_FAILED });
  await assert.rejects(diskUsage(join(base, 'wide'), { ...limits({ maxEntries: 5 }), listAtOnceMaxBytes: 0n }), { code: ErrorCodes.VOLUME_STATS_FAILED });
});
