// The log reader on real files: tail, limits, since, stream, partial records,
// lines that are not records, and follow across a rotation.
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { readContainerLog } from '../../../src/main/logs/container-log-reader.js';
import { parseLogQuery } from '../../../src/main/logs/log-options.js';
import { formatCriLogLine } from '../../../src/shared/logs/cri-log-format.js';

const dir = mkdtempSync(join(tmpdir(), 'shardlet-log-reader-'));
let fileCount = 0;

function logFile(text: string): string {
  const path = join(dir, `${fileCount++}.log`);
  writeFileSync(path, text);
  return path;
}

async function read(path: string, query: string, isRunning: () => Promise<boolean> = async () => false, signal = new AbortController().signal): Promise<string> {
  const chunks: Buffer[] = [];
  await readContainerLog({ path, isRunning, signal, write: async (chunk) => void chunks.push(chunk) }, parseLogQuery(new URLSearchParams(query), Date.now(), true).read);
  return Buffer.concat(chunks).toString();
}

const line = (second: number, text: string, stream: 'stdout' | 'stderr' = 'stdout') => formatCriLogLine(`2026-11-24T10:00:${String(second).padStart(2, '0')}Z`, stream, text);
const SAMPLE = [line(1, 'one'), line(2, 'two', 'stderr'), '2026-11-24T10:00:03Z stdout P par', 'garbage\n', '\n', '2026-11-24T10:00:03Z stdout P tial', line(3, ' line'), line(4, 'four')].join('\n').replace(/\n\n/g, '\n');

test('partial records join into one line; lines that are not records are skipped', async () => {
  const path = logFile(SAMPLE);
  assert.equal(await read(path, ''), 'one\ntwo\npartial line\nfour\n');
});

test('tailLines counts records from the end; an unterminated last line is not counted but is read', async () => {
  const path = logFile(SAMPLE);
  assert.equal(await read(path, 'tailLines=1'), 'four\n');
  assert.equal(await read(path, 'tailLines=2'), ' line\nfour\n');
  assert.equal(await read(path, 'tailLines=100'), 'one\ntwo\npartial line\nfour\n');
  const unterminated = logFile(`${line(1, 'a')}${line(2, 'b')}2026-11-24T10:00:03Z stdout F c`);
  assert.equal(await read(unterminated, 'tailLines=1'), 'b\nc');
});

test('since, stream and timestamps filter and prefix as upstream', async () => {
  const path = logFile(SAMPLE);
  assert.equal(await read(path, 'sinceTime=2026-11-24T10:00:03Z'), 'partial line\nfour\n');
  assert.equal(await read(path, 'stream=Stderr'), 'two\n');
  assert.equal(await read(path, 'timestamps=true&sinceTime=2026-11-24T10:00:04Z'), '2026-11-24T10:00:04.000000000Z four\n');
});

test('limitBytes: exactly that many bytes of what would be sent, whatever the file holds', async () => {
  const texts = fc.array(fc.string({ maxLength: 40 }).filter((text) => !text.includes('\n')), { maxLength: 30 });
  await fc.assert(
    fc.asyncProperty(texts, fc.integer({ min: 1, max: 2_000 }), async (lines, limit) => {
      const path = logFile(lines.map((text, index) => line(index % 60, text)).join(''));
      const whole = await read(path, '');
      const limited = await read(path, `limitBytes=${limit}`);
      assert.equal(Buffer.byteLength(limited) <= limit || limited === whole, true);
      assert.ok(Buffer.from(whole).subarray(0, limit).equals(Buffer.from(limited)));
    }),
    { numRuns: 60 },
  );
});

test('a missing file is the upstream error', async () => {
  await assert.rejects(read(join(dir, 'missing.log'), ''), /failed to open log file/);
});

test('follow: new records, then the new file after a rotation, and the end once the container exited and all was read', async () => {
  const path = logFile(line(1, 'before'));
  let running = true;
  const chunks: string[] = [];
  const done = readContainerLog(
    { path, isRunning: async () => running, signal: new AbortController().signal, write: async (chunk) => void chunks.push(chunk.toString()) },
    parseLogQuery(new URLSearchParams('follow=true'), Date.now()).read,
  );
  const waitFor = async (text: string) => {
    for (let i = 0; i < 200 && !chunks.join('').includes(text); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.ok(chunks.join('').includes(text), `received ${text}`);
  };
  await waitFor('before');
  appendFileSync(path, line(2, 'appended'));
  await waitFor('appended');
  renameSync(path, `${path}.20261124-100000`);
  writeFileSync(path, line(3, 'after rotation'));
  await waitFor('after rotation');
  appendFileSync(path, line(4, 'last words'));
  running = false;
  await done;
  assert.equal(chunks.join(''), 'before\nappended\nafter rotation\nlast words\n');
});

test('follow ends when the client goes away', async () => {
  const path = logFile(line(1, 'x'));
  const abort = new AbortController();
  const reading = read(path, 'follow=true', async () => true, abort.signal);
  setTimeout(() => abort.abort(), 100);
  assert.equal(await reading, 'x\n');
});
