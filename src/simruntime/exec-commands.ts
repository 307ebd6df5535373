// The commands an exec in a simulated container can run (ExecSync for probes and
// /run, Exec for kubectl exec), as busybox would run them: echo, cat, sleep,
// true/false, ls, test/[, touch, rm, pwd, hostname, id, whoami, exit and `sh -c` lists with
// redirections into the container's file set (container-files.ts). An unknown
// command fails with 127 and sh's message. Nothing runs on the host.
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { ContainerFiles } from './container-files.js';
import { formatId, formatWhoami } from './container-identity.js';
import { parseScript, shellScript, type ListItem, type SimpleCommand } from './shell-words.js';

/** busybox sh's exit code for a command it cannot find. */
export const EXIT_CODE_NOT_FOUND = 127;
/** sh's exit code for a syntax error. */
export const EXIT_CODE_SYNTAX = 2;

export interface CommandIo {
  /** The exec's stdin, when it has one; it ends when the client closes it. */
  stdin?: AsyncIterable<Buffer | string>;
  stdout(chunk: string | Buffer): void;
  stderr(chunk: string | Buffer): void;
  /** Aborted when the exec's deadline passes or its client goes away. */
  signal: AbortSignal;
}

/** Runs argv (a direct command or `sh -c SCRIPT`) and resolves with its exit code. */
export async function runExecCommand(argv: readonly string[], files: ContainerFiles, io: CommandIo): Promise<number> {
  const script = shellScript(argv);
  if (script !== undefined) return runScript(script, files, io);
  if (argv.length === 0) return EXIT_CODE_NOT_FOUND;
  try {
    return await runSimple({ argv: [...argv], stderrToStdout: false, stdoutToStderr: false }, files, io, 0);
  } catch (err) {
    if (err instanceof ShellExit) return err.code;
    throw err;
  }
}

async function runScript(script: string, files: ContainerFiles, io: CommandIo): Promise<number> {
  const list = parseScript(script);
  if ('error' in list) {
    io.stderr(`sh: ${list.error}\n`);
    return EXIT_CODE_SYNTAX;
  }
  return runList(list, files, io);
}

class ShellExit {
  constructor(readonly code: number) {}
}

async function runList(list: ListItem[], files: ContainerFiles, io: CommandIo): Promise<number> {
  let status = 0;
  try {
    for (const { pipeline, after } of list) {
      if ((after === '&&' && status !== 0) || (after === '||' && status === 0)) continue;
      status = await runPipeline(pipeline, files, io, status);
    }
  } catch (err) {
    if (err instanceof ShellExit) return err.code;
    throw err;
  }
  return status;
}

/** Each command's stdout feeds the next one's stdin; the pipeline's status is the last command's. */
async function runPipeline(pipeline: SimpleCommand[], files: ContainerFiles, io: CommandIo, lastStatus: number): Promise<number> {
  let stdin = io.stdin;
  let status = 0;
  for (let i = 0; i < pipeline.length; i++) {
    const last = i === pipeline.length - 1;
    const captured: Buffer[] = [];
    const stageIo: CommandIo = last ? { ...io, stdin } : { ...io, stdin, stdout: (chunk) => captured.push(Buffer.from(chunk)) };
    status = await runSimple(pipeline[i], files, stageIo, lastStatus);
    stdin = (async function* () {
      yield* captured;
    })();
  }
  return status;
}

async function runSimple(command: SimpleCommand, files: ContainerFiles, io: CommandIo, lastStatus: number): Promise<number> {
  const outputs = redirected(command, files, io);
  const argv = command.argv.map((word) => word.replaceAll('$?', String(lastStatus)));
  const [name, ...args] = argv;
  const program = name.slice(name.lastIndexOf('/') + 1);
  const builtin = BUILTINS[program];
  if (!builtin) {
    outputs.stderr(`sh: ${name}: not found\n`);
    return EXIT_CODE_NOT_FOUND;
  }
  return builtin(args, files, outputs);
}

/** The command's io after its `>`, `2>` and `2>&1`. */
function redirected(command: SimpleCommand, files: ContainerFiles, io: CommandIo): CommandIo {
  const toFile = (target: { path: string; append: boolean }) => {
    if (!target.append) files.write(target.path, '');
    return (chunk: string | Buffer) => files.write(target.path, chunk.toString(), true);
  };
  const stderr = command.stderrTo ? toFile(command.stderrTo) : io.stderr;
  const stdout = command.stdoutToStderr ? stderr : command.stdoutTo ? toFile(command.stdoutTo) : io.stdout;
  return { ...io, stdout, stderr: command.stderrToStdout ? stdout : stderr };
}

type Builtin = (args: string[], files: ContainerFiles, io: CommandIo) => Promise<number> | number;

const BUILTINS: Record<string, Builtin> = {
  true: () => 0,
  false: () => 1,
  ':': () => 0,
  exit: (args) => {
    throw new ShellExit(args.length ? Number(args[0]) & 255 : 0);
  },
  echo: (args, _files, io) => {
    const noNewline = args[0] === '-n';
    const words = noNewline ? args.slice(1) : args;
    io.stdout(words.join(' ') + (noNewline ? '' : '\n'));
    return 0;
  },
  cat: async (args, files, io) => {
    if (args.length === 0 || (args.length === 1 && args[0] === '-')) {
      for await (const chunk of io.stdin ?? []) io.stdout(chunk);
      return 0;
    }
    let status = 0;
    for (const path of args) {
      const content = files.read(path);
      if (content !== undefined) io.stdout(content);
      else {
        io.stderr(`cat: can't open '${path}': ${files.isDirectory(path) ? 'Is a directory' : 'No such file or directory'}\n`);
        status = 1;
      }
    }
    return status;
  },
  sleep: async (args, _files, io) => {
    const seconds = args[0] === 'infinity' ? Infinity : Number(args[0]);
    if (!Number.isFinite(seconds) && seconds !== Infinity) {
      io.stderr(`sleep: invalid number '${args[0] ?? ''}'\n`);
      return 1;
    }
    // An abort (the exec's deadline) ends the wait; the caller reports the timeout.
    await sleepFor(seconds === Infinity ? 2 ** 31 - 1 : seconds * 1000, undefined, { signal: io.signal }).catch(() => undefined);
    return 0;
  },
  ls: (args, files, io) => {
    const paths = args.filter((arg) => !arg.startsWith('-'));
    let status = 0;
    for (const path of paths.length ? paths : ['/']) {
      if (files.isFile(path)) io.stdout(`${path}\n`);
      else if (files.isDirectory(path)) io.stdout(files.list(path).map((name) => `${name}\n`).join(''));
      else {
        io.stderr(`ls: ${path}: No such file or directory\n`);
        status = 1;
      }
    }
    return status;
  },
  test: (args, files) => evaluateTest(args, files),
  '[': (args, files) => evaluateTest(args[args.length - 1] === ']' ? args.slice(0, -1) : args, files),
  touch: (args, files) => {
    for (const path of args.filter((arg) => !arg.startsWith('-'))) if (!files.isFile(path)) files.write(path, '');
    return 0;
  },
  rm: (args, files, io) => {
    const force = args.some((arg) => arg.startsWith('-') && arg.includes('f'));
    let status = 0;
    for (const path of args.filter((arg) => !arg.startsWith('-'))) {
      if (!files.remove(path) && !force) {
        io.stderr(`rm: can't remove '${path}': No such file or directory\n`);
        status = 1;
      }
    }
    return status;
  },
  pwd: (_args, _files, io) => {
    io.stdout('/\n');
    return 0;
  },
  id: (args, files, io) => printed(formatId(args, files.identity), io),
  whoami: (_args, files, io) => printed(formatWhoami(files.identity), io),
  hostname: (_args, files, io) => {
    io.stdout(files.read('/etc/hostname') ?? 'localhost\n');
    return 0;
  },
};

/** Writes a utility's output and answers its exit code. */
function printed(result: { stdout: string; stderr: string; exitCode: number }, io: CommandIo): number {
  if (result.stdout) io.stdout(result.stdout);
  if (result.stderr) io.stderr(result.stderr);
  return result.exitCode;
}

/** `test -f/-e/-d/-s path`, `test -n/-z s`, `test a = b`, `test a != b`. */
function evaluateTest(args: string[], files: ContainerFiles): number {
  const negate = args[0] === '!';
  const rest = negate ? args.slice(1) : args;
  let result: boolean;
  if (rest.length === 2) {
    const [flag, operand] = rest;
    if (flag === '-f') result = files.isFile(operand);
    else if (flag === '-e') result = files.isFile(operand) || files.isDirectory(operand);
    else if (flag === '-d') result = files.isDirectory(operand);
    else if (flag === '-s') result = (files.read(operand) ?? '').length > 0;
    else if (flag === '-n') result = operand.length > 0;
    else if (flag === '-z') result = operand.length === 0;
    else return EXIT_CODE_SYNTAX;
  } else if (rest.length === 3 && (rest[1] === '=' || rest[1] === '!=')) {
    result = (rest[0] === rest[2]) === (rest[1] === '=');
  } else if (rest.length === 1) {
    result = rest[0].length > 0;
  } else {
    result = false;
  }
  return result !== negate ? 0 : 1;
}
