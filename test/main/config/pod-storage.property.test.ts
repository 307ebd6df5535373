// Property: any sequence of source updates, with pods of any shape, goes through
// the merge without throwing, and what the merge delivers stays consistent with
// what it holds: a pod is ADDed before it is updated, deleted or removed, never
// ADDed twice while held, REMOVEd only when held, and mergedState() is exactly
// the set of pods delivered and not removed, one per source and UID.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { pino } from 'pino';
import { PodStorage } from '../../../src/main/config/pod-storage.js';
import type { Pod, PodOperation, PodUpdate } from '../../../src/shared/types.js';

const NUM_RUNS = 200;
const SOURCES = ['file', 'http', 'api'];
const OPS: PodOperation[] = ['SET', 'ADD', 'UPDATE', 'DELETE', 'REMOVE'];

/** Mostly well-formed pods over a few UIDs and names (so updates and duplicates happen), some of any shape. */
const anything = fc.anything({ maxDepth: 3 });
const wellFormedPod = fc.record({
  metadata: fc.record(
    {
      uid: fc.constantFrom('u1', 'u2', 'u3', 'u4'),
      name: fc.constantFrom('a', 'b', 'c'),
      namespace: fc.constantFrom('default', 'kube-system'),
      annotations: fc.dictionary(fc.constantFrom('x', 'kubernetes.io/config.source', 'kubernetes.io/config.seen'), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
      labels: fc.dictionary(fc.constantFrom('app', 'tier'), fc.constantFrom('web', 'db'), { maxKeys: 2 }),
      deletionTimestamp: fc.constantFrom('2024-01-01T00:00:00Z'),
      deletionGracePeriodSeconds: fc.integer({ min: 0, max: 30 }),
    },
    { requiredKeys: ['uid', 'name'] },
  ),
  spec: fc.record({ containers: fc.constant([{ name: 'c', image: 'busybox' }]), x: anything }, { requiredKeys: ['containers'] }),
  status: fc.option(fc.record({ phase: fc.constantFrom('Pending', 'Running') }), { nil: undefined }),
});
const anyPod = fc.oneof({ weight: 6, arbitrary: wellFormedPod }, { weight: 1, arbitrary: anything }) as fc.Arbitrary<Pod>;
const update = fc.record({ source: fc.constantFrom(...SOURCES), op: fc.oneof(fc.constantFrom(...OPS), fc.string({ maxLength: 4 })), pods: fc.array(anyPod, { maxLength: 5 }) });

test('any sequence of updates never throws and keeps what is delivered consistent with what is held', () => {
  fc.assert(
    fc.property(fc.array(update, { maxLength: 25 }), (updates) => {
      const delivered: PodUpdate[] = [];
      const storage = new PodStorage((out) => delivered.push(out), pino({ level: 'silent' }));
      /** The model: what the sync loop has been told each source holds, by UID. */
      const held = new Map<string, Set<string>>(SOURCES.map((source) => [source, new Set()]));
      for (const change of updates) {
        delivered.length = 0;
        assert.doesNotThrow(() => storage.merge(change.source, change as PodUpdate));
        const uids = held.get(change.source)!;
        for (const out of delivered) {
          assert.equal(out.source, change.source, 'an update carries the source that caused it');
          for (const pod of out.pods) {
            const uid = pod.metadata?.uid ?? '';
            if (out.op === 'ADD') {
              assert.ok(!uids.has(uid), `ADD of ${uid}, already held`);
              uids.add(uid);
            } else if (out.op === 'REMOVE') {
              assert.ok(uids.has(uid), `REMOVE of ${uid}, not held`);
              uids.delete(uid);
            } else {
              assert.ok(uids.has(uid), `${out.op} of ${uid}, never added`);
            }
          }
        }
      }
      const state = storage.mergedState();
      const keys = state.map((pod) => `${pod.metadata?.annotations?.['kubernetes.io/config.source']}/${pod.metadata?.uid}`);
      assert.equal(new Set(keys).size, keys.length, 'one pod per source and UID');
      const modelKeys = [...held].flatMap(([source, uids]) => [...uids].map((uid) => `${source}/${uid}`));
      assert.deepEqual(keys.sort(), modelKeys.sort(), 'the merge holds exactly what it delivered and did not remove');
    }),
    { numRuns: NUM_RUNS },
  );
});

/**
 * A source that hands the same objects again (the API source's informer replaces an
 * object when the server changes the pod, never edits it) gets exactly what a source
 * handing fresh copies every time gets: the merge may skip an object it merged
 * before, never a change. Objects are picked from a pool by index, some replaced by
 * new ones as the informer does, and incremental changes of the same UIDs come between.
 */
test('a SET of objects merged before delivers what the same SET of fresh copies delivers', () => {
  const step = fc.oneof(
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('set' as const), picks: fc.array(fc.nat(5), { maxLength: 6 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('replace' as const), index: fc.nat(5), pod: wellFormedPod }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('incremental' as const), op: fc.constantFrom<PodOperation>('ADD', 'UPDATE', 'DELETE', 'REMOVE'), pod: wellFormedPod }) },
  );
  fc.assert(
    fc.property(fc.array(wellFormedPod, { minLength: 6, maxLength: 6 }), fc.array(step, { maxLength: 20 }), (initialPool, steps) => {
      const pool = [...initialPool] as unknown as Pod[];
      const clock = () => new Date('2026-11-24T00:00:00Z');
      const reused: PodUpdate[] = [];
      const fresh: PodUpdate[] = [];
      const reusing = new PodStorage((out) => reused.push(out), pino({ level: 'silent' }), clock);
      const copying = new PodStorage((out) => fresh.push(out), pino({ level: 'silent' }), clock);
      for (const change of steps) {
        if (change.kind === 'replace') {
          pool[change.index] = change.pod as unknown as Pod;
          continue;
        }
        const given: PodUpdate =
          change.kind === 'set' ? { op: 'SET', source: 'api', pods: change.picks.map((index) => pool[index]!) } : { op: change.op, source: 'api', pods: [change.pod as unknown as Pod] };
        reusing.merge('api', given);
        copying.merge('api', structuredClone(given));
      }
      assert.deepEqual(reused, fresh);
      assert.deepEqual(reusing.mergedState(), copying.mergedState());
    }),
    { numRuns: NUM_RUNS },
  );
});
