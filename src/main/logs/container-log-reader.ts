// Reads one container's CRI log file for the kubelet API, as upstream's ReadLogs
// (pkg/kubelet/kuberuntime/logs): from the start or the last `tailLines`
// records, through LogOutput's filters, and with `follow` on past the end: new
// records as the runtime writes them, across a rotation (the file renamed away and
// a new one opened at the path), until the client goes away or the container has
// exited and everything was read. Reads are async chunks: a big file never holds
// the main thread for more than one chunk's parse.
import { watch, type FSWatcher } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { parseCriLogLine } from '../../shared/logs/cri-log-format.js';
import type { LogReadOptions } from './log-options.js';
import { LogOutput } from './log-output.js';

export const READ_CHUNK_BYTES = 64 * 1024;
/** While following, the longest wait for a write before looking again (a missed watch event costs no more). */
export const FOLLOW_POLL_MS = 1_000;
/** While following, how often at most the container's state is asked of the runtime. */
export const FOLLOW_STATE_CHECK_MS = 1_000;

const NEWLINE = 0x0a;

export interface LogReadTarget {
  /** Absolute path of the container's live log file (ContainerStatus.log_path). */
  path: string;
  /** Whether the container still runs: following ends when it does not and the file is drained. */
  isRunning(): Promise<boolean>;
  /** Sends bytes to the client; resolves when more may be sent (backpressure). */
  write(chunk: Buffer): Promise<void>;
  signal: AbortSignal;
}

export async function readContainerLog(target: LogReadTarget, options: LogReadOptions): Promise<void> {
  const output = new LogOutput(options);
  let file = await openLog(target.path);
  try {
    let position = options.tailLines >= 0 ? await tailOffset(file.handle, options.tailLines) : 0;
    let pending: Buffer = Buffer.alloc(0);
    let lastStateCheckMs = 0;
    let finalPass = false;
    const buffer = Buffer.alloc(READ_CHUNK_BYTES);
    while (!target.signal.aborted && !output.exhausted) {
      const { bytesRead } = await file.handle.read(buffer, 0, buffer.length, position);
      if (bytesRead > 0) {
        position += bytesRead;
        pending = await emitLines(Buffer.concat([pending, buffer.subarray(0, bytesRead)]), output, target);
        continue;
      }
      // End of the data written so far.
      if (!options.follow || finalPass) {
        if (!options.follow && pending.length > 0) await emitRecord(pending, output, target);
        return;
      }
      const rotated = await replacedFile(target.path, file.ino);
      if (rotated) {
        // The runtime writes to the new file only after the old one was renamed away and fully written.
        await file.close();
        file = rotated;
        position = 0;
        pending = Buffer.alloc(0);
        continue;
      }
      if (Date.now() - lastStateCheckMs >= FOLLOW_STATE_CHECK_MS) {
        lastStateCheckMs = Date.now();
        // One more read after the container is gone: what it wrote last may have landed after our read.
        if (!(await target.isRunning())) {
          finalPass = true;
          continue;
        }
      }
      await file.changed(target.signal);
    }
  } finally {
    await file.close();
  }
}

/** Writes every complete line of `data` (one write per chunk read); returns the incomplete rest. */
async function emitLines(data: Buffer, output: LogOutput, target: LogReadTarget): Promise<Buffer> {
  const rendered: Buffer[] = [];
  let start = 0;
  for (let end = data.indexOf(NEWLINE); end >= 0 && !output.exhausted; end = data.indexOf(NEWLINE, start)) {
    const bytes = renderRecord(data.subarray(start, end + 1), output);
    if (bytes) rendered.push(bytes);
    start = end + 1;
  }
  if (rendered.length > 0) await target.write(rendered.length === 1 ? rendered[0]! : Buffer.concat(rendered));
  return Buffer.from(data.subarray(start));
}

async function emitRecord(line: Buffer, output: LogOutput, target: LogReadTarget): Promise<void> {
  const bytes = renderRecord(line, output);
  if (bytes) await target.write(bytes);
}

/** A line that is not a record is skipped, as upstream logs and skips it. */
function renderRecord(line: Buffer, output: LogOutput): Buffer | undefined {
  const record = parseCriLogLine(line);
  if (!record) return undefined;
  const bytes = output.render(record);
  return bytes && bytes.length > 0 ? bytes : undefined;
}

/**
 * Offset of the start of the last `lines` complete lines (an unterminated last
 * line is not counted, as upstream's tail), read backwards in chunks.
 */
export async function tailOffset(handle: FileHandle, lines: number): Promise<number> {
  const { size } = await handle.stat();
  const buffer = Buffer.alloc(READ_CHUNK_BYTES);
  let newlinesSeen = 0;
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - buffer.length);
    const { bytesRead } = await handle.read(buffer, 0, end - start, start);
    for (let index = bytesRead - 1; index >= 0; index--) {
      if (buffer[index] !== NEWLINE) continue;
      // The newline ending the file closes the last line; the (lines+1)-th one ends the line before the tail.
      newlinesSeen += 1;
      if (newlinesSeen === lines + 1) return start + index + 1;
    }
    end = start;
  }
  return 0;
}

interface OpenLog {
  handle: FileHandle;
  ino: number;
  /** Resolves when the file was written to or renamed, after FOLLOW_POLL_MS at the latest, or on abort. */
  changed(signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

async function openLog(path: string): Promise<OpenLog> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    // upstream's "failed to open log file" message.
    throw new ShardletError(ErrorCodes.CONTAINER_LOG_READ_FAILED, `failed to open log file ${JSON.stringify(path)}: ${(err as Error).message}`, { path });
  }
  const { ino } = await handle.stat();
  let watcher: FSWatcher | undefined;
  let wake: (() => void) | undefined;
  let dirty = false;
  const notify = () => {
    dirty = true;
    wake?.();
  };
  return {
    handle,
    ino,
    changed(signal) {
      // The watcher starts with the first wait: a plain read never needs one.
      if (!watcher) {
        try {
          watcher = watch(path, { persistent: false }, notify);
          watcher.on('error', () => undefined);
        } catch {
          // The file went away between our read and here: the poll finds the new one.
        }
      }
      if (dirty || signal.aborted) {
        dirty = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          wake = undefined;
          dirty = false;
          resolve();
        };
        const timer = setTimeout(done, FOLLOW_POLL_MS);
        signal.addEventListener('abort', done, { once: true });
        wake = done;
      });
    },
    async close() {
      watcher?.close();
      await handle.close().catch(() => undefined);
    },
  };
}

/** The new file at `path` when it is no longer the one we hold open (rotated), else undefined. */
async function replacedFile(path: string, ino: number): Promise<OpenLog | undefined> {
  const current = await stat(path).catch(() => undefined);
  if (!current || current.ino === ino) return undefined;
  return openLog(path).catch(() => undefined);
}
