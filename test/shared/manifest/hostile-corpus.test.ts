// The committed hostile manifests through the parser and the static pod defaults,
// as the file source runs them: each refused one with a MANIFEST_INVALID error
// naming the file and its reason, each accepted one into a pod.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ShardletError, ErrorCodes } from '../../../src/shared/errors.js';
import { parsePodManifest } from '../../../src/shared/manifest/parse-manifest.js';
import { applyStaticPodDefaults } from '../../../src/shared/manifest/static-pod.js';
import { FILE_SOURCE } from '../../../src/shared/types.js';
import { CORPUS, HOSTILE_MANIFEST_DIR } from '../../fixtures/hostile-corpus.js';

// The duplicate is a matter between two files (the file source's), not of one file's content.
const SINGLE_FILE_CASES = CORPUS.filter((entry) => !entry.generated && entry.name !== 'duplicate-name-b.yaml');

for (const entry of SINGLE_FILE_CASES) {
  test(`corpus: ${entry.name} is ${entry.outcome}`, async () => {
    const path = join(HOSTILE_MANIFEST_DIR, entry.name);
    const bytes = await readFile(path);
    const decode = () => applyStaticPodDefaults(parsePodManifest(bytes, path), { source: FILE_SOURCE, location: path, nodeName: 'node-1' });
    if (entry.outcome === 'accepted') {
      assert.equal(decode().metadata?.name, `${entry.podName}-node-1`);
      return;
    }
    assert.throws(decode, (err: unknown) => {
      assert.ok(err instanceof ShardletError, `a coded error, not ${String(err)}`);
      assert.equal(err.code, ErrorCodes.MANIFEST_INVALID);
      assert.ok(err.message.startsWith(`${path}: `), err.message);
      assert.match(err.message, entry.reason!);
      assert.ok(err.message.length < 2_000, `a bounded message (${err.message.length} chars)`);
      return true;
    });
  });
}

test('a name error lists every rule the name breaks', async () => {
  const path = join(HOSTILE_MANIFEST_DIR, 'bad-names.yaml');
  assert.throws(() => parsePodManifest(readFileSyncText(path), path), (err: unknown) => {
    const message = (err as Error).message;
    for (const rule of ['has "B" "_" "N"', 'starts with "-"', 'ends with "-"', "a '.'-separated part is empty or starts or ends with '-'"]) {
      assert.ok(message.includes(rule), `${rule} in ${message}`);
    }
    return true;
  });
});

function readFileSyncText(path: string): string {
  return readFileSync(path, 'utf8');
}
