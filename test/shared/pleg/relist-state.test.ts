// The PLEG's memory fed by full relists and by the per-pod relists container events
// trigger, in any order their replies come back: no event twice, none lost, and
// each pod's events in the order its changes happened.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RelistEntry, RelistSnapshot } from '../../../src/shared/pleg/relist-diff.js';
import { RelistState, type PodSnapshots } from '../../../src/shared/pleg/relist-state.js';
import type { PlegEvent, RuntimeObjectState } from '../../../src/shared/shard-protocol.js';

type PodObjects = Record<string, RuntimeObjectState>;

/** One pod's containers in the relist's terms, from id → state. */
function pod(uid: string, objects: PodObjects): RelistSnapshot {
  return new Map(Object.entries(objects).map(([id, state]): [string, RelistEntry] => [id, { podUid: uid, kind: 'container', state }]));
}

function node(pods: Record<string, PodObjects>): PodSnapshots {
  return new Map(Object.entries(pods).map(([uid, objects]) => [uid, pod(uid, objects)]));
}

const brief = (events: PlegEvent[]) => events.map((event) => `${event.podUid} ${event.id} ${event.state}`);

test('what a per-pod relist reported, the full relist after it does not report again', () => {
  const state = new RelistState();
  assert.deepEqual(brief(state.applyFull(state.begin(), node({ a: { c1: 'created' } }))), ['a c1 created']);
  assert.deepEqual(brief(state.applyPod(state.begin(), 'a', pod('a', { c1: 'running' }))), ['a c1 running']);
  assert.deepEqual(state.applyFull(state.begin(), node({ a: { c1: 'running' } })), []);
});

test('a full relist begun before a per-pod relist but answered after it leaves that pod alone and reports the others', () => {
  const state = new RelistState();
  state.applyFull(state.begin(), node({ a: { c1: 'created' }, b: { c2: 'created' } }));
  const full = state.begin();
  const perPod = state.begin();
  assert.deepEqual(brief(state.applyPod(perPod, 'a', pod('a', { c1: 'exited' }))), ['a c1 exited']);
  // The full relist's reply is older for pod a (c1 still running there): it must not take a back, nor repeat.
  assert.deepEqual(brief(state.applyFull(full, node({ a: { c1: 'running' }, b: { c2: 'running' } }))), ['b c2 running']);
  // The next full relist sees pod a as the per-pod relist did: nothing to say.
  assert.deepEqual(state.applyFull(state.begin(), node({ a: { c1: 'exited' }, b: { c2: 'running' } })), []);
});

test('a per-pod relist begun before a full relist that was applied first says nothing the full one did not', () => {
  const state = new RelistState();
  state.applyFull(state.begin(), node({ a: { c1: 'created' } }));
  const perPod = state.begin();
  const full = state.begin();
  assert.deepEqual(brief(state.applyFull(full, node({ a: { c1: 'exited' } }))), ['a c1 exited']);
  assert.deepEqual(state.applyPod(perPod, 'a', pod('a', { c1: 'running' })), [], 'its older view is dropped');
  assert.equal(state.objectsOf('a').get('c1')?.state, 'exited');
});

test('a pod gone from the runtime: the per-pod relist reports its objects gone once', () => {
  const state = new RelistState();
  state.applyFull(state.begin(), node({ a: { c1: 'exited' } }));
  assert.deepEqual(brief(state.applyPod(state.begin(), 'a', new Map())), ['a c1 none']);
  assert.deepEqual(state.applyFull(state.begin(), node({})), []);
  assert.equal(state.objectsOf('a').size, 0);
});

test('changes no container event announced still come from the full relist', () => {
  const state = new RelistState();
  state.applyFull(state.begin(), node({ a: { c1: 'running' }, b: { c2: 'running' } }));
  state.applyPod(state.begin(), 'a', pod('a', { c1: 'running', c3: 'created' }));
  assert.deepEqual(brief(state.applyFull(state.begin(), node({ a: { c1: 'exited', c3: 'created' }, b: { c2: 'exited' } }))), [
    'a c1 exited',
    'b c2 exited',
  ]);
});

/** A small seeded generator (mulberry32), so a failing interleaving can be replayed. */
function seeded(seed: number): () => number {
  let value = seed;
  return () => {
    value = (value + 0x6d2b79f5) | 0;
    let t = Math.imul(value ^ (value >>> 15), 1 | value);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LIFE: Array<RuntimeObjectState | 'none'> = ['none', 'created', 'running', 'exited', 'none'];
const PODS = ['a', 'b', 'c'];
/** Where each reported state lies along that life ('none' once gone). */
const ORDER: Record<string, number> = { created: 1, running: 2, exited: 3, none: 4 };

/** The runtime at a step: each pod's one container somewhere along its life. */
function runtimeAt(stages: number[]): PodSnapshots {
  const snapshots: PodSnapshots = new Map();
  PODS.forEach((uid, index) => {
    const state = LIFE[stages[index]];
    if (state !== 'none') snapshots.set(uid, pod(uid, { [`${uid}-c`]: state }));
  });
  return snapshots;
}

test('any interleaving of full and per-pod relists: each pod walks its life in order, once, and ends where the runtime is', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const random = seeded(seed);
    const state = new RelistState();
    const stages = PODS.map(() => 0);
    const reported = new Map<string, string[]>(PODS.map((uid) => [uid, []]));
    // Relists begun (each reads the runtime as it is when it begins) and not yet applied.
    const inFlight: Array<{ seq: number; uid?: string; snapshot: PodSnapshots }> = [];
    const apply = (index: number) => {
      const [relist] = inFlight.splice(index, 1);
      const events = relist.uid
        ? state.applyPod(relist.seq, relist.uid, relist.snapshot.get(relist.uid) ?? new Map())
        : state.applyFull(relist.seq, relist.snapshot);
      for (const event of events) reported.get(event.podUid)!.push(event.state);
    };
    for (let step = 0; step < 40; step++) {
      const roll = random();
      if (roll < 0.3) {
        const index = Math.floor(random() * PODS.length);
        stages[index] = Math.min(stages[index] + 1, LIFE.length - 1);
      } else if (roll < 0.55) {
        inFlight.push({ seq: state.begin(), uid: PODS[Math.floor(random() * PODS.length)], snapshot: runtimeAt(stages) });
      } else if (roll < 0.7) {
        inFlight.push({ seq: state.begin(), snapshot: runtimeAt(stages) });
      } else if (inFlight.length > 0) {
        apply(Math.floor(random() * inFlight.length));
      }
    }
    while (inFlight.length > 0) apply(Math.floor(random() * inFlight.length));
    inFlight.push({ seq: state.begin(), snapshot: runtimeAt(stages) });
    apply(0);
    PODS.forEach((uid, index) => {
      const walk = reported.get(uid)!;
      for (let at = 1; at < walk.length; at++) {
        assert.ok(ORDER[walk[at]] > ORDER[walk[at - 1]], `seed ${seed}, pod ${uid}: ${walk.join(' → ')} repeats a state or goes back`);
      }
      const finalState = LIFE[stages[index]];
      const lastReported = walk.at(-1) ?? 'none';
      assert.equal(lastReported, finalState, `seed ${seed}, pod ${uid}: ended at ${lastReported}, the runtime at ${finalState}`);
    });
  }
});
