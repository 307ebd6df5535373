import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { PodWorkers, SYNC_ERROR_BACKOFF_MS, type PodSyncHost } from '../../../src/main/podworkers/pod-workers.js';
import type { SyncPodRequest, SyncPodResult } from '../../../src/shared/shard-protocol.js';
import type { Pod, PodStatus } from '../../../src/shared/types.js';

const logger = pino({ level: 'silent' });
const RESYNC_MS = 60_000;
/** Pins the resync and backoff jitter at its low end, so due times are exact. */
const NO_JITTER = { random: () => 0 };

/** A host whose syncs stay pending until the test resolves them, so ordering is visible. */
class ControlledHost implements PodSyncHost {
  readonly requests: SyncPodRequest[] = [];
  private readonly pending: Array<(result: SyncPodResult) => void> = [];
  runSync(request: SyncPodRequest): Promise<SyncPodResult> {
    this.requests.push(request);
    return new Promise((resolve) => this.pending.push(resolve));
  }
  previousStatus(): PodStatus | undefined {
    return undefined;
  }
  onSyncResult(): void {}
  onSyncFailed(): void {}
  get inFlight(): number {
    return this.pending.length;
  }
  /** Completes the oldest sync in flight. */
  async finish(status: Partial<SyncPodResult> = {}): Promise<void> {
    const request = this.requests[this.requests.length - this.pending.length];
    this.pending.shift()!({ uid: request.pod.metadata!.uid!, status: { phase: 'Running' }, terminated: false, errors: [], runtimeObjects: {}, actedOnObjects: {}, removedObjectIds: [], ...status } as SyncPodResult);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function pod(uid: string, image = 'busybox:1', source?: string, name = 'p'): Pod {
  return {
    metadata: { uid, name, namespace: 'default', annotations: source ? { 'kubernetes.io/config.source': source } : {} },
    spec: { containers: [{ name: 'c', image }], terminationGracePeriodSeconds: 30 },
  };
}

test('one sync at a time per pod; updates during a sync coalesce to the latest spec', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger);
  workers.updatePod({ type: 'create', pod: pod('u1', 'v1') });
  workers.updatePod({ type: 'update', pod: pod('u1', 'v2') });
  workers.updatePod({ type: 'update', pod: pod('u1', 'v3') });
  assert.equal(host.inFlight, 1);
  await host.finish();
  assert.equal(host.requests.length, 2, 'exactly one more sync for the coalesced updates');
  assert.equal(host.requests[1].pod.spec!.containers[0].image, 'v3');
  await host.finish();
  assert.equal(host.inFlight, 0);
});

test('pods sync independently of each other', () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger);
  workers.updatePod({ type: 'create', pod: pod('u1') });
  workers.updatePod({ type: 'create', pod: pod('u2') });
  assert.equal(host.inFlight, 2);
});

test('kill walks terminating (with the grace period) then terminated (with removal)', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger);
  workers.updatePod({ type: 'create', pod: pod('u1') });
  await host.finish();
  workers.updatePod({ type: 'kill', pod: pod('u1'), gracePeriodSeconds: 5, removeFromRuntime: true });
  assert.equal(host.requests[1].kind, 'terminating');
  assert.equal(host.requests[1].gracePeriodSeconds, 5);
  await host.finish({ terminated: false });
  assert.equal(host.inFlight, 0, 'still-running containers are rechecked later, not in a busy loop');
  workers.syncNow('u1');
  await host.finish({ terminated: true });
  assert.equal(host.requests[3].kind, 'terminated');
  assert.equal(host.requests[3].removeFromRuntime, true);
  await host.finish({ terminated: true });
  assert.equal(workers.isFinished('u1'), true);
  workers.updatePod({ type: 'update', pod: pod('u1') });
  assert.equal(host.inFlight, 0, 'a finished pod never syncs again');
});

test('a pod whose phase became terminal goes on to terminate', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger);
  workers.updatePod({ type: 'create', pod: pod('u1') });
  await host.finish({ status: { phase: 'Succeeded' } });
  assert.equal(host.requests[1].kind, 'terminating');
  assert.equal(workers.phaseOf('u1'), 'terminating');
});

test('a replacement static pod waits until its predecessor has terminated', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger);
  workers.updatePod({ type: 'create', pod: pod('old', 'v1', 'file', 'web') });
  await host.finish();
  workers.updatePod({ type: 'kill', pod: pod('old', 'v1', 'file', 'web'), removeFromRuntime: true });
  workers.updatePod({ type: 'create', pod: pod('new', 'v2', 'file', 'web') });
  assert.deepEqual(host.requests.map((r) => `${r.pod.metadata!.uid}:${r.kind}`), ['old:sync', 'old:terminating']);
  await host.finish({ terminated: true });
  await host.finish({ terminated: true });
  assert.equal(workers.isFinished('old'), true);
  workers.syncDue(Date.now() + 10_000);
  assert.deepEqual(host.requests.at(-1)!.pod.metadata!.uid, 'new');
  assert.equal(host.requests.at(-1)!.kind, 'sync');
});

test('a pod re-added with the same UID while terminating starts again once it has terminated', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger);
  workers.updatePod({ type: 'kill', pod: pod('u1'), removeFromRuntime: true });
  workers.updatePod({ type: 'create', pod: pod('u1', 'v2') });
  assert.equal(host.requests[0].kind, 'terminating');
  await host.finish({ terminated: true });
  await host.finish({ terminated: true });
  assert.equal(host.requests[2].kind, 'sync', 'started afresh');
  assert.equal(host.requests[2].pod.spec!.containers[0].image, 'v2');
  assert.equal(workers.phaseOf('u1'), 'syncing');
});

test('a pod re-added with the same UID after it finished starts again at once', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger);
  workers.updatePod({ type: 'kill', pod: pod('u1'), removeFromRuntime: true });
  await host.finish({ terminated: true });
  await host.finish({ terminated: true });
  assert.equal(workers.isFinished('u1'), true);
  workers.updatePod({ type: 'create', pod: pod('u1') });
  assert.equal(host.requests.at(-1)!.kind, 'sync');
});

test('PLEG events that repeat what the last sync saw do not sync again; news does, even when it came during a sync', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger);
  workers.updatePod({ type: 'create', pod: pod('u1') });
  // The relist saw the sandbox and the container while the first sync was still running.
  workers.handlePlegEvents('u1', [
    { podUid: 'u1', type: 'PodSandboxChanged', id: 's1', state: 'running' },
    { podUid: 'u1', type: 'ContainerStarted', id: 'c1', state: 'running' },
  ]);
  await host.finish({ runtimeObjects: { s1: 'running', c1: 'running' } });
  assert.equal(host.requests.length, 1, 'the sync that started c1 had already read it running');
  workers.handlePlegEvents('u1', [{ podUid: 'u1', type: 'ContainerStarted', id: 'c1', state: 'running' }]);
  assert.equal(host.requests.length, 1);
  workers.handlePlegEvents('u1', [{ podUid: 'u1', type: 'ContainerDied', id: 'c1', state: 'exited' }]);
  assert.equal(host.requests.length, 2, 'c1 exiting is news');
  workers.handlePlegEvents('u1', [{ podUid: 'u1', type: 'ContainerStarted', id: 'c2', state: 'running' }]);
  await host.finish({ runtimeObjects: { s1: 'running', c1: 'exited' } });
  assert.equal(host.requests.length, 3, 'an event during a sync that its result does not show syncs once more');
});

test('the sync tick leaves a pod whose sync is still running alone', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger, NO_JITTER);
  workers.updatePod({ type: 'create', pod: pod('u1') });
  workers.syncDue(Date.now() + 5_000);
  await host.finish();
  assert.equal(host.requests.length, 1, 'no second sync queued by the tick');
  workers.noteFullRelist(Date.now() + 1);
  workers.syncDue(Date.now() + RESYNC_MS + 1_000);
  assert.equal(host.requests.length, 2, 'the resync comes when due');
});

test('a PLEG event for something that stopped wakes the pod even when its last sync saw it stop', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger);
  workers.updatePod({ type: 'create', pod: pod('u1') });
  // The init container exited before the sync that started it read its status.
  await host.finish({ runtimeObjects: { s1: 'running', init1: 'exited' } });
  workers.handlePlegEvents('u1', [
    { podUid: 'u1', type: 'PodSandboxChanged', id: 's1', state: 'running' },
    { podUid: 'u1', type: 'ContainerDied', id: 'init1', state: 'exited' },
  ]);
  assert.equal(host.requests.length, 2, 'the next sync starts what comes after the init container');
});

test('a relist that caught a container before its sync started it is older than the sync and wakes nobody', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger);
  workers.updatePod({ type: 'create', pod: pod('u1') });
  workers.handlePlegEvents('u1', [{ podUid: 'u1', type: 'ContainerChanged', id: 'c1', state: 'created' }]);
  await host.finish({ runtimeObjects: { s1: 'running', c1: 'running' } });
  workers.handlePlegEvents('u1', [{ podUid: 'u1', type: 'ContainerChanged', id: 'c2', state: 'created' }]);
  assert.equal(host.requests.length, 2, 'a container the sync never saw is news');
});

test('a requeue sooner than the sync tick runs by its own timer; 0 waits for the tick, so a failing start is not retried in a loop', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger);
  workers.updatePod({ type: 'create', pod: pod('u1') });
  await host.finish({ requeueAfterMs: 20 });
  t.mock.timers.tick(19);
  assert.equal(host.requests.length, 1, 'not before the 20 ms are up');
  t.mock.timers.tick(1);
  assert.equal(host.requests.length, 2, 'requeue 20 ms: by its own timer');
  await host.finish({ requeueAfterMs: 0 });
  t.mock.timers.tick(RESYNC_MS);
  assert.equal(host.requests.length, 2, 'requeue 0: no timer of its own');
  workers.syncDue(Date.now());
  assert.equal(host.requests.length, 3, 'the tick runs it');
});

test('resyncs of pods created together are spread over up to half the interval (upstream workerResyncIntervalJitterFactor)', async () => {
  const host = new ControlledHost();
  const randoms = [0, 0.5, 0.999];
  const workers = new PodWorkers(host, RESYNC_MS, logger, { random: () => randoms.shift() ?? 0 });
  const startMs = Date.now();
  for (const uid of ['u1', 'u2', 'u3']) workers.updatePod({ type: 'create', pod: pod(uid) });
  for (let i = 0; i < 3; i++) await host.finish();
  // A relist since: the resyncs need not wait for one.
  workers.noteFullRelist(Date.now() + 1);
  const resynced = (atMs: number) => {
    workers.syncDue(atMs);
    return host.requests.slice(3).map((r) => r.pod.metadata!.uid);
  };
  // Date.now() moved on by a few ms while the syncs finished: look just past each due time.
  assert.deepEqual(resynced(startMs + RESYNC_MS + 1_000), ['u1']);
  assert.deepEqual(resynced(startMs + RESYNC_MS * 1.25 - 1_000), ['u1'], 'u2 is due at 1.25 × the interval');
  assert.deepEqual(resynced(startMs + RESYNC_MS * 1.25 + 1_000), ['u1', 'u2']);
  assert.deepEqual(resynced(startMs + RESYNC_MS * 1.5 + 1_000), ['u1', 'u2', 'u3']);
});

test('a failed sync is retried after the jittered backoff (upstream workerBackOffPeriodJitterFactor)', async (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger, { random: () => 0.5 });
  workers.updatePod({ type: 'create', pod: pod('u1') });
  await host.finish({ errors: [{ code: 'SHARDLET_INTERNAL', message: 'boom' }] });
  workers.syncDue(Date.now() + SYNC_ERROR_BACKOFF_MS * 1.25 - 1);
  assert.equal(host.requests.length, 1, 'not before 10 s + half of the 50 % jitter');
  workers.syncDue(Date.now() + SYNC_ERROR_BACKOFF_MS * 1.25);
  assert.equal(host.requests.length, 2);
});

test('an exit the last sync acted on wakes nobody; one it only saw after acting does', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger);
  workers.updatePod({ type: 'create', pod: pod('u1') });
  // This sync found the init container exited and started the app container.
  await host.finish({ actedOnObjects: { s1: 'running', init1: 'exited' }, runtimeObjects: { s1: 'running', init1: 'exited', app1: 'running' } });
  workers.handlePlegEvents('u1', [{ podUid: 'u1', type: 'ContainerDied', id: 'init1', state: 'exited' }]);
  assert.equal(host.requests.length, 1, 'the exit was already acted on');
  workers.syncNow('u1');
  // This one started the app container, which crashed before the sync read it.
  await host.finish({ actedOnObjects: { s1: 'running' }, runtimeObjects: { s1: 'running', app2: 'exited' } });
  workers.handlePlegEvents('u1', [{ podUid: 'u1', type: 'ContainerDied', id: 'app2', state: 'exited' }]);
  assert.equal(host.requests.length, 3, 'nobody has acted on the crash yet');
});

test('a dead instance the sync removed itself wakes nobody when the relist reports it gone; any other removal does', async () => {
  const host = new ControlledHost();
  const workers = new PodWorkers(host, RESYNC_MS, logger, NO_JITTER);
  workers.updatePod({ type: 'create', pod: pod('u1') });
  // A crash-loop sync: it restarted the app (app3) and its GC removed the oldest dead instance (app1).
  await host.finish({ actedOnObjects: { s1: 'running', app1: 'exited', app2: 'exited' }, runtimeObjects: { s1: 'running', app2: 'exited', app3: 'running' }, removedObjectIds: ['app1'] });
  workers.handlePlegEvents('u1', [{ podUid: 'u1', type: 'ContainerRemoved', id: 'app1', state: 'none' }]);
  assert.equal(host.requests.length, 1, 'its own cleanup is no news');
  workers.handlePlegEvents('u1', [{ podUid: 'u1', type: 'ContainerRemoved', id: 'app2', state: 'none' }]);
  assert.equal(host.requests.length, 2, 'a container someone else removed is');
});
