// A resync of a pod nothing happened to starts from the runtime state its last sync
// left (runtimeUnchanged), as upstream's SyncPod from the PLEG cache; anything that
// may have changed the runtime sends the shard to read it again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { PodWorkers, RESYNC_RELIST_WAIT_MS, type PodSyncHost } from '../../../src/main/podworkers/pod-workers.js';
import type { PlegEvent, SyncPodRequest, SyncPodResult } from '../../../src/shared/shard-protocol.js';
import type { Pod, PodStatus } from '../../../src/shared/types.js';

const logger = pino({ level: 'silent' });
const RESYNC_MS = 60_000;
const NO_JITTER = { random: () => 0 };
const UID = 'u1';

/** A host whose syncs stay pending until the test finishes them. */
class ControlledHost implements PodSyncHost {
  readonly requests: SyncPodRequest[] = [];
  private readonly pending: Array<(result: SyncPodResult) => void> = [];
  private readonly failures: Array<(err: Error) => void> = [];
  runSync(request: SyncPodRequest): Promise<SyncPodResult> {
    this.requests.push(request);
    return new Promise((resolve, reject) => {
      this.pending.push(resolve);
      this.failures.push(reject);
    });
  }
  previousStatus(): PodStatus | undefined {
    return undefined;
  }
  onSyncResult(): void {}
  onSyncFailed(): void {}
  get last(): SyncPodRequest {
    return this.requests[this.requests.length - 1];
  }
  async finish(result: Partial<SyncPodResult> = {}): Promise<void> {
    this.failures.shift();
    const runtimeObjects = { sandbox: 'running' as const, app: 'running' as const };
    this.pending.shift()!({ uid: UID, status: { phase: 'Running' }, terminated: false, errors: [], runtimeObjects, actedOnObjects: runtimeObjects, removedObjectIds: [], ...result });
    await settle();
  }
  async fail(): Promise<void> {
    this.pending.shift();
    this.failures.shift()!(new Error('thread lost'));
    await settle();
  }
}

function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function pod(): Pod {
  return { metadata: { uid: UID, name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } };
}

/** A pod past its first sync, with a relist begun after that sync: its resyncs need not read the runtime. */
async function settledPod(): Promise<{ host: ControlledHost; workers: PodWorkers }> {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger, NO_JITTER);
  workers.updatePod({ type: 'create', pod: pod() });
  await host.finish();
  workers.noteFullRelist(Date.now() + 1);
  return { host, workers };
}

function resync(workers: PodWorkers): void {
  workers.syncDue(Date.now() + 2 * RESYNC_MS);
}

test('a resync after a relist that brought no news starts from the state the last sync left', async () => {
  const { host, workers } = await settledPod();
  assert.notEqual(host.requests[0].runtimeUnchanged, true, 'the first sync reads the runtime');
  resync(workers);
  assert.equal(host.requests.length, 2);
  assert.equal(host.last.runtimeUnchanged, true);
  await host.finish();
  workers.noteFullRelist(Date.now() + 1);
  resync(workers);
  assert.equal(host.last.runtimeUnchanged, true, 'and so on, relist after relist');
});

test('a resync before any relist begun after the last sync reads the runtime', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger, NO_JITTER);
  workers.noteFullRelist(Date.now() - 1);
  workers.updatePod({ type: 'create', pod: pod() });
  await host.finish();
  resync(workers);
  assert.equal(host.last.runtimeUnchanged, false);
});

test('PLEG news of the pod makes its next sync read the runtime, even a resync after later quiet relists', async () => {
  const { host, workers } = await settledPod();
  const died: PlegEvent = { podUid: UID, type: 'ContainerDied', id: 'app', state: 'exited' };
  workers.handlePlegEvents(UID, [died]);
  assert.equal(host.last.runtimeUnchanged, false, 'the sync the event wakes');
  await host.finish({ errors: [{ code: 'SHARDLET_INTERNAL', message: 'failed' }] });
  workers.noteFullRelist(Date.now() + 1);
  resync(workers);
  assert.equal(host.last.runtimeUnchanged, false, 'a failed sync leaves nothing to start from');
});

test('an event that only repeats what the last sync saw keeps the state good', async () => {
  const { host, workers } = await settledPod();
  workers.handlePlegEvents(UID, [{ podUid: UID, type: 'ContainerStarted', id: 'app', state: 'running' }]);
  assert.equal(host.requests.length, 1, 'no sync for it');
  resync(workers);
  assert.equal(host.last.runtimeUnchanged, true);
});

test('news parked while a sync ran makes the sync after it read the runtime', async () => {
  const { host, workers } = await settledPod();
  resync(workers);
  workers.handlePlegEvents(UID, [{ podUid: UID, type: 'ContainerDied', id: 'app', state: 'exited' }]);
  await host.finish();
  assert.equal(host.requests.length, 3, 'the parked news brings one more sync');
  assert.equal(host.last.runtimeUnchanged, false);
});

test('a sync that did not complete (a lost shard thread) leaves the next one to read the runtime', async () => {
  const { host, workers } = await settledPod();
  resync(workers);
  await host.fail();
  workers.noteFullRelist(Date.now() + 1);
  resync(workers);
  assert.equal(host.last.runtimeUnchanged, false);
});

test('stopping a pod always reads the runtime', async () => {
  const { host, workers } = await settledPod();
  workers.updatePod({ type: 'kill', pod: pod(), gracePeriodSeconds: 1 });
  assert.equal(host.last.kind, 'terminating');
  assert.notEqual(host.last.runtimeUnchanged, true);
});

test('a requeue the shard asked for on what it read (an exited init container) starts from that state at once', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger, NO_JITTER);
  workers.updatePod({ type: 'create', pod: pod() });
  const seen = { sandbox: 'running' as const, init: 'exited' as const };
  await host.finish({ requeueAfterMs: 1, requeueOnKeptState: true, runtimeObjects: seen, actedOnObjects: {} });
  // The init container's exit event comes too: it wakes the pod (nothing acted on the exit yet) but tells nothing new.
  workers.handlePlegEvents(UID, [{ podUid: UID, type: 'ContainerDied', id: 'init', state: 'exited' }]);
  assert.equal(host.requests.length, 2);
  assert.equal(host.last.runtimeUnchanged, true, 'no relist needed: the sync read the exit itself');
  await host.finish();
  resync(workers);
  assert.equal(host.last.runtimeUnchanged, false, 'a later resync waits for a relist again');
});

test('a requeue that is a look again (no container events) reads the runtime', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger, NO_JITTER);
  workers.updatePod({ type: 'create', pod: pod() });
  await host.finish({ requeueAfterMs: 1 });
  // Nothing here runs the sync tick: only the requeue's own timer can start the sync.
  for (let waitedMs = 0; host.requests.length < 2 && waitedMs < 500; waitedMs += 5) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(host.requests.length, 2);
  assert.equal(host.last.runtimeUnchanged, false);
});

test('a due resync waits for a relist to confirm the kept state, for a while, then reads', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger, NO_JITTER);
  workers.updatePod({ type: 'create', pod: pod() });
  await host.finish();
  const dueAtMs = Date.now() + RESYNC_MS;
  workers.syncDue(dueAtMs + 1);
  assert.equal(host.requests.length, 1, 'no relist since the last sync: the resync waits');
  await new Promise((resolve) => setTimeout(resolve, 2));
  workers.noteFullRelist(Date.now());
  workers.syncDue(dueAtMs + 2);
  assert.equal(host.requests.length, 2);
  assert.equal(host.last.runtimeUnchanged, true);
  await new Promise((resolve) => setTimeout(resolve, 2));
  await host.finish();
  workers.syncDue(Date.now() + RESYNC_MS + RESYNC_RELIST_WAIT_MS + 10);
  assert.equal(host.requests.length, 3, 'a PLEG that stopped relisting holds the resync up only so long');
  assert.equal(host.last.runtimeUnchanged, false);
});

test('a requeue whose timer fires a moment before Date.now says it is due still runs, without the sync tick', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger, NO_JITTER);
  workers.updatePod({ type: 'create', pod: pod() });
  // The event loop's clock runs ahead of Date.now's for a while (as it can by a millisecond).
  const realNow = Date.now;
  const frozenMs = realNow();
  Date.now = () => frozenMs;
  try {
    await host.finish({ requeueAfterMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(host.requests.length, 1, 'not due yet by Date.now');
  } finally {
    Date.now = realNow;
  }
  for (let waitedMs = 0; host.requests.length < 2 && waitedMs < 500; waitedMs += 5) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(host.requests.length, 2, 'the requeue ran once Date.now caught up');
});
