// The main thread sends a shard only what it may not hold (ShardRequests), the shard
// fills in what a request names from what it was sent before (ShardPodCache), and a
// shard that lost any of it asks for everything. Whatever is lost, on either side and
// at any time, the sync a shard runs gets exactly the request the pod worker made:
// never a stale spec, API data or previous status.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { ShardRequests } from '../../../src/main/shards/shard-requests.js';
import { isNeedFullRequest, type PodApiData, type ShardSyncReply, type ShardSyncRequest, type SyncKind, type SyncPodRequest, type SyncPodResult } from '../../../src/shared/shard-protocol.js';
import type { Pod, PodStatus } from '../../../src/shared/types.js';
import { ShardPodCache } from '../../../src/workers/shard-pod-cache.js';

const NUM_RUNS = 300;

function pod(uid: string, image = 'busybox:1'): Pod {
  return { metadata: { uid, name: uid, namespace: 'default' }, spec: { containers: [{ name: 'c', image }] } };
}

function resultFor(request: SyncPodRequest, status: PodStatus): SyncPodResult {
  return { uid: request.pod.metadata!.uid!, status, terminated: request.kind !== 'sync', errors: [], runtimeObjects: {}, actedOnObjects: {}, removedObjectIds: [] };
}

/** A shard thread as far as this protocol goes: messages are copies, and what it syncs is recorded. */
class FakeShard {
  cache = new ShardPodCache();
  readonly synced: SyncPodRequest[] = [];
  private nextPhase = 0;

  async run(wire: ShardSyncRequest, fail = false): Promise<ShardSyncReply> {
    return structuredClone(
      await this.cache.run(structuredClone(wire), async (request) => {
        this.synced.push(request);
        if (fail) throw new Error('lost');
        return resultFor(request, { phase: 'Running', message: `status ${++this.nextPhase}` });
      }),
    );
  }

  /** The thread died and was replaced: it starts with nothing. */
  replace(): void {
    this.cache = new ShardPodCache();
  }
}

/** ShardPool.sync's protocol, without threads. */
async function send(requests: ShardRequests, shard: FakeShard, request: SyncPodRequest, fail = false): Promise<SyncPodResult> {
  for (const whole of [false, true]) {
    const wire = requests.encode(request, whole);
    let reply: ShardSyncReply;
    try {
      reply = await shard.run(wire, fail);
    } catch (err) {
      requests.forget(wire.uid);
      throw err;
    }
    requests.settled(wire, reply);
    if (!isNeedFullRequest(reply)) return reply;
  }
  throw new Error('asked for everything twice');
}

test('the pod goes once; later syncs name it, and the status the shard returned; a new pod object goes again', async () => {
  const requests = new ShardRequests();
  const shard = new FakeShard();
  const v1 = pod('a');
  const first = await send(requests, shard, { kind: 'sync', pod: v1 });
  const wire = requests.encode({ kind: 'sync', pod: v1, previousStatus: first.status });
  assert.equal(wire.pod, undefined, 'the pod stays behind');
  assert.equal(wire.previousStatus, undefined, 'so does the status the shard returned');
  assert.equal(typeof wire.podFrom, 'number');
  assert.equal(typeof wire.previousStatusFrom, 'number');
  const second = await shard.run(wire);
  requests.settled(wire, second);
  assert.ok(!isNeedFullRequest(second));
  assert.deepEqual(shard.synced[1], { kind: 'sync', pod: v1, previousStatus: first.status, apiData: undefined, gracePeriodSeconds: undefined, removeFromRuntime: undefined, runtimeKnownEmpty: undefined, runtimeUnchanged: undefined });
  const v2 = pod('a', 'busybox:2');
  const third = requests.encode({ kind: 'sync', pod: v2, previousStatus: second.status });
  assert.deepEqual(third.pod, v2, 'a changed pod is sent whole');
  const ownStatus: PodStatus = { phase: 'Failed', reason: 'Evicted' };
  const fourth = requests.encode({ kind: 'sync', pod: v2, previousStatus: ownStatus });
  assert.deepEqual(fourth.previousStatus, ownStatus, 'a status the shard did not compute is sent');
});

test('API data goes when it differs from what was sent last, not when it is equal', async () => {
  const requests = new ShardRequests();
  const shard = new FakeShard();
  const p = pod('a');
  const data = (value: string): PodApiData => ({ configMaps: { app: { data: { key: value }, binaryData: {} } }, secrets: {}, serviceAccountTokens: {} });
  await send(requests, shard, { kind: 'sync', pod: p, apiData: data('1') });
  const same = requests.encode({ kind: 'sync', pod: p, apiData: data('1') });
  assert.equal(same.apiData, undefined);
  assert.equal(typeof same.apiDataFrom, 'number');
  await shard.run(same).then((reply) => requests.settled(same, reply));
  assert.deepEqual(shard.synced.at(-1)!.apiData, data('1'));
  const changed = requests.encode({ kind: 'sync', pod: p, apiData: data('2') });
  assert.deepEqual(changed.apiData, data('2'));
});

test('a replaced shard asks for everything and syncs on the current spec; a terminated pod is forgotten on both sides', async () => {
  const requests = new ShardRequests();
  const shard = new FakeShard();
  const p = pod('a');
  const first = await send(requests, shard, { kind: 'sync', pod: p });
  shard.replace();
  const wire = requests.encode({ kind: 'sync', pod: p, previousStatus: first.status });
  assert.ok(isNeedFullRequest(await shard.run(wire)), 'a shard that holds nothing says so, and syncs nothing');
  assert.equal(shard.synced.length, 1);
  await send(requests, shard, { kind: 'sync', pod: p, previousStatus: first.status });
  assert.deepEqual(shard.synced.at(-1)!.pod, p);
  assert.deepEqual(shard.synced.at(-1)!.previousStatus, first.status);
  assert.equal(requests.counts.resentFull, 1);
  await send(requests, shard, { kind: 'terminated', pod: p, removeFromRuntime: true });
  assert.equal(shard.cache.size, 0);
  assert.equal(requests.size, 0);
});

type Step =
  | { op: 'sync'; uid: string; kind: SyncKind }
  | { op: 'newSpec'; uid: string }
  | { op: 'newApiData'; uid: string }
  | { op: 'foreignStatus'; uid: string }
  | { op: 'replaceShard' }
  | { op: 'clearMain' }
  | { op: 'failSync'; uid: string };

const UIDS = ['a', 'b', 'c'];
const uid = fc.constantFrom(...UIDS);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('sync' as const), uid, kind: fc.constantFrom<SyncKind>('sync', 'sync', 'sync', 'terminating', 'terminated') }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('newSpec' as const), uid }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('newApiData' as const), uid }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('foreignStatus' as const), uid }) },
  { weight: 1, arbitrary: fc.constant({ op: 'replaceShard' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'clearMain' as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('failSync' as const), uid }) },
);

test('whatever is lost, changed or failed, every sync the shard runs gets exactly the pod worker\'s request', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
      const requests = new ShardRequests();
      const shard = new FakeShard();
      let version = 0;
      const specs = new Map(UIDS.map((id) => [id, pod(id)]));
      const apiData = new Map<string, PodApiData | undefined>();
      const statuses = new Map<string, PodStatus | undefined>();
      for (const s of steps) {
        if (s.op === 'newSpec') specs.set(s.uid, pod(s.uid, `busybox:${++version}`));
        else if (s.op === 'newApiData') apiData.set(s.uid, { configMaps: { cm: { data: { v: String(++version) }, binaryData: {} } }, secrets: {}, serviceAccountTokens: {} });
        else if (s.op === 'foreignStatus') statuses.set(s.uid, { phase: 'Failed', message: `kept by the main thread ${++version}` });
        else if (s.op === 'replaceShard') shard.replace();
        else if (s.op === 'clearMain') requests.clear();
        else {
          const id = s.uid;
          const request: SyncPodRequest = { kind: s.op === 'failSync' ? 'sync' : s.kind, pod: specs.get(id)!, apiData: apiData.get(id), previousStatus: statuses.get(id) };
          const before = shard.synced.length;
          const result = await send(requests, shard, request, s.op === 'failSync').catch(() => undefined);
          assert.equal(shard.synced.length, before + 1, 'exactly one sync ran');
          assert.ok(isDeepStrictEqual(shard.synced.at(-1), { gracePeriodSeconds: undefined, removeFromRuntime: undefined, runtimeKnownEmpty: undefined, runtimeUnchanged: undefined, ...request }), 'the shard synced the request as made');
          if (result) statuses.set(id, result.status);
        }
      }
    }),
    { numRuns: NUM_RUNS },
  );
});

test('a shard holding another version than the one a request names asks for everything and syncs nothing', async () => {
  const shard = new FakeShard();
  const p = pod('a');
  const first = await shard.run({ uid: 'a', kind: 'sync', seq: 1, pod: p });
  assert.ok(!isNeedFullRequest(first));
  const misses: Array<Partial<ShardSyncRequest>> = [
    { podFrom: 2 },
    { podFrom: 1, previousStatusFrom: 2 },
    { podFrom: 1, apiDataFrom: 1 },
    { previousStatusFrom: 1 },
  ];
  for (const miss of misses) {
    const reply = await shard.run({ uid: 'a', kind: 'sync', seq: 3, ...miss });
    assert.ok(isNeedFullRequest(reply), JSON.stringify(miss));
  }
  assert.equal(shard.synced.length, 1);
  const hit = await shard.run({ uid: 'a', kind: 'sync', seq: 4, podFrom: 1, previousStatusFrom: 1 });
  assert.ok(!isNeedFullRequest(hit));
  assert.deepEqual(shard.synced.at(-1)!.previousStatus, first.status);
});
