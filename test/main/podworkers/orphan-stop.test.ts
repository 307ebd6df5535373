// An orphan (a runtime pod no source wants) is stopped once. Housekeeping forgets a
// finished pod worker, and the runtime pod set it reads comes from the last relist
// that changed it: if it forgot the orphan before a relist had seen the removal, the
// stale set showed the orphan again and it was stopped a second time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { PodManager } from '../../../src/main/pod/pod-manager.js';
import { PodWorkers } from '../../../src/main/podworkers/pod-workers.js';
import { PodStatusCache } from '../../../src/main/status/pod-status-cache.js';
import { SyncLoop } from '../../../src/main/sync-loop.js';
import type { SyncPodRequest, SyncPodResult } from '../../../src/shared/shard-protocol.js';

const logger = pino({ level: 'silent' });
const ORPHAN = { uid: 'orphan-1', name: 'web-node', namespace: 'default', active: true };

function setup() {
  const syncs: SyncPodRequest[] = [];
  const host = {
    runSync: async (request: SyncPodRequest): Promise<SyncPodResult> => {
      syncs.push(request);
      const uid = request.pod.metadata!.uid!;
      return { uid, status: { phase: 'Failed' }, terminated: true, errors: [], runtimeObjects: {}, actedOnObjects: {}, removedObjectIds: [] };
    },
    previousStatus: () => undefined,
    onSyncResult: () => undefined,
    onSyncFailed: () => undefined,
  };
  const podWorkers = new PodWorkers(host, 60_000, logger);
  const loop = new SyncLoop({
    podManager: new PodManager(),
    podWorkers,
    statuses: new PodStatusCache(logger),
    logger,
    sourcesReady: () => true,
    onPodSeen: () => undefined,
    admit: () => ({ admit: true, reason: '', message: '' }),
    onRejected: () => undefined,
  });
  return { loop, podWorkers, syncs };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('an orphan is stopped and removed once, even when housekeeping runs again before the next relist', async () => {
  const { loop, podWorkers, syncs } = setup();
  loop.handleRelist({ events: [], runtimePods: [ORPHAN], startedAtMs: Date.now() - 10 });
  loop.housekeeping();
  await settle();
  assert.deepEqual(syncs.map((s) => s.kind), ['terminating', 'terminated']);
  assert.ok(podWorkers.isFinished(ORPHAN.uid));

  // Housekeeping comes round again before any relist has seen the removal.
  loop.housekeeping();
  await settle();
  // A relist that started before the pod was removed still shows it.
  loop.handleRelist({ events: [], startedAtMs: Date.now() - 60_000 });
  loop.housekeeping();
  await settle();
  assert.deepEqual(syncs.map((s) => s.kind), ['terminating', 'terminated'], 'stopped once');

  // The first relist that started after the removal no longer lists it: now it is forgotten.
  await new Promise((resolve) => setTimeout(resolve, 5));
  loop.handleRelist({ events: [], runtimePods: [], startedAtMs: Date.now() });
  loop.housekeeping();
  assert.equal(podWorkers.has(ORPHAN.uid), false, 'the finished orphan is forgotten');
  assert.equal(syncs.length, 2);
});

test('an orphan still in the runtime after a relist newer than its removal is stopped again', async () => {
  const { loop, syncs } = setup();
  loop.handleRelist({ events: [], runtimePods: [ORPHAN], startedAtMs: Date.now() - 10 });
  loop.housekeeping();
  await settle();
  await new Promise((resolve) => setTimeout(resolve, 5));
  // The removal left something behind: a fresh relist still shows the pod.
  loop.handleRelist({ events: [], runtimePods: [{ ...ORPHAN, active: false }], startedAtMs: Date.now() });
  loop.housekeeping();
  loop.housekeeping();
  await settle();
  assert.deepEqual(syncs.map((s) => s.kind), ['terminating', 'terminated', 'terminating', 'terminated']);
});
