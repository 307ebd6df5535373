// What a simulated container prints, read off its command line, so the sim's log
// files hold what the same busybox command would print on containerd. Rules, for
// `sh -c SCRIPT` (statements split at ; && || and newlines) or a bare `echo`:
//   - `echo` statements before the first `sleep` print when the process starts;
//   - a `while`/`until` loop prints its body's echoes once per iteration, one
//     iteration per total of the body's sleeps (LOOP_PERIOD_WITHOUT_SLEEP_MS if none);
//   - echoes after a sleep (outside a loop) print just before the process exits
//     on its own (not when it is killed);
//   - `echo ... >&2` prints to stderr; `echo ... > file` prints nothing.
// Variables are printed as written: the sim has no shell. A command substitution
// `$(...)` is replaced by what the given Substitution answers for it (the
// container's `id`, `hostname`, a file it can read), else printed as written.

import type { LogStream } from '../shared/logs/cri-log-format.js';

/** A loop with echo but no sleep would spin; the sim prints one iteration per this period instead. */
export const LOOP_PERIOD_WITHOUT_SLEEP_MS = 1_000;

export interface OutputLine {
  stream: LogStream;
  text: string;
}

export interface ProcessOutput {
  atStart: OutputLine[];
  /** Printed once per period while the process runs. */
  loop?: { lines: OutputLine[]; periodMs: number };
  atExit: OutputLine[];
}

const SHELLS = new Set(['sh', 'ash', 'bash', 'dash']);

/** What a command substitution's command prints, or undefined when the sim cannot tell. */
export type Substitution = (command: string) => string | undefined;

export function outputOf(command: readonly string[], args: readonly string[], substitute: Substitution = () => undefined): ProcessOutput {
  const argv = [...command, ...args];
  const program = argv[0]?.slice(argv[0].lastIndexOf('/') + 1) ?? '';
  // A bare echo gets its arguments as they are: no shell splits or unquotes them.
  if (program === 'echo') return { atStart: [{ stream: 'stdout', text: argv.slice(1).join(' ') }], atExit: [] };
  if (!SHELLS.has(program) || argv[1] !== '-c' || argv[2] === undefined) return { atStart: [], atExit: [] };
  return scriptOutput(statementsOf(argv[2]).map((statement) => substituted(statement, substitute)));
}

/** The statement with each `$(command)` replaced by its output, less trailing newlines, as sh does. */
function substituted(statement: string, substitute: Substitution): string {
  return statement.replace(/\$\(([^()]*)\)/g, (written, inner: string) => substitute(inner.trim())?.replace(/\n+$/, '') ?? written);
}

function scriptOutput(statements: string[]): ProcessOutput {
  const output: ProcessOutput = { atStart: [], atExit: [] };
  let slept = false;
  for (let index = 0; index < statements.length; index++) {
    const statement = statements[index]!;
    if (/^(while|until)\b/.test(statement)) {
      const body: string[] = [];
      for (index++; index < statements.length && statements[index] !== 'done'; index++) {
        body.push(statements[index]!.replace(/^do\s+/, ''));
      }
      const lines = body.map(echoLine).filter(isLine);
      if (lines.length === 0) return output;
      const sleepMs = body.reduce((total, part) => total + sleepMsOf(part), 0);
      output.loop = { lines, periodMs: sleepMs > 0 ? sleepMs : LOOP_PERIOD_WITHOUT_SLEEP_MS };
      return output; // the loop runs until the container is stopped
    }
    if (sleepMsOf(statement) > 0) slept = true;
    const line = echoLine(statement);
    if (line) (slept ? output.atExit : output.atStart).push(line);
  }
  return output;
}

function isLine(line: OutputLine | undefined): line is OutputLine {
  return line !== undefined;
}

/** The line an `echo` statement prints, or undefined when the statement is not an echo to stdout/stderr. */
function echoLine(statement: string): OutputLine | undefined {
  const words = wordsOf(statement);
  if (words[0] !== 'echo') return undefined;
  let stream: LogStream = 'stdout';
  const printed: string[] = [];
  for (const word of words.slice(1)) {
    if (word === '>&2' || word === '1>&2') stream = 'stderr';
    else if (word.startsWith('>') || word.startsWith('1>')) return undefined;
    else if (printed.length === 0 && (word === '-n' || word === '-e')) continue;
    else printed.push(word);
  }
  return { stream, text: printed.join(' ') };
}

function sleepMsOf(statement: string): number {
  const match = /^sleep\s+(\d+(?:\.\d+)?)([smhd]?)$/.exec(statement.trim());
  if (!match) return 0;
  const unitSeconds: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };
  return Number(match[1]) * unitSeconds[match[2]!]! * 1000;
}

/** Top-level statements of a script: split at ; && || | and newlines outside quotes, trimmed, empty ones dropped. */
export function statementsOf(script: string): string[] {
  const statements: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let index = 0; index < script.length; index++) {
    const char = script[index]!;
    if (quote) {
      if (char === quote) quote = undefined;
      current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      current += char;
    } else if (char === ';' || char === '\n' || char === '&' || char === '|') {
      // `>&2` is a redirection, not a separator.
      if (char === '&' && current.endsWith('>')) current += char;
      else {
        statements.push(current.trim());
        current = '';
      }
    } else {
      current += char;
    }
  }
  statements.push(current.trim());
  return statements.filter((statement) => statement !== '');
}

/** Shell words with quotes removed ('…' and "…"); no expansion. */
function wordsOf(statement: string): string[] {
  const words: string[] = [];
  let current: string | undefined;
  let quote: string | undefined;
  for (const char of statement) {
    if (quote) {
      if (char === quote) quote = undefined;
      else current = (current ?? '') + char;
    } else if (char === "'" || char === '"') {
      quote = char;
      current ??= '';
    } else if (char === ' ' || char === '\t') {
      if (current !== undefined) words.push(current);
      current = undefined;
    } else {
      current = (current ?? '') + char;
    }
  }
  if (current !== undefined) words.push(current);
  return words;
}
