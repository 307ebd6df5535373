// Upstream never runs a pod again whose status is terminal: after a restart of the
// kubelet such a pod goes straight to termination, never to SyncPod.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { PodWorkers, type PodSyncHost } from '../../../src/main/podworkers/pod-workers.js';
import { TERMINAL_STATUS_FILE, TerminalStatusRecords } from '../../../src/main/status/terminal-status-records.js';
import type { SyncPodRequest, SyncPodResult } from '../../../src/shared/shard-protocol.js';
import type { Pod, PodStatus } from '../../../src/shared/types.js';
import { snapshotTree, treeChanges } from '../../helpers/tree-snapshot.js';

const logger = pino({ level: 'silent' });

function host(previous: Record<string, PodStatus> = {}): PodSyncHost & { requests: SyncPodRequest[] } {
  const requests: SyncPodRequest[] = [];
  return {
    requests,
    async runSync(request) {
      requests.push(request);
      const status = previous[request.pod.metadata!.uid!] ?? request.pod.status ?? { phase: 'Running' };
      return { uid: request.pod.metadata!.uid!, status, terminated: true, errors: [], runtimeObjects: {}, actedOnObjects: {}, removedObjectIds: [] } as SyncPodResult;
    },
    previousStatus: (uid) => previous[uid],
    onSyncResult() {},
    onSyncFailed() {},
  };
}

function pod(uid: string, restartPolicy: string, status?: PodStatus): Pod {
  return {
    metadata: { uid, name: uid, namespace: 'default', annotations: { 'kubernetes.io/config.source': status ? 'api' : 'file' } },
    spec: { restartPolicy, containers: [{ name: 'c', image: 'busybox' }] },
    status,
  };
}

/** The host answers at once, so a pod's whole chain of syncs runs in microtasks: one macrotask turn sees its end. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const cases: Array<{ name: string; pod: Pod; previous?: Record<string, PodStatus>; kinds: string[] }> = [
  { name: 'an API pod whose API status is Succeeded (restartPolicy Never)', pod: pod('a', 'Never', { phase: 'Succeeded' }), kinds: ['terminating', 'terminated'] },
  { name: 'an API pod whose API status is Failed', pod: pod('b', 'Never', { phase: 'Failed' }), kinds: ['terminating', 'terminated'] },
  { name: 'an API pod that Succeeded under restartPolicy OnFailure', pod: pod('c', 'OnFailure', { phase: 'Succeeded' }), kinds: ['terminating', 'terminated'] },
  { name: 'a static pod whose kept status is Succeeded', pod: pod('d', 'Never'), previous: { d: { phase: 'Succeeded' } }, kinds: ['terminating', 'terminated'] },
  { name: 'a running API pod', pod: pod('e', 'Never', { phase: 'Running' }), kinds: ['sync'] },
  { name: 'a new static pod', pod: pod('f', 'Never'), kinds: ['sync'] },
];

for (const { name, pod: target, previous, kinds } of cases) {
  test(`first sync of ${name}: ${kinds.join(' → ')}`, async () => {
    const syncHost = host(previous);
    const workers = new PodWorkers(syncHost, 60_000, logger);
    workers.updatePod({ type: 'create', pod: target });
    await settle();
    assert.deepEqual(syncHost.requests.map((r) => r.kind), kinds);
    if (kinds[0] !== 'sync') assert.equal(workers.isFinished(target.metadata!.uid!), true);
  });
}

test('a static pod re-added with the same UID after it finished starts afresh, without its old status', async () => {
  const restarted: string[] = [];
  const previous: Record<string, PodStatus> = { g: { phase: 'Succeeded' } };
  const syncHost = { ...host(previous), onPodRestart: (uid: string) => restarted.push(uid) };
  const workers = new PodWorkers(syncHost, 60_000, logger);
  workers.updatePod({ type: 'create', pod: pod('g', 'Never') });
  await settle();
  workers.updatePod({ type: 'kill', pod: pod('g', 'Never'), removeFromRuntime: true });
  await settle();
  delete previous.g;
  workers.updatePod({ type: 'create', pod: pod('g', 'Never') });
  await settle();
  assert.deepEqual(syncHost.requests.map((r) => r.kind), ['terminating', 'terminated', 'terminated', 'sync']);
  assert.deepEqual(restarted, ['g']);
  assert.equal(syncHost.requests.at(-1)?.kind, 'sync');
});

test('terminal records survive a restart and go with the pod', async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'shardlet-records-'));
  const records = new TerminalStatusRecords(rootDir, logger);
  records.record('u1', { phase: 'Succeeded', containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] });
  records.record('u2', { phase: 'Running' });
  await records.flush();
  const file = join(rootDir, 'pods', 'u1', TERMINAL_STATUS_FILE);
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).status.phase, 'Succeeded');
  assert.equal(existsSync(join(rootDir, 'pods', 'u2')), false, 'only terminal statuses are kept');
  const reloaded = new TerminalStatusRecords(rootDir, logger);
  await reloaded.load();
  assert.equal(reloaded.get('u1')?.phase, 'Succeeded');
  reloaded.forget('u1');
  await reloaded.flush();
  assert.equal(existsSync(join(rootDir, 'pods', 'u1')), false);
});

test('records of pods no source has any more are pruned once the sources are ready', async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'shardlet-records-'));
  const records = new TerminalStatusRecords(rootDir, logger);
  for (const uid of ['kept', 'gone']) records.record(uid, { phase: 'Failed' });
  await records.flush();
  const reloaded = new TerminalStatusRecords(rootDir, logger);
  await reloaded.load();
  reloaded.pruneExcept((uid) => uid === 'kept');
  await reloaded.flush();
  assert.equal(reloaded.get('kept')?.phase, 'Failed');
  assert.equal(reloaded.get('gone'), undefined);
  assert.equal(existsSync(join(rootDir, 'pods', 'gone')), false);
  assert.equal(existsSync(join(rootDir, 'pods', 'kept', TERMINAL_STATUS_FILE)), true);
});

test('a terminal record is never written or removed outside <root>/pods: a UID that is not one segment gets none', async () => {
  const base = mkdtempSync(join(tmpdir(), 'shardlet-records-'));
  const rootDir = join(base, 'root');
  mkdirSync(join(base, 'victim'), { recursive: true });
  writeFileSync(join(base, 'victim', TERMINAL_STATUS_FILE), 'not the kubelet\'s');
  const logs: Array<Record<string, unknown>> = [];
  const records = new TerminalStatusRecords(rootDir, pino({ level: 'warn' }, { write: (line: string) => void logs.push(JSON.parse(line)) }));
  const before = await snapshotTree(base);
  // <root>/pods/x/../../../victim is <base>/victim.
  for (const uid of ['x/../../../victim', '..', '../../victim']) {
    records.record(uid, { phase: 'Failed' });
    records.forget(uid);
  }
  await records.flush();
  assert.deepEqual(treeChanges(before, await snapshotTree(base)), []);
  assert.ok(logs.some((line) => String(line.err).startsWith('metadata.uid: Invalid value')), JSON.stringify(logs));
});
