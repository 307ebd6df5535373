import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { PodManager } from '../../src/main/pod/pod-manager.js';
import type { PodWorkers, UpdatePodOptions } from '../../src/main/podworkers/pod-workers.js';
import { PodStatusCache } from '../../src/main/status/pod-status-cache.js';
import { MIN_SYNC_LOOP_STALL_MS, RELIST_THRESHOLD_MS, SyncLoop, type SyncLoopDeps } from '../../src/main/sync-loop.js';
import { admitPod } from '../../src/shared/admission/admit-pod.js';
import type { Pod } from '../../src/shared/types.js';

const logger = pino({ level: 'silent' });

/** Records what the sync loop asks of the pod workers. */
function recordingWorkers() {
  const updates: UpdatePodOptions[] = [];
  const woken: string[] = [];
  const known = new Set<string>();
  const workers = {
    updatePod: (options: UpdatePodOptions) => {
      updates.push(options);
      known.add(options.pod.metadata!.uid!);
    },
    handlePlegEvents: (uid: string) => woken.push(uid),
    noteFullRelist: () => undefined,
    uids: () => [...known],
    has: (uid: string) => known.has(uid),
    isFinished: () => false,
    phaseOf: (uid: string) => (known.has(uid) ? 'syncing' : undefined),
    forget: (uid: string) => known.delete(uid),
  } as unknown as PodWorkers;
  return { workers, updates, woken };
}

function setup(sourcesReady = true, maxPods = 110, extra: Partial<SyncLoopDeps> = {}) {
  const recorded = recordingWorkers();
  const podManager = new PodManager();
  const rejections: string[] = [];
  const node = { name: 'n1', labels: {}, taints: [], allocatable: { cpuMillis: 4000, memoryBytes: 8 << 30, pods: maxPods } };
  const loop = new SyncLoop({
    podManager,
    podWorkers: recorded.workers,
    statuses: new PodStatusCache(logger),
    logger,
    sourcesReady: () => sourcesReady,
    onPodSeen: () => undefined,
    // What the kubelet counts: the pods it holds whose pod worker is syncing.
    admit: (candidate) => admitPod(candidate, podManager.pods().filter((p) => recorded.workers.phaseOf(p.metadata!.uid!) === 'syncing'), node),
    onRejected: (pod, reason) => rejections.push(`${pod.metadata!.uid}:${reason}`),
    ...extra,
  });
  return { loop, podManager, rejections, ...recorded };
}

const pod = (uid: string, extra: Partial<NonNullable<Pod['metadata']>> = {}): Pod => ({
  metadata: { uid, name: uid, namespace: 'default', ...extra },
  spec: { containers: [{ name: 'c', image: 'i' }] },
});

test('config operations become the pod worker updates upstream makes', () => {
  const { loop, podManager, updates } = setup();
  loop.handleConfigUpdate({ op: 'ADD', source: 'file', pods: [pod('a')] });
  loop.handleConfigUpdate({ op: 'UPDATE', source: 'file', pods: [pod('a')] });
  loop.handleConfigUpdate({ op: 'DELETE', source: 'api', pods: [pod('a', { deletionGracePeriodSeconds: 7 })] });
  loop.handleConfigUpdate({ op: 'REMOVE', source: 'file', pods: [pod('a')] });
  assert.deepEqual(
    updates.map((u) => [u.type, u.gracePeriodSeconds, u.removeFromRuntime]),
    [['create', undefined, undefined], ['update', undefined, undefined], ['kill', 7, undefined], ['kill', undefined, true]],
  );
  assert.equal(podManager.get('a'), undefined, 'REMOVE forgets the pod');
});

test('PLEG events reach each affected pod once', () => {
  const { loop, woken } = setup();
  loop.handleRelist({
    startedAtMs: Date.now(),
    events: [
      { podUid: 'a', type: 'ContainerDied', id: 'c1', state: 'exited' },
      { podUid: 'a', type: 'ContainerStarted', id: 'c2', state: 'running' },
      { podUid: 'b', type: 'ContainerStarted', id: 'c3', state: 'running' },
    ],
  });
  assert.deepEqual(woken.sort(), ['a', 'b']);
});


test('housekeeping stops runtime pods no source wants, only once every source is ready', () => {
  for (const ready of [false, true]) {
    const { loop, podManager, updates } = setup(ready);
    podManager.addOrUpdate(pod('wanted'));
    loop.handleRelist({
      startedAtMs: Date.now(),
      events: [],
      runtimePods: [
        { uid: 'wanted', name: 'wanted', namespace: 'default', active: true },
        { uid: 'orphan', name: 'old', namespace: 'default', active: true },
      ],
    });
    loop.housekeeping();
    const kills = updates.filter((u) => u.type === 'kill').map((u) => u.pod.metadata!.uid);
    assert.deepEqual(kills, ready ? ['orphan'] : []);
  }
});

test('housekeeping asks for the subPath mounts of pods no part of the kubelet knows, once a relist told what the runtime holds', () => {
  const asked: Array<(uid: string) => boolean> = [];
  const { loop, podManager } = setup(true, 110, { cleanupOrphanedPodSubpaths: (isKnown) => asked.push(isKnown) });
  podManager.addOrUpdate(pod('wanted'));
  loop.housekeeping();
  assert.equal(asked.length, 0, 'before the first relist every pod could still be the runtime\'s');
  loop.handleRelist({ startedAtMs: Date.now(), events: [], runtimePods: [{ uid: 'in-runtime', name: 'old', namespace: 'default', active: true }] });
  loop.housekeeping();
  assert.equal(asked.length, 1);
  assert.deepEqual(['wanted', 'in-runtime', 'gone'].map(asked[0]), [true, true, false]);
});

test('/healthz turns unhealthy when no relist succeeded within the threshold', () => {
  const { loop } = setup();
  const now = Date.now();
  assert.equal(loop.plegHealth(now).ok, true);
  const stale = loop.plegHealth(now + RELIST_THRESHOLD_MS + 5_000);
  assert.equal(stale.ok, false);
  assert.match(stale.reason, /PLEG is not healthy/);
  loop.handleRelist({ startedAtMs: Date.now(), events: [] });
  assert.equal(loop.plegHealth(Date.now()).ok, true);
});

test('a per-pod relist (a container event) wakes its pod but neither refreshes the PLEG health nor the runtime pod set', (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  const { loop, podManager, updates, woken } = setup();
  podManager.addOrUpdate(pod('wanted'));
  loop.handleRelist({ startedAtMs: Date.now(), events: [], runtimePods: [{ uid: 'wanted', name: 'wanted', namespace: 'default', active: true }] });
  t.mock.timers.tick(RELIST_THRESHOLD_MS + 5_000);
  loop.handleRelist({
    startedAtMs: Date.now(),
    events: [{ podUid: 'wanted', type: 'ContainerDied', id: 'c1', state: 'exited' }],
    podUid: 'wanted',
  });
  assert.deepEqual(woken, ['wanted']);
  assert.equal(loop.plegHealth(Date.now()).ok, false, 'only the periodic relist shows the PLEG alive');
  loop.housekeeping();
  assert.deepEqual(updates.filter((u) => u.type === 'kill'), [], 'the pod set is still the full relist\'s');
  loop.handleRelist({ startedAtMs: Date.now(), events: [] });
  assert.equal(loop.plegHealth(Date.now()).ok, true);
});

test('a relist period lengthened past the threshold lengthens the PLEG health threshold to three periods', (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  const relistPeriodMs = 10 * 60_000;
  const { loop } = setup(true, 110, { relistPeriodMs });
  loop.handleRelist({ startedAtMs: Date.now(), events: [] });
  assert.equal(loop.plegHealth(Date.now() + 2 * relistPeriodMs).ok, true);
  assert.equal(loop.plegHealth(Date.now() + 3 * relistPeriodMs + 1_000).ok, false);
});

test('a pod over maxPods is rejected with OutOfpods and never gets a pod worker', () => {
  const { loop, updates, rejections } = setup(true, 2);
  loop.handleConfigUpdate({ op: 'ADD', source: 'api', pods: [pod('a'), pod('b'), pod('c')] });
  assert.deepEqual(updates.map((u) => u.pod.metadata!.uid), ['a', 'b']);
  assert.deepEqual(rejections, ['c:OutOfpods']);
  loop.handleConfigUpdate({ op: 'UPDATE', source: 'api', pods: [pod('c')] });
  assert.equal(updates.length, 2, 'a rejected pod stays rejected');
});

test('a pod whose handling throws is logged and skipped; the other pods of the same update go on', () => {
  const recorded = recordingWorkers();
  const lines: Array<Record<string, unknown>> = [];
  const capture = pino({ level: 'error' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const updatePod = recorded.workers.updatePod.bind(recorded.workers);
  recorded.workers.updatePod = (options: UpdatePodOptions) => {
    if (options.pod.metadata?.uid === 'bad') throw new RangeError('Maximum call stack size exceeded');
    updatePod(options);
  };
  const node = { name: 'n1', labels: {}, taints: [], allocatable: { cpuMillis: 4000, memoryBytes: 8 << 30, pods: 110 } };
  const loop = new SyncLoop({
    podManager: new PodManager(),
    podWorkers: recorded.workers,
    statuses: new PodStatusCache(capture),
    logger: capture,
    sourcesReady: () => true,
    onPodSeen: () => undefined,
    admit: (p) => admitPod(p, [], node),
    onRejected: () => undefined,
  });
  loop.handleConfigUpdate({ op: 'ADD', source: 'file', pods: [pod('a'), pod('bad'), pod('c')] });
  assert.deepEqual(recorded.updates.map((u) => u.pod.metadata!.uid), ['a', 'c']);
  const failures = lines.filter((line) => line.code === 'SHARDLET_INTERNAL');
  assert.equal(failures.length, 1);
  assert.equal(failures[0]!.uid, 'bad');
  assert.match(String(failures[0]!.err), /Maximum call stack/);
});

test('/healthz fails when the sync loop has not ticked for twice the resync period, at least 5 minutes (upstream syncLoopHealthCheck)', () => {
  const { loop, workers } = setup();
  const due: number[] = [];
  (workers as unknown as { syncDue: (nowMs: number) => void }).syncDue = (nowMs) => due.push(nowMs);
  // Only the sync loop's own verdict is read here: the PLEG check (no relist in this test) fails after 3 minutes on its own.
  const stalled = (atMs: number, syncFrequencyMs: number) => loop.health(atMs, syncFrequencyMs).reason === 'sync Loop took longer than expected';
  const now = Date.now();
  assert.equal(stalled(now + 60 * 60_000, 60_000), false, 'no verdict before the first tick');
  loop.syncTick(now);
  assert.deepEqual(due, [now], 'the tick runs the due pods');
  assert.equal(stalled(now + MIN_SYNC_LOOP_STALL_MS, 60_000), false);
  assert.equal(stalled(now + MIN_SYNC_LOOP_STALL_MS + 1, 60_000), true);
  assert.equal(loop.health(now + MIN_SYNC_LOOP_STALL_MS + 1, 60_000).ok, false);
  // A 10-minute resync period allows 20 minutes.
  assert.equal(stalled(now + 20 * 60_000, 10 * 60_000), false);
  assert.equal(stalled(now + 20 * 60_000 + 1, 10 * 60_000), true);
  loop.syncTick(now + 20 * 60_000);
  assert.equal(stalled(now + 20 * 60_000 + 1, 10 * 60_000), false, 'a tick ends the stall');
});
