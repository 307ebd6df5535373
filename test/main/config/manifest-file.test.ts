// A rescan of a manifest that did not change is a stat: readManifestEntry opens a
// file again only when its stat no longer shows the fingerprint it was read with.
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readManifestEntry } from '../../../src/main/config/manifest-file.js';

/** As if read well after the file last changed (a read just after a change is racy, and read again). */
const LATER_MS = 60_000;
const readLater = (fingerprint: string) => ({ fingerprint, readAtMs: Date.now() + LATER_MS });

test('an entry whose stat shows the fingerprint it was last read with is not read again; any change is', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shardlet-manifest-'));
  const file = join(dir, 'web.yaml');
  writeFileSync(file, 'a: 1\n');
  const first = await readManifestEntry(file);
  assert.equal(first.kind, 'bytes');
  assert.deepEqual(await readManifestEntry(file, readLater(first.fingerprint)), { kind: 'unchanged', fingerprint: first.fingerprint });
  assert.equal((await readManifestEntry(file, { fingerprint: first.fingerprint, readAtMs: Date.now() })).kind, 'bytes', 'read just after a change: racy');

  writeFileSync(file, 'a: 2\n'); // same size, new content
  const rewritten = await readManifestEntry(file, readLater(first.fingerprint));
  assert.equal(rewritten.kind, 'bytes');
  assert.equal(rewritten.kind === 'bytes' && rewritten.bytes.toString(), 'a: 2\n');

  utimesSync(file, new Date(0), new Date(0)); // times set back by hand: the ctime still moves
  assert.equal((await readManifestEntry(file, readLater(rewritten.fingerprint))).kind, 'bytes');

  // A symlink's target swapped elsewhere (what no watch event on the directory names).
  const link = join(dir, 'linked.yaml');
  writeFileSync(join(dir, 'target-1'), 'b: 1\n');
  symlinkSync(join(dir, 'target-1'), link);
  const viaLink = await readManifestEntry(link);
  writeFileSync(join(dir, 'target-2'), 'b: 1\n');
  renameSync(join(dir, 'target-2'), join(dir, 'target-1'));
  assert.equal((await readManifestEntry(link, readLater(viaLink.fingerprint))).kind, 'bytes');
  unlinkSync(join(dir, 'target-1'));
  assert.equal((await readManifestEntry(link, readLater(viaLink.fingerprint))).kind, 'problem');
});
