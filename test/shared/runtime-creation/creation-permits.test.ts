import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { CreationPermits, type CreationKind } from '../../../src/shared/runtime-creation/creation-permits.js';

test('permits are taken up to the limit, node-wide, whichever shard asks', () => {
  const permits = CreationPermits.create(2, 3);
  assert.ok(permits.tryAcquire('sandbox', 0));
  assert.ok(permits.tryAcquire('container', 1));
  assert.ok(permits.tryAcquire('sandbox', 1));
  assert.equal(permits.tryAcquire('sandbox', 0), false);
  assert.equal(permits.tryAcquire('container', 0), false);
  assert.deepEqual([permits.inFlight, permits.heldBy(0), permits.heldBy(1)], [3, 1, 2]);
  permits.release('sandbox', 1, 0.09);
  assert.ok(permits.tryAcquire('sandbox', 0));
});

test('a view over the same buffer in another thread sees the same permits', () => {
  const main = CreationPermits.create(2, 1);
  const shardView = new CreationPermits(main.buffer, 2);
  assert.ok(shardView.tryAcquire('sandbox', 1));
  assert.equal(main.inFlight, 1);
  assert.equal(main.tryAcquire('sandbox', 0), false);
});

test('a waiting container creation goes before a sandbox creation of any shard', () => {
  const permits = CreationPermits.create(2, 1);
  assert.ok(permits.tryAcquire('sandbox', 0));
  permits.noteWaiting('container', 1, true);
  permits.release('sandbox', 0, 0.09);
  assert.equal(permits.tryAcquire('sandbox', 0), false, 'the sandbox leaves the free permit to the waiting container');
  assert.ok(permits.tryAcquire('container', 1));
  permits.noteWaiting('container', 1, false);
  permits.release('container', 1, 0.06);
  assert.ok(permits.tryAcquire('sandbox', 0));
});

test('a cut limit lets the creations in flight finish and admits none until they are under it', () => {
  const permits = CreationPermits.create(1, 4);
  for (let i = 0; i < 4; i++) assert.ok(permits.tryAcquire('sandbox', 0));
  permits.setLimit(2);
  permits.release('sandbox', 0, 0.1);
  assert.equal(permits.tryAcquire('sandbox', 0), false, '3 in flight, limit 2');
  permits.release('sandbox', 0, 0.1);
  assert.equal(permits.tryAcquire('sandbox', 0), false, '2 in flight, limit 2');
  permits.release('sandbox', 0, 0.1);
  assert.ok(permits.tryAcquire('sandbox', 0));
});

test('a lost shard’s permits and waiting marks are taken back, and its late release gives nothing twice', () => {
  const permits = CreationPermits.create(2, 3);
  assert.ok(permits.tryAcquire('sandbox', 0));
  assert.ok(permits.tryAcquire('container', 0));
  assert.ok(permits.tryAcquire('sandbox', 1));
  permits.noteWaiting('container', 0, true);
  assert.equal(permits.reclaimShard(0), 2);
  assert.deepEqual([permits.inFlight, permits.heldBy(0), permits.waiting], [1, 0, 0]);
  assert.ok(permits.tryAcquire('sandbox', 1), 'no container waits any more: a sandbox may go');
  permits.release('sandbox', 0, 0.1);
  assert.equal(permits.inFlight, 2, 'the reclaimed permit is not released again');
});

test('the window gives each kind’s finished creations and their time once, and whether any waited', () => {
  const permits = CreationPermits.create(1, 2);
  permits.tryAcquire('sandbox', 0);
  permits.tryAcquire('container', 0);
  permits.noteWaiting('sandbox', 0, true);
  permits.release('sandbox', 0, 0.09);
  permits.release('container', 0, 0.063);
  const first = permits.takeWindow();
  assert.deepEqual(first.byKind.sandbox, { count: 1, totalSeconds: 0.09 });
  assert.deepEqual(first.byKind.container, { count: 1, totalSeconds: 0.063 });
  assert.equal(first.saturated, true);
  const second = permits.takeWindow();
  assert.deepEqual(second.byKind.sandbox, { count: 0, totalSeconds: 0 });
  assert.equal(second.saturated, true, 'a creation still waits');
  permits.noteWaiting('sandbox', 0, false);
  assert.equal(permits.takeWindow().saturated, false);
});

test('a waiter wakes when a permit is released', async () => {
  const permits = CreationPermits.create(1, 1);
  permits.tryAcquire('sandbox', 0);
  const seq = permits.wakeSeq();
  const woken = permits.waitForWake(seq, 60_000);
  permits.release('sandbox', 0, 0.1);
  await woken;
  assert.ok(permits.tryAcquire('sandbox', 0));
});

type Op =
  | { op: 'acquire'; kind: CreationKind; shard: number }
  | { op: 'release'; shard: number }
  | { op: 'limit'; limit: number }
  | { op: 'reclaim'; shard: number };

const SHARDS = 3;
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('acquire' as const), kind: fc.constantFrom<CreationKind>('sandbox', 'container'), shard: fc.integer({ min: 0, max: SHARDS - 1 }) }),
  fc.record({ op: fc.constant('release' as const), shard: fc.integer({ min: 0, max: SHARDS - 1 }) }),
  fc.record({ op: fc.constant('limit' as const), limit: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ op: fc.constant('reclaim' as const), shard: fc.integer({ min: 0, max: SHARDS - 1 }) }),
);

test('property: never more in flight than the limit at a grant, and in flight is what the shards hold', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 8 }), fc.array(opArb, { maxLength: 300 }), (initial, ops) => {
      const permits = CreationPermits.create(SHARDS, initial);
      const held = new Array<number>(SHARDS).fill(0);
      for (const step of ops) {
        if (step.op === 'acquire') {
          const before = permits.inFlight;
          const granted = permits.tryAcquire(step.kind, step.shard);
          if (granted !== before < permits.limit) return false;
          if (granted) held[step.shard]!++;
          if (granted && permits.inFlight > permits.limit) return false;
        } else if (step.op === 'release') {
          permits.release('sandbox', step.shard, 0.01);
          if (held[step.shard]! > 0) held[step.shard]!--;
        } else if (step.op === 'limit') {
          permits.setLimit(step.limit);
        } else {
          if (permits.reclaimShard(step.shard) !== held[step.shard]) return false;
          held[step.shard] = 0;
        }
        const total = held.reduce((sum, n) => sum + n, 0);
        if (permits.inFlight !== total || held.some((n, shard) => permits.heldBy(shard) !== n)) return false;
      }
      return true;
    }),
  );
});
