// A small reading of POSIX shell syntax for the simulated runtime: enough of
// `sh -c '...'` to run exec probes and `kubectl exec` one-liners (lists joined by
// `;`, `&&`, `||`, pipes, `>`/`>>`/`2>`/`2>&1`/`>&2` redirections, quotes), and to find
// the file effects of a container's own script. No expansion beyond `$?` and
// no control flow: a `while`/`until`/`if` ends what the sim can follow.

/** One simple command with its redirections. */
export interface SimpleCommand {
  argv: string[];
  /** `> path` (append false) or `>> path` (append true), the last one wins as in sh. */
  stdoutTo?: { path: string; append: boolean };
  stderrTo?: { path: string; append: boolean };
  /** `2>&1`. */
  stderrToStdout: boolean;
  /** `>&2` / `1>&2`. */
  stdoutToStderr: boolean;
}

/** Commands joined by `|`. */
export type Pipeline = SimpleCommand[];

/** A list: each pipeline runs when the operator before it allows (`;` always, `&&` on 0, `||` on non-zero). */
export interface ListItem {
  pipeline: Pipeline;
  /** The operator joining this item to the previous one (`;` for the first). */
  after: ';' | '&&' | '||';
}

type Token = { word: string } | { op: string };

const OPERATORS = ['&&', '||', '2>&1', '1>&2', '>&2', '>>', '2>>', '2>', '>', '|', ';', '&', '\n'];

/** Splits a script into words and operators, honouring quotes and backslashes. */
export function tokenize(script: string): Token[] {
  const tokens: Token[] = [];
  let word = '';
  let inWord = false;
  const flush = (): void => {
    if (inWord) tokens.push({ word });
    word = '';
    inWord = false;
  };
  for (let i = 0; i < script.length; i++) {
    const ch = script[i];
    if (ch === "'") {
      const end = script.indexOf("'", i + 1);
      const stop = end === -1 ? script.length : end;
      word += script.slice(i + 1, stop);
      inWord = true;
      i = stop;
    } else if (ch === '"') {
      inWord = true;
      for (i++; i < script.length && script[i] !== '"'; i++) {
        if (script[i] === '\\' && i + 1 < script.length && '"\\$`'.includes(script[i + 1])) i++;
        word += script[i];
      }
    } else if (ch === '\\' && i + 1 < script.length) {
      word += script[++i];
      inWord = true;
    } else if (ch === ' ' || ch === '\t') {
      flush();
    } else if (ch === '#' && !inWord) {
      const end = script.indexOf('\n', i);
      i = end === -1 ? script.length : end - 1;
    } else {
      const op = OPERATORS.find((candidate) => script.startsWith(candidate, i) && (!/^[12]/.test(candidate) || !inWord));
      if (op) {
        flush();
        tokens.push({ op });
        i += op.length - 1;
      } else {
        word += ch;
        inWord = true;
      }
    }
  }
  flush();
  return tokens;
}

/** Parses a script into a list of pipelines; a syntax the sim does not follow is a parse error message. */
export function parseScript(script: string): ListItem[] | { error: string } {
  const items: ListItem[] = [];
  let pipeline: Pipeline = [];
  let command: SimpleCommand = { argv: [], stderrToStdout: false, stdoutToStderr: false };
  let after: ListItem['after'] = ';';
  const tokens = tokenize(script);
  const endCommand = (): void => {
    if (command.argv.length > 0) pipeline.push(command);
    command = { argv: [], stderrToStdout: false, stdoutToStderr: false };
  };
  const endPipeline = (next: ListItem['after']): void => {
    endCommand();
    if (pipeline.length > 0) items.push({ pipeline, after });
    pipeline = [];
    after = next;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if ('word' in token) {
      command.argv.push(token.word);
      continue;
    }
    switch (token.op) {
      case ';':
      case '\n':
      case '&':
        endPipeline(';');
        break;
      case '&&':
      case '||':
        endPipeline(token.op);
        break;
      case '|':
        endCommand();
        break;
      case '2>&1':
        command.stderrToStdout = true;
        break;
      case '>&2':
      case '1>&2':
        command.stdoutToStderr = true;
        break;
      default: {
        const target = tokens[i + 1];
        if (!target || !('word' in target)) return { error: `syntax error: unexpected redirection` };
        i++;
        const redirect = { path: target.word, append: token.op.endsWith('>>') };
        if (token.op.startsWith('2')) command.stderrTo = redirect;
        else command.stdoutTo = redirect;
      }
    }
  }
  endPipeline(';');
  return items;
}

const SHELLS = new Set(['sh', 'ash', 'bash', 'dash']);

/** The script of `sh -c SCRIPT` (or /bin/sh, bash, …), else undefined. */
export function shellScript(argv: readonly string[]): string | undefined {
  const program = argv[0]?.slice(argv[0].lastIndexOf('/') + 1) ?? '';
  return SHELLS.has(program) && argv[1] === '-c' && argv.length >= 3 ? argv[2] : undefined;
}
