// The simulated runtime's side of the CRI log contract: each started container
// writes what container-output.ts says it prints, as CRI log records, to
// <sandbox log_directory>/<container log_path>, and ReopenContainerLog opens a new
// file there after the kubelet renamed the old one away. Cheap at 500 pods: one
// append at start (which also creates the file, as containerd does), one before
// an exit on its own, and a timer and an open file only for containers whose
// command loops printing something.
import { appendFile, open, type FileHandle } from 'node:fs/promises';
import { posix } from 'node:path';
import type { Logger } from 'pino';
import { formatConmonRecordTime, formatCriLogLine, formatRecordTime } from '../shared/logs/cri-log-format.js';
import { commandSubstitution, filesOf } from './container-files.js';
import { outputOf, type OutputLine } from './container-output.js';
import { unknown } from './sim-error.js';
import type { ContainerRecord, StateStore } from './state-store.js';

/** A looping container's open log file and its print timer. */
interface LoopingWriter {
  path: string;
  handle?: FileHandle;
  timer: NodeJS.Timeout;
  /** Writes in order: each waits for the one before. */
  chain: Promise<void>;
}

export class ContainerLogWriter {
  private readonly loopingById = new Map<string, LoopingWriter>();
  /** The start lines' write per container, until it landed: an exit waits for it. */
  private readonly startWritesById = new Map<string, Promise<void>>();

  constructor(
    private readonly store: StateStore,
    private readonly logger: Logger,
    /** How records carry their time: containerd's `Z`, or CRI-O's conmon's `+00:00` (personality.ts). */
    private readonly timeOffset: 'Z' | '+00:00' = 'Z',
  ) {}

  /** The container just started: its first lines, and its loop if it has one. */
  started(container: ContainerRecord): void {
    const path = this.logPathOf(container);
    if (!path) return;
    const files = filesOf(container, this.store.findSandbox(container.sandboxId));
    const output = outputOf(container.config.command, container.config.args, commandSubstitution(files));
    const written = this.append(path, output.atStart, container.id);
    this.startWritesById.set(container.id, written);
    void written.then(() => {
      if (this.startWritesById.get(container.id) === written) this.startWritesById.delete(container.id);
    });
    const loop = output.loop;
    if (!loop) return;
    const writer: LoopingWriter = { path, chain: Promise.resolve(), timer: setInterval(() => this.print(writer, loop.lines), loop.periodMs) };
    writer.timer.unref();
    // Opened after the start lines landed, so both go to the same file.
    writer.chain = this.reopenFile(writer, container.id);
    this.loopingById.set(container.id, writer);
  }

  /**
   * The container's command reached its end: everything it printed is in its log
   * before it shows as exited (a reader that sees EXITED finds every line).
   */
  async beforeExit(container: ContainerRecord): Promise<void> {
    await this.startWritesById.get(container.id);
    const path = this.logPathOf(container);
    if (!path) return;
    const files = filesOf(container, this.store.findSandbox(container.sandboxId));
    const { atExit } = outputOf(container.config.command, container.config.args, commandSubstitution(files));
    if (atExit.length > 0) await this.append(path, atExit, container.id);
  }

  /** The process is gone: no more lines. */
  exited(container: ContainerRecord): void {
    const writer = this.loopingById.get(container.id);
    if (!writer) return;
    clearInterval(writer.timer);
    this.loopingById.delete(container.id);
    writer.chain = writer.chain.then(() => writer.handle?.close()).catch(() => undefined);
  }

  /** CRI ReopenContainerLog: fails for a container that does not run, and then creates no file. */
  async reopen(container: ContainerRecord): Promise<void> {
    if (container.state !== 'CONTAINER_RUNNING') throw unknown(`failed to reopen container log "${container.id}": container is not running`);
    const writer = this.loopingById.get(container.id);
    if (writer) {
      writer.chain = writer.chain.then(() => this.reopenFile(writer, container.id));
      await writer.chain;
      return;
    }
    const path = this.logPathOf(container);
    if (path) await this.append(path, [], container.id);
  }

  /** Server shutdown. */
  forgetAll(): void {
    for (const writer of this.loopingById.values()) {
      clearInterval(writer.timer);
      void writer.chain.then(() => writer.handle?.close()).catch(() => undefined);
    }
    this.loopingById.clear();
    this.startWritesById.clear();
  }

  private print(writer: LoopingWriter, lines: OutputLine[]): void {
    const text = this.recordsOf(lines);
    writer.chain = writer.chain.then(async () => {
      await writer.handle?.write(text);
    }).catch((err: unknown) => this.logger.debug({ path: writer.path, err }, 'simulated container log write failed'));
  }

  private async reopenFile(writer: LoopingWriter, containerId: string): Promise<void> {
    await writer.handle?.close().catch(() => undefined);
    writer.handle = await open(writer.path, 'a').catch((err: unknown) => {
      this.logger.debug({ containerId, path: writer.path, err }, 'simulated container log not writable');
      return undefined;
    });
  }

  private append(path: string, lines: OutputLine[], containerId: string): Promise<void> {
    return appendFile(path, this.recordsOf(lines)).catch((err: unknown) => {
      // The log directory is the kubelet's to create; a CRI client that made none gets no logs, as with containerd.
      this.logger.debug({ containerId, path, err }, 'simulated container log not writable');
    });
  }

  /** <log_directory>/<log_path>, or '' when either is unset (no log file, as containerd). */
  private logPathOf(container: ContainerRecord): string {
    const directory = this.store.findSandbox(container.sandboxId)?.config.log_directory ?? '';
    return directory && container.config.log_path ? posix.join(directory, container.config.log_path) : '';
  }

  private recordsOf(lines: OutputLine[]): string {
    const time = this.timeOffset === 'Z' ? formatRecordTime(Date.now()) : formatConmonRecordTime(Date.now());
    return lines.map((line) => formatCriLogLine(time, line.stream, line.text)).join('');
  }
}
