import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { shardForUid } from '../../../src/main/shards/shard-hash.js';

test('a pod UID always maps to the same shard', () => {
  const uid = '5f0c7d1e-2d7b-4f8e-9a1c-1b2c3d4e5f60';
  assert.equal(shardForUid(uid, 8), shardForUid(uid, 8));
  assert.equal(shardForUid(uid, 1), 0);
  assert.equal(shardForUid(uid, 0), 0);
});

test('UIDs spread over the shards', () => {
  const counts = new Array(4).fill(0);
  for (let i = 0; i < 4000; i++) counts[shardForUid(randomUUID(), 4)]++;
  for (const count of counts) assert.ok(count > 800 && count < 1200, `uneven spread: ${counts.join(',')}`);
});
