import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cleanPayload, validatePayloadPath, writePayloadAtomically, type Payload } from '../../../src/workers/volumes/atomic-writer.js';

const createdDirs: string[] = [];
after(() => createdDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function targetDir(): string {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'shardlet-atomic-')));
  createdDirs.push(base);
  return join(base, 'volume');
}

function file(text: string, mode = 0o644) {
  return { data: Buffer.from(text), mode };
}

function timestampDirs(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith('..') && name !== '..data');
}

test('atomic writer: first write creates ..data, a timestamped dir and user-visible symlinks', async () => {
  const dir = targetDir();
  const payload: Payload = { 'app.conf': file('a=1\n'), 'nested/deep/key': file('deep', 0o600), secret: file('s', 0o400) };
  assert.equal(await writePayloadAtomically(dir, payload), true);

  const [tsDir] = timestampDirs(dir);
  assert.match(tsDir, /^\.\.\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2}\.\w+$/);
  assert.equal(readlinkSync(join(dir, '..data')), tsDir);
  assert.equal(statSync(join(dir, tsDir)).mode & 0o777, 0o755);
  assert.equal(readlinkSync(join(dir, 'app.conf')), '..data/app.conf');
  assert.equal(readlinkSync(join(dir, 'nested')), '..data/nested', 'only the top-level entry is a symlink');
  assert.equal(readFileSync(join(dir, 'app.conf'), 'utf8'), 'a=1\n');
  assert.equal(readFileSync(join(dir, 'nested/deep/key'), 'utf8'), 'deep');
  assert.equal(statSync(join(dir, 'app.conf')).mode & 0o777, 0o644);
  assert.equal(statSync(join(dir, 'nested/deep/key')).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, 'secret')).mode & 0o777, 0o400);
  assert.deepEqual(readdirSync(dir).sort(), ['..data', tsDir, 'app.conf', 'nested', 'secret'].sort());
});

test('atomic writer: an update swaps ..data to a new dir, removes the old one and dropped keys', async () => {
  const dir = targetDir();
  await writePayloadAtomically(dir, { keep: file('v1'), gone: file('bye'), 'sub/x': file('x') });
  const [firstTs] = timestampDirs(dir);
  // A reader holding the old symlink target sees a complete old set until the swap.
  assert.equal(await writePayloadAtomically(dir, { keep: file('v2'), added: file('new') }), true);

  const [secondTs, ...others] = timestampDirs(dir);
  assert.equal(others.length, 0, 'exactly one timestamped directory remains');
  assert.notEqual(secondTs, firstTs);
  assert.equal(existsSync(join(dir, firstTs)), false);
  assert.equal(readlinkSync(join(dir, '..data')), secondTs);
  assert.equal(readFileSync(join(dir, 'keep'), 'utf8'), 'v2', 'the old symlink now resolves through the new ..data');
  assert.equal(readFileSync(join(dir, 'added'), 'utf8'), 'new');
  assert.equal(existsSync(join(dir, 'gone')), false);
  assert.throws(() => lstatSync(join(dir, 'gone')), { code: 'ENOENT' });
  assert.throws(() => lstatSync(join(dir, 'sub')), { code: 'ENOENT' });
  assert.equal(existsSync(join(dir, '..data_tmp')), false);
});

test('atomic writer: an unchanged payload writes nothing; a mode change alone rewrites', async () => {
  const dir = targetDir();
  const payload = { a: file('same'), 'b/c': file('deep') };
  await writePayloadAtomically(dir, payload);
  const [tsDir] = timestampDirs(dir);
  const mtime = statSync(join(dir, tsDir, 'a')).mtimeMs;

  assert.equal(await writePayloadAtomically(dir, { a: file('same'), 'b/c': file('deep') }), false);
  assert.deepEqual(timestampDirs(dir), [tsDir]);
  assert.equal(statSync(join(dir, tsDir, 'a')).mtimeMs, mtime);

  assert.equal(await writePayloadAtomically(dir, { a: file('same', 0o600), 'b/c': file('deep') }), true);
  assert.notDeepEqual(timestampDirs(dir), [tsDir]);
  assert.equal(statSync(join(dir, 'a')).mode & 0o777, 0o600);
});

test('atomic writer: an empty payload leaves only ..data and its directory', async () => {
  const dir = targetDir();
  await writePayloadAtomically(dir, { a: file('1') });
  assert.equal(await writePayloadAtomically(dir, {}), true);
  assert.deepEqual(readdirSync(dir).filter((name) => !name.startsWith('..')), []);
  assert.equal(await writePayloadAtomically(dir, {}), false);
});

test('atomic writer: paths are validated as upstream validatePath', async () => {
  for (const [path, message] of [
    ['/etc/passwd', /must be relative/],
    ['a/../../etc', /must not contain '\.\.'/],
    ['..data/x', /must not start with '\.\.'/],
    ['..hidden', /must not start with '\.\.'/],
    ['', /must not be empty/],
    [`${'x'.repeat(256)}`, /at most 255/],
  ] as const) {
    assert.throws(() => validatePayloadPath(path), message, path);
  }
  assert.doesNotThrow(() => validatePayloadPath('a/b..c/..d'));
  assert.deepEqual(Object.keys(cleanPayload({ 'a//b/': file('x'), './c': file('y') })), ['a/b', 'c']);
  const dir = targetDir();
  await assert.rejects(writePayloadAtomically(dir, { '../escape': file('x') }), /must not contain/);
  assert.equal(existsSync(join(dir, '..', 'escape')), false);
});
