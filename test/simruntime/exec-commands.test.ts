// The sim's exec evaluator, command by command, as busybox sh answers them; and
// the container script's file effects, applied when the script would reach them.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { ContainerFiles, scriptEffects } from '../../src/simruntime/container-files.js';
import { runExecCommand } from '../../src/simruntime/exec-commands.js';

async function run(argv: string[], files = new ContainerFiles(), stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runExecCommand(argv, files, {
    stdin: stdin === undefined ? undefined : Readable.from([Buffer.from(stdin)]),
    stdout: (chunk) => (stdout += chunk.toString()),
    stderr: (chunk) => (stderr += chunk.toString()),
    signal: new AbortController().signal,
  });
  return { code, stdout, stderr };
}

const sh = (script: string): string[] => ['sh', '-c', script];

describe('runExecCommand', () => {
  const cases: Array<[string, string[], { code: number; stdout?: string; stderr?: string }]> = [
    ['echo', ['echo', 'hi', 'there'], { code: 0, stdout: 'hi there\n' }],
    ['echo -n', ['echo', '-n', 'x'], { code: 0, stdout: 'x' }],
    ['true', ['true'], { code: 0 }],
    ['false', ['/bin/false'], { code: 1 }],
    ['exit N', sh('exit 7'), { code: 7 }],
    ['exit wraps at 256', sh('exit 300'), { code: 44 }],
    ['a list stops at exit', sh('echo a; exit 2; echo b'), { code: 2, stdout: 'a\n' }],
    ['&& and ||', sh('false && echo no || echo yes'), { code: 0, stdout: 'yes\n' }],
    ['$?', sh('false; echo $?'), { code: 0, stdout: '1\n' }],
    ['a pipe', sh('echo piped | cat'), { code: 0, stdout: 'piped\n' }],
    ['quotes', sh(`echo 'single  spaced' "double"`), { code: 0, stdout: 'single  spaced double\n' }],
    ['>&2', sh('echo to-stderr >&2'), { code: 0, stderr: 'to-stderr\n' }],
    ['2>&1', sh('cat /nope 2>&1'), { code: 1, stdout: "cat: can't open '/nope': No such file or directory\n" }],
    ['unknown in sh', sh('nosuchcmd arg'), { code: 127, stderr: 'sh: nosuchcmd: not found\n' }],
    ['unknown directly', ['nosuchcmd'], { code: 127, stderr: 'sh: nosuchcmd: not found\n' }],
    ['cat a directory', ['cat', '/tmp'], { code: 1, stderr: "cat: can't open '/tmp': Is a directory\n" }],
    ['test -f missing', ['test', '-f', '/tmp/healthy'], { code: 1 }],
    ['[ ] string compare', sh('[ a = a ] && echo same'), { code: 0, stdout: 'same\n' }],
    ['rm missing', ['rm', '/tmp/x'], { code: 1, stderr: "rm: can't remove '/tmp/x': No such file or directory\n" }],
    ['rm -f missing', ['rm', '-f', '/tmp/x'], { code: 0 }],
    ['ls missing', ['ls', '/nope'], { code: 1, stderr: 'ls: /nope: No such file or directory\n' }],
    ['syntax error', sh('echo >'), { code: 2, stderr: 'sh: syntax error: unexpected redirection\n' }],
  ];
  for (const [name, argv, expected] of cases) {
    it(name, async () => {
      const result = await run(argv);
      assert.equal(result.code, expected.code);
      assert.equal(result.stdout, expected.stdout ?? '');
      assert.equal(result.stderr, expected.stderr ?? '');
    });
  }

  it('keeps files written by touch, > and >>, and forgets removed ones', async () => {
    const files = new ContainerFiles();
    assert.equal((await run(sh('touch /tmp/healthy && test -f /tmp/healthy'), files)).code, 0);
    await run(sh('echo one > /tmp/log; echo two >> /tmp/log'), files);
    assert.equal((await run(['cat', '/tmp/log'], files)).stdout, 'one\ntwo\n');
    assert.equal((await run(['ls', '/tmp'], files)).stdout, 'healthy\nlog\n');
    await run(['rm', '/tmp/healthy'], files);
    assert.equal((await run(['test', '-f', '/tmp/healthy'], files)).code, 1);
    assert.match((await run(['ls', '/'], files)).stdout, /^bin\ndev\netc\n/);
  });

  it('echoes stdin through cat until it ends', async () => {
    assert.equal((await run(['cat'], new ContainerFiles(), 'from stdin\n')).stdout, 'from stdin\n');
    assert.equal((await run(sh('cat | cat'), new ContainerFiles(), 'twice piped')).stdout, 'twice piped');
  });

  it('ends sleep when the deadline aborts it', async () => {
    const deadline = new AbortController();
    const running = runExecCommand(['sleep', '3600'], new ContainerFiles(), { stdout: () => {}, stderr: () => {}, signal: deadline.signal });
    deadline.abort();
    assert.equal(await running, 0);
  });
});

describe('scriptEffects', () => {
  it("applies a script's file changes at the time its sleeps put them", () => {
    const startedAtMs = Date.now();
    const effects = scriptEffects(sh('touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600'), startedAtMs);
    assert.deepEqual(
      effects.map((effect) => effect.atMs - startedAtMs),
      [0, 30_000],
    );
    const files = new ContainerFiles({}, effects);
    assert.equal(files.isFile('/tmp/healthy'), true);
    const later = new ContainerFiles({}, scriptEffects(sh('touch /tmp/healthy; sleep 30; rm -f /tmp/healthy'), startedAtMs - 31_000));
    assert.equal(later.isFile('/tmp/healthy'), false);
  });

  it('stops reading at a loop, and reads nothing of a non-shell command', () => {
    assert.equal(scriptEffects(sh('while true; do touch /tmp/x; sleep 1; done'), 0).length, 0);
    assert.equal(scriptEffects(['touch', '/tmp/x'], 0).length, 0);
  });
});
