// Rotating one log file: rename, compression of older files, the file count, and
// the rename undone when the runtime refuses to reopen.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { rotateLog } from '../../../src/main/logs/log-rotation.js';

function containerDir(): { dir: string; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'shardlet-rotation-'));
  return { dir, log: join(dir, '0.log') };
}

test('rotations keep at most maxFiles files, the newest rotated one plain and older ones gzipped', async () => {
  const { dir, log } = containerDir();
  let reopens = 0;
  for (let round = 0; round < 5; round++) {
    writeFileSync(log, `round ${round}\n`);
    await rotateLog(log, { maxFiles: 3 }, async () => {
      reopens += 1;
      writeFileSync(log, '');
    }, new Date(2026, 10, 24, 10, 0, round));
  }
  assert.equal(reopens, 5);
  assert.deepEqual(readdirSync(dir).sort(), ['0.log', '0.log.20261124-100003.gz', '0.log.20261124-100004']);
  assert.equal(gunzipSync(readFileSync(join(dir, '0.log.20261124-100003.gz'))).toString(), 'round 3\n');
  assert.equal(readFileSync(join(dir, '0.log.20261124-100004'), 'utf8'), 'round 4\n');
});

test('a failed reopen gives the live file its name back, and leftovers of an interrupted compression go', async () => {
  const { dir, log } = containerDir();
  writeFileSync(log, 'live\n');
  writeFileSync(`${log}.20261124-090000.gz.tmp`, 'half');
  await assert.rejects(rotateLog(log, { maxFiles: 5 }, async () => Promise.reject(new Error('container is not running'))), /not running/);
  assert.deepEqual(readdirSync(dir), ['0.log']);
  assert.equal(readFileSync(log, 'utf8'), 'live\n');
});
