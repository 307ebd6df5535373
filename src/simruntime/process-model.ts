// What a simulated container's process does, read off its command line. The sim
// runs no process; it only needs containers to exit, crash and resist SIGTERM the
// way the same busybox command would on containerd, so restart policies, crash
// loops and grace periods can be tested.
//
// Rules, applied to command and args joined with spaces:
//   - `while` / `until` loops run until stopped (whatever they contain);
//   - `exit N` exits with N after the total of its `sleep`s (50 ms if none):
//     `sh -c "sleep 1; exit 1"` runs about 1 s then exits 1;
//   - `sleep N` with no exit exits 0 after N s (`sleep infinity` never);
//   - a bare `true` exits 0 at once, a bare `false` exits 1 at once, and so does
//     (with 0) a bare one-shot utility such as `echo hello` or `id -u`;
//   - a statement that never ends on its own (`top`, `tail -f`, `yes`, `dd` from
//     /dev/zero or /dev/urandom without `count=`, a web server) runs until stopped,
//     as critest's pause command `sh -c top` does;
//   - any other shell script (`sh -c '...'`) does its work and exits 0 (50 ms),
//     as `sh -c 'echo ready > /work/state'` does in an init container;
//   - anything else (an image's own entrypoint, a server binary) runs until stopped.
// What the process holds in memory is read too (`dd bs=20M` holds 20 MiB, `tail
// /dev/zero` grows without end), so that a container over its memory limit is
// OOM-killed (container-lifecycle.ts), as critest's "Container OOM" expects.
// `trap ... TERM` makes the process ignore SIGTERM: a stop then waits the whole
// grace period and kills it (137). Otherwise SIGTERM ends it at once (143), as a
// shell that dies of signal 15 reports.

import { statementsOf } from './container-output.js';

/** Exit code of a process killed by SIGKILL (128 + 9). */
export const EXIT_CODE_SIGKILL = 137;
/** Exit code of a process killed by SIGTERM (128 + 15). */
export const EXIT_CODE_SIGTERM = 143;
/** How long `exit N` without a sleep runs. */
export const BARE_EXIT_RUN_MS = 50;
/** How long `true` / `false` run: "at once", but after StartContainer has answered. */
export const INSTANT_EXIT_RUN_MS = 10;

export interface ProcessBehaviour {
  /** Absent when the process runs until it is stopped. */
  exit?: { code: number; afterMs: number };
  /** True when the command traps SIGTERM, so only SIGKILL stops it. */
  ignoresSigterm: boolean;
  /** Bytes the process holds once it runs (Infinity: grows until killed); absent when the command says nothing of it. */
  memoryBytes?: number;
}

export interface StopOutcome {
  /** How long after the stop request the process is gone. */
  afterMs: number;
  exitCode: number;
}

const LOOP_PATTERN = /\b(while|until)\b/;
const EXIT_PATTERN = /\bexit\s+(\d{1,3})\b/g;
const SLEEP_PATTERN = /\bsleep\s+(\S+)/g;
const TRAP_PATTERN = /\btrap\s+(?:'[^']*'|"[^"]*"|\S+)/g;
const TRAP_TERM_PATTERN = /\btrap\b[^;]*\b(TERM|SIGTERM|15)\b/;
const TRUE_PATTERN = /(^|[\s;&|/])true($|[\s;&|])/;
const FALSE_PATTERN = /(^|[\s;&|/])false($|[\s;&|])/;

export function behaviourOf(command: readonly string[], args: readonly string[]): ProcessBehaviour {
  const argv = [...command, ...args];
  const memoryBytes = memoryDemandBytes(argv);
  const behaviour = exitBehaviour(argv);
  return memoryBytes === undefined ? behaviour : { ...behaviour, memoryBytes };
}

function exitBehaviour(argv: readonly string[]): ProcessBehaviour {
  const line = argv.join(' ');
  const ignoresSigterm = TRAP_TERM_PATTERN.test(line);
  // A trap's handler text (e.g. 'exit 0') is not what the main program does.
  const program = line.replace(TRAP_PATTERN, 'trap');
  if (LOOP_PATTERN.test(program)) return { ignoresSigterm };
  const script = isShellScript(argv) ? (argv[2] ?? '').replace(TRAP_PATTERN, 'trap') : program;
  if (statementsOf(script).some(neverEnds)) return { ignoresSigterm };
  const sleepMs = totalSleepMs(program);
  const exitCode = lastExitCode(program);
  if (exitCode !== undefined) {
    if (sleepMs === Infinity) return { ignoresSigterm };
    return { exit: { code: exitCode, afterMs: sleepMs > 0 ? sleepMs : BARE_EXIT_RUN_MS }, ignoresSigterm };
  }
  if (sleepMs === Infinity) return { ignoresSigterm };
  if (sleepMs > 0) return { exit: { code: 0, afterMs: sleepMs }, ignoresSigterm };
  if (TRUE_PATTERN.test(program)) return { exit: { code: 0, afterMs: INSTANT_EXIT_RUN_MS }, ignoresSigterm };
  if (FALSE_PATTERN.test(program)) return { exit: { code: 1, afterMs: INSTANT_EXIT_RUN_MS }, ignoresSigterm };
  if (isShellScript(argv)) return { exit: { code: 0, afterMs: BARE_EXIT_RUN_MS }, ignoresSigterm };
  if (ONE_SHOT_PROGRAMS.has(programName(argv[0]))) return { exit: { code: 0, afterMs: INSTANT_EXIT_RUN_MS }, ignoresSigterm };
  return { ignoresSigterm };
}

/** busybox utilities that print something and end when run as the container's command. */
const ONE_SHOT_PROGRAMS = new Set(['echo', 'printf', 'id', 'whoami', 'hostname', 'env', 'printenv', 'date', 'uname', 'ls', 'pwd', 'cat']);
/** Programs that never end on their own. */
const ENDLESS_PROGRAMS = new Set(['top', 'yes', 'watch', 'httpd', 'nginx']);
const ENDLESS_DEVICES = /\bif=\/dev\/(zero|u?random)\b/;

function programName(word: string | undefined): string {
  return word ? word.slice(word.lastIndexOf('/') + 1) : '';
}

/** A statement that runs until it is stopped. */
function neverEnds(statement: string): boolean {
  const words = statement.split(/\s+/);
  const name = programName(words[0]);
  if (ENDLESS_PROGRAMS.has(name)) return true;
  if (name === 'tail') return words.includes('-f') || words.includes('-F');
  if (name === 'nc') return words.some((word) => /^-\w*l/.test(word));
  return name === 'dd' && ENDLESS_DEVICES.test(statement) && !/\bcount=/.test(statement);
}

const SIZE_UNITS: Record<string, number> = { '': 1, c: 1, w: 2, b: 512, k: 1024, K: 1024, M: 1024 ** 2, G: 1024 ** 3 };

/** What the command holds in memory: dd's block buffer (`bs=20M`), or no end for `tail /dev/zero`. */
function memoryDemandBytes(argv: readonly string[]): number | undefined {
  const line = argv.join(' ');
  if (/\btail\s+(-\S+\s+)*\/dev\/zero\b/.test(line)) return Infinity;
  const blockSize = /\bdd\b[^;|&]*\b(?:i?bs)=(\d+)([cwbkKMG]?)/.exec(line);
  return blockSize ? Number(blockSize[1]) * SIZE_UNITS[blockSize[2]] : undefined;
}

const SHELLS = new Set(['sh', 'ash', 'bash', 'dash']);

/** `sh -c SCRIPT` (or /bin/sh, bash, …): a script that ends when its last command does. */
function isShellScript(argv: readonly string[]): boolean {
  const program = argv[0]?.slice(argv[0].lastIndexOf('/') + 1) ?? '';
  return SHELLS.has(program) && argv[1] === '-c';
}

/** Outcome of StopContainer with a grace period of `graceSeconds` (0: SIGKILL at once). */
export function stopOutcome(behaviour: ProcessBehaviour, graceSeconds: number): StopOutcome {
  if (graceSeconds <= 0) return { afterMs: 0, exitCode: EXIT_CODE_SIGKILL };
  if (behaviour.ignoresSigterm) return { afterMs: graceSeconds * 1000, exitCode: EXIT_CODE_SIGKILL };
  return { afterMs: 0, exitCode: EXIT_CODE_SIGTERM };
}

function lastExitCode(line: string): number | undefined {
  let code: number | undefined;
  for (const match of line.matchAll(EXIT_PATTERN)) code = Number(match[1]) & 255;
  return code;
}

function totalSleepMs(line: string): number {
  let totalMs = 0;
  for (const match of line.matchAll(SLEEP_PATTERN)) {
    const argument = match[1].replace(/[;'")]+$/, '');
    if (argument === 'infinity' || argument === 'inf') return Infinity;
    const seconds = parseDuration(argument);
    if (seconds !== undefined) totalMs += seconds * 1000;
  }
  return totalMs;
}

/** busybox/coreutils sleep arguments: "5", "0.5", "2s", "1m", "1h", "1d". */
function parseDuration(argument: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(argument);
  if (!match) return undefined;
  const unitSeconds: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };
  return Number(match[1]) * unitSeconds[match[2]];
}
