import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { PullCoordinator } from '../../../src/main/images/pull-coordinator.js';
import type { PullGrant } from '../../../src/shared/shard-protocol.js';

const logger = pino({ level: 'silent' });
const settle = () => new Promise((resolve) => setImmediate(resolve));

test('concurrent pulls of one image from different shards are de-duplicated', async () => {
  const pulls = new PullCoordinator({ serializeImagePulls: false, logger });
  const leader = await pulls.acquire('busybox:1.35', 0);
  assert.equal(leader.role, 'leader');
  const followers = [pulls.acquire('busybox:1.35', 1), pulls.acquire('busybox:1.35', 2)];
  await pulls.release((leader as { ticket: string }).ticket, { ok: true, imageRef: 'sha256:abc', sizeBytes: 1 });
  for (const grant of await Promise.all(followers)) {
    assert.deepEqual(grant, { role: 'follower', outcome: { ok: true, imageRef: 'sha256:abc', sizeBytes: 1 } });
  }
  assert.deepEqual(pulls.counters, { pulls: 1, deduplicated: 2 });
  // Once done, the next request pulls again (the image manager checks presence first).
  assert.equal((await pulls.acquire('busybox:1.35', 0)).role, 'leader');
});

test('serializeImagePulls lets one pull run at a time across shards', async () => {
  const pulls = new PullCoordinator({ serializeImagePulls: true, logger });
  const first = await pulls.acquire('a', 0);
  const granted: PullGrant[] = [];
  void pulls.acquire('b', 1).then((grant) => granted.push(grant));
  await settle();
  assert.equal(granted.length, 0, 'second pull must wait for the first');
  await pulls.release((first as { ticket: string }).ticket, { ok: true, imageRef: 'x', sizeBytes: 1 });
  await settle();
  assert.equal(granted[0]?.role, 'leader');
});

test('maxParallelImagePulls bounds the pulls in flight', async () => {
  const pulls = new PullCoordinator({ serializeImagePulls: false, maxParallelImagePulls: 2, logger });
  const grants: PullGrant[] = [];
  for (const image of ['a', 'b', 'c']) void pulls.acquire(image, 0).then((grant) => grants.push(grant));
  await settle();
  assert.equal(grants.length, 2);
  await pulls.release((grants[0] as { ticket: string }).ticket, { ok: true, imageRef: 'x', sizeBytes: 1 });
  await settle();
  assert.equal(grants.length, 3);
});

test('a lost shard fails its pulls so that followers do not wait forever', async () => {
  const pulls = new PullCoordinator({ serializeImagePulls: false, logger });
  await pulls.acquire('a', 3);
  const follower = pulls.acquire('a', 1);
  pulls.releaseShard(3);
  const grant = await follower;
  assert.equal(grant.role, 'follower');
  assert.equal(grant.role === 'follower' && grant.outcome.ok, false);
  assert.equal((await pulls.acquire('a', 1)).role, 'leader');
});
