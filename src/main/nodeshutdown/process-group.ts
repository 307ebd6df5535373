// The D-Bus tools graceful node shutdown runs (busctl, systemd-inhibit), each as a
// child in a process group of its own, so that stopping it reaches whatever it
// started and nothing is left running behind shardlet. A one-shot command is
// killed with its group when it overruns; a long-lived one is stopped by ending
// its stdin first (the tools are set up to exit on that, which also covers
// shardlet dying without a word) and then by signals to its group.
import { spawn, type ChildProcess } from 'node:child_process';
import { finishedWithin } from '../../shared/finished-within.js';

/** How long a stopped child's group gets between SIGTERM and SIGKILL. */
export const STOP_GRACE_MS = 2_000;
/** The most of a long-lived child's stderr kept (its end), for the message when it exits. */
const STDERR_KEPT_CHARS = 8_192;

export interface CommandResult {
  /** null when a signal ended it. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** The command's own program is not installed (spawn's ENOENT). */
export function isCommandMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === 'ENOENT';
}

/**
 * Runs a command to its end in a process group of its own, stdin closed; rejects
 * only when it cannot start (ENOENT: see isCommandMissing) or overran `timeoutMs`,
 * in which case its whole group was killed.
 */
export function runCommand(file: string, args: readonly string[], timeoutMs: number): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const timer = setTimeout(() => {
      signalGroup(child, 'SIGKILL');
      reject(new Error(`${file} ${args.join(' ')} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      // Whatever it left in its group goes with it.
      signalGroup(child, 'SIGKILL');
      resolve({ exitCode, stdout, stderr });
    });
  });
}

/**
 * Runs "$@" until it exits or the shell's stdin reaches its end: a watcher reads
 * stdin and then ends the command. The watcher's own output goes nowhere, so the
 * caller sees the end of stdout when the command ends.
 */
const EXIT_WITH_STDIN_SCRIPT = [
  'exec 3<&0 0</dev/null',
  '"$@" 3<&- &',
  'command=$!',
  '(cat <&3 >/dev/null 2>&1; kill "$command" 2>/dev/null) >/dev/null 2>&1 &',
  'exec 3<&-',
  'wait "$command"',
].join('\n');

export interface GroupChildHandlers {
  /** Each non-empty line of stdout. */
  onLine(line: string): void;
  /** Everything on stderr so far, each time more came. */
  onStderr?(stderrSoFar: string): void;
}

/** A long-lived child in its own process group whose stdout is read line by line. */
export class GroupChild {
  /** Resolves once the child exited (or could not start), with what it wrote to stderr. */
  readonly exited: Promise<{ exitCode: number | null; stderr: string }>;
  private readonly child: ChildProcess;
  private stderr = '';
  private done = false;

  /**
   * With `exitWithStdin`, the command runs under a small shell that ends it when
   * its stdin closes, for tools that would otherwise outlive a shardlet that died.
   */
  constructor(file: string, args: readonly string[], handlers: GroupChildHandlers, exitWithStdin = false) {
    const [program, argv] = exitWithStdin ? ['/bin/sh', ['-c', EXIT_WITH_STDIN_SCRIPT, 'sh', file, ...args]] : [file, args];
    this.child = spawn(program, argv, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    // Its stdin is only there to close: a write error when it is already gone means nothing.
    this.child.stdin!.on('error', () => undefined);
    let partial = '';
    this.child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') handlers.onLine(line);
    });
    this.child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      this.stderr = (this.stderr + text).slice(-STDERR_KEPT_CHARS);
      handlers.onStderr?.(this.stderr);
    });
    this.exited = new Promise((resolve) => {
      const finish = (exitCode: number | null) => {
        if (this.done) return;
        this.done = true;
        signalGroup(this.child, 'SIGKILL');
        resolve({ exitCode, stderr: this.stderr.trim() });
      };
      this.child.once('error', (err) => {
        this.stderr += (err as Error).message;
        finish(null);
      });
      this.child.once('close', (exitCode) => finish(exitCode));
    });
  }

  /** Its process (group) ID; undefined when it could not start. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Ends its stdin, then SIGTERM and at last SIGKILL to its group; resolves once it exited. */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    if (this.done) return;
    this.child.stdin!.end();
    if (await finishedWithin(this.exited, graceMs)) return;
    signalGroup(this.child, 'SIGTERM');
    if (await finishedWithin(this.exited, graceMs)) return;
    signalGroup(this.child, 'SIGKILL');
    await this.exited;
  }
}

/** Signals the child's process group; a group already gone is no error. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}
