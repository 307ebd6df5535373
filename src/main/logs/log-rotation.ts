// Rotating one container's log file, as upstream's containerLogManager.rotateLog
// (pkg/kubelet/logs/container_log_manager.go): drop leftovers of an interrupted
// compression, drop the oldest rotated files so that at most maxFiles remain
// with the live one, gzip the rotated files not yet compressed, then rename the
// live file to <log>.<timestamp> and ask the runtime to reopen it. If the reopen
// fails the rename is undone, so the runtime keeps writing where the kubelet reads.
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export const COMPRESSED_SUFFIX = '.gz';
/** A compression in progress; one found at the next rotation was interrupted and is removed. */
export const TMP_SUFFIX = '.tmp';

export interface RotationPolicy {
  /** Files kept including the live one (upstream's MaxFiles, >= 2). */
  maxFiles: number;
}

/** upstream's rotated-file timestamp: 20060102-150405 in local time. */
export function rotationTimestamp(now: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
}

/** The rotated files of `log` (<log>.*), oldest first: their timestamps sort as their names do. */
export async function rotatedFiles(log: string): Promise<string[]> {
  const prefix = `${basename(log)}.`;
  const names = await readdir(dirname(log)).catch(() => [] as string[]);
  return names.filter((name) => name.startsWith(prefix)).sort().map((name) => join(dirname(log), name));
}

/** Rotates `log` of container `containerId`; `reopen` is CRI ReopenContainerLog. */
export async function rotateLog(log: string, policy: RotationPolicy, reopen: () => Promise<void>, now = new Date()): Promise<void> {
  let rotated = await removeUnusedLogs(await rotatedFiles(log));
  rotated = await removeExcessLogs(rotated, policy);
  for (const file of rotated) {
    if (!file.endsWith(COMPRESSED_SUFFIX)) await compressLog(file);
  }
  const target = `${log}.${rotationTimestamp(now)}`;
  await rename(log, target);
  try {
    await reopen();
  } catch (err) {
    // The runtime still writes to the renamed file: give it back its name.
    await rename(target, log).catch(() => undefined);
    throw err;
  }
}

/** Removes interrupted compressions (.tmp) and originals whose .gz already exists; returns what is left. */
async function removeUnusedLogs(files: string[]): Promise<string[]> {
  const names = new Set(files);
  const kept: string[] = [];
  for (const file of files) {
    if (file.endsWith(TMP_SUFFIX) || (!file.endsWith(COMPRESSED_SUFFIX) && names.has(`${file}${COMPRESSED_SUFFIX}`))) {
      await unlink(file).catch(() => undefined);
    } else {
      kept.push(file);
    }
  }
  return kept;
}

/** Keeps the newest maxFiles-2 rotated files: with the file about to be rotated and the live one, maxFiles. */
async function removeExcessLogs(files: string[], policy: RotationPolicy): Promise<string[]> {
  const keep = Math.max(policy.maxFiles - 2, 0);
  const excess = files.length - keep;
  for (const file of files.slice(0, Math.max(excess, 0))) await unlink(file).catch(() => undefined);
  return files.slice(Math.max(excess, 0));
}

/** gzip to <file>.gz.tmp, rename to <file>.gz, remove the original: a crash leaves no half file under the final name. */
async function compressLog(file: string): Promise<void> {
  const compressed = `${file}${COMPRESSED_SUFFIX}`;
  const temporary = `${compressed}${TMP_SUFFIX}`;
  await pipeline(createReadStream(file), createGzip(), createWriteStream(temporary));
  await rename(temporary, compressed);
  await unlink(file);
}
