// The runtime contention guard across real shard threads against the simulated
// runtime: however the pods hash onto the shards, the runtime never has more
// sandbox and container creations in flight than the node-wide limit; the guard
// off hands it every one at once; a shard thread that dies holding permits does
// not keep them. The sim holds each creation call for a while (its latency model,
// or an injected delay), so the calls overlap as on a busy runtime.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { pino } from 'pino';
import { PullCoordinator } from '../../../src/main/images/pull-coordinator.js';
import { ShardPool } from '../../../src/main/shards/shard-pool.js';
import { CreationPermits } from '../../../src/shared/runtime-creation/creation-permits.js';
import type { Pod } from '../../../src/shared/types.js';
import { inProcessShardSettings } from '../../../src/tools/in-process-shard-settings.js';
import { startHarness, type SimHarness } from '../../simruntime/harness.js';
import { waitUntil } from '../../helpers/kubelet-process.js';

const IMAGE = 'registry.local/app:1.0';
const logger = pino({ level: 'silent' });
const cleanups: Array<() => Promise<void> | void> = [];

after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Creation calls that take long enough to overlap; everything else answers at once. */
const HOLDING_LATENCY = { scale: 1, jitter: 0, callLatencyMs: { RunPodSandbox: 150, CreateContainer: 20, StartContainer: 80, PullImage: 0 }, imageSizesBytes: { [IMAGE]: 0 } };

async function setUp(workers: number, permits: CreationPermits | undefined, faultInjection = false): Promise<{ harness: SimHarness; pool: ShardPool; replaced: number[] }> {
  const harness = await startHarness(HOLDING_LATENCY);
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-creation-limit-'));
  const replaced: number[] = [];
  const pool = new ShardPool({
    workers,
    settings: inProcessShardSettings(harness.sim.endpoint, workDir, {
      runtimeCreationPermits: permits ? { buffer: permits.buffer, shards: permits.shards } : undefined,
    }),
    pulls: new PullCoordinator({ serializeImagePulls: false, logger }),
    logger,
    onShardLost: (index) => permits?.reclaimShard(index),
    onShardReplaced: (index) => replaced.push(index),
    onRelist: () => undefined,
    faultInjection,
  });
  cleanups.push(async () => {
    await pool.close();
    await harness.close();
    rmSync(workDir, { recursive: true, force: true });
  });
  return { harness, pool, replaced };
}

const pod = (uid: string): Pod => ({
  metadata: { uid, name: uid, namespace: 'default' },
  spec: { containers: [{ name: 'app', image: IMAGE, imagePullPolicy: 'IfNotPresent' }], terminationGracePeriodSeconds: 0 },
});

/** `count` pod UIDs, and on which shard each lands. */
function podsOn(pool: ShardPool, count: number, prefix: string): { uids: string[]; shards: Set<number> } {
  const uids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  return { uids, shards: new Set(uids.map((uid) => pool.shardOf(uid))) };
}

test('two shards together never have more creations in the runtime than the node-wide limit', async () => {
  const limit = 3;
  const permits = CreationPermits.create(2, limit);
  const { harness, pool } = await setUp(2, permits);
  const { uids, shards } = podsOn(pool, 16, 'guarded');
  assert.equal(shards.size, 2, 'the pods land on both shards');
  const results = await Promise.all(uids.map((uid) => pool.sync({ kind: 'sync', pod: pod(uid), runtimeKnownEmpty: true })));
  for (const result of results) assert.equal(result.status.phase, 'Running', JSON.stringify(result.errors));
  const stats = harness.sim.stats();
  assert.ok(stats.maxCreationsInFlight <= limit, `at most ${limit} creations in the runtime at once, saw ${stats.maxCreationsInFlight}`);
  assert.ok(stats.maxCreationsInFlight >= 2, `the shards did create in parallel, saw ${stats.maxCreationsInFlight}`);
  assert.deepEqual([permits.inFlight, permits.heldBy(0), permits.heldBy(1), permits.waiting], [0, 0, 0, 0], 'every permit came back');
  const window = permits.takeWindow();
  assert.equal(window.byKind.sandbox.count, 16, 'each sandbox creation reported its latency');
  assert.equal(window.byKind.container.count, 16, 'each container creation (create and start) reported its latency');
});

test('with the guard off the runtime gets every creation at once (what the limit prevents)', async () => {
  const { harness, pool } = await setUp(2, undefined);
  const { uids } = podsOn(pool, 16, 'unguarded');
  const results = await Promise.all(uids.map((uid) => pool.sync({ kind: 'sync', pod: pod(uid), runtimeKnownEmpty: true })));
  for (const result of results) assert.equal(result.status.phase, 'Running', JSON.stringify(result.errors));
  assert.ok(harness.sim.stats().maxCreationsInFlight > 3, `unguarded: ${harness.sim.stats().maxCreationsInFlight} at once`);
});

test('--workers 0: the inline shard holds the limit too, and a failed creation gives its permit back', async () => {
  const permits = CreationPermits.create(1, 2);
  const { harness, pool } = await setUp(0, permits);
  harness.sim.injectFault({ method: 'RunPodSandbox', times: 2, code: GrpcStatus.UNAVAILABLE, message: 'CNI ADD failed' });
  harness.sim.injectFault({ method: 'StartContainer', times: 1, code: GrpcStatus.UNKNOWN, message: 'runc failed' });
  const { uids } = podsOn(pool, 8, 'inline');
  const results = await Promise.all(uids.map((uid) => pool.sync({ kind: 'sync', pod: pod(uid), runtimeKnownEmpty: true })));
  assert.equal(results.filter((result) => result.errors.length > 0).length, 2, 'two sandbox creations failed');
  assert.ok(harness.sim.stats().maxCreationsInFlight <= 2, `saw ${harness.sim.stats().maxCreationsInFlight}`);
  assert.equal(permits.inFlight, 0, 'failed creations gave their permits back');
  const retried = await Promise.all(uids.map((uid) => pool.sync({ kind: 'sync', pod: pod(uid) })));
  for (const result of retried) assert.equal(result.status.phase, 'Running', JSON.stringify(result.errors));
  assert.equal(permits.inFlight, 0);
});

test('a shard thread that dies holding permits does not keep them: the other shard creates on', async () => {
  // One permit: a leaked one would stop every creation on the node.
  const permits = CreationPermits.create(2, 1);
  const { harness, pool, replaced } = await setUp(2, permits, true);
  const { uids } = podsOn(pool, 12, 'lost');
  const onShard0 = uids.find((uid) => pool.shardOf(uid) === 0)!;
  const onShard1 = uids.find((uid) => pool.shardOf(uid) === 1)!;
  harness.sim.injectFault({ method: 'RunPodSandbox', podUid: onShard0, times: 1, code: GrpcStatus.OK, delayMs: 5_000 });
  const stuck = pool.sync({ kind: 'sync', pod: pod(onShard0), runtimeKnownEmpty: true }).catch((err: Error) => err);
  await waitUntil(async () => permits.heldBy(0) === 1, 30_000, 'shard 0 holding the permit for its sandbox');
  await pool.crashShard(0);
  await waitUntil(async () => replaced.includes(0), 30_000, 'the replacement of shard 0');
  assert.ok((await stuck) instanceof Error, 'the lost shard’s sync failed');
  assert.deepEqual([permits.heldBy(0), permits.inFlight], [0, 0], 'its permit was taken back');
  const result = await pool.sync({ kind: 'sync', pod: pod(onShard1), runtimeKnownEmpty: true });
  assert.equal(result.status.phase, 'Running', JSON.stringify(result.errors));
  const resynced = await pool.sync({ kind: 'sync', pod: pod(onShard0) });
  assert.equal(resynced.status.phase, 'Running', JSON.stringify(resynced.errors));
});
