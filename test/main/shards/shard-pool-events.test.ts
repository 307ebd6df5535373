// A sync's events reach the main thread while the sync still runs (issue 27,
// defect 1), in a shard thread and inline (--workers 0) alike: the Killing event
// before the container is stopped, Pulling before a slow pull ends; each event
// once, in the order the shard recorded it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { pino } from 'pino';
import { PullCoordinator } from '../../../src/main/images/pull-coordinator.js';
import { ShardPool } from '../../../src/main/shards/shard-pool.js';
import type { PodEventMessage } from '../../../src/shared/shard-protocol.js';
import type { Pod } from '../../../src/shared/types.js';
import { inProcessShardSettings } from '../../../src/tools/in-process-shard-settings.js';
import { waitUntil } from '../../helpers/kubelet-process.js';
import { startHarness, type SimHarness } from '../../simruntime/harness.js';

const PRESENT_IMAGE = 'registry.local/app:1.0';
/** Not preloaded: the sync pulls it. */
const PULLED_IMAGE = 'busybox:1.36';
/** How long the runtime holds the call under test: the test looks while it is held. */
const HELD_MS = 3_000;
const WAIT_MS = 30_000;
const logger = pino({ level: 'silent' });

function pod(uid: string, image: string): Pod {
  return {
    metadata: { uid, name: uid, namespace: 'default' },
    spec: { containers: [{ name: 'main', image, imagePullPolicy: 'IfNotPresent' }], restartPolicy: 'Always', terminationGracePeriodSeconds: 20 },
  };
}

/** A promise with a flag that says whether it settled yet. */
function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let settled = false;
  const watched = promise.finally(() => (settled = true));
  return { promise: watched, settled: () => settled };
}

for (const workers of [0, 1]) {
  describe(`--workers ${workers}`, () => {
    let harness: SimHarness;
    let pool: ShardPool;
    let workDir: string;
    const posted: PodEventMessage[] = [];
    const reasonsOf = (uid: string) => posted.filter((message) => message.pod.uid === uid).map((message) => message.event.reason);
    const containersOf = async (uid: string) =>
      (await harness.client.listContainers({ filter: { label_selector: { 'io.kubernetes.pod.uid': uid } } })).containers ?? [];

    before(async () => {
      harness = await startHarness({ scale: 0 }, { preloadImages: [PRESENT_IMAGE] });
      workDir = mkdtempSync(join(tmpdir(), 'shardlet-shard-events-'));
      pool = new ShardPool({
        workers,
        settings: inProcessShardSettings(harness.sim.endpoint, workDir),
        pulls: new PullCoordinator({ serializeImagePulls: false, maxParallelImagePulls: 5, logger }),
        logger,
        onShardReplaced: () => undefined,
        onRelist: () => undefined,
        onPodEvent: (message) => posted.push(message),
      });
    });

    after(async () => {
      await pool.close();
      await harness.close();
      rmSync(workDir, { recursive: true, force: true });
    });

    test('the Killing event reaches the main thread while the container is still being stopped', async () => {
      const uid = `kill-${workers}`;
      const running = await pool.sync({ kind: 'sync', pod: pod(uid, PRESENT_IMAGE) });
      assert.equal(running.status.phase, 'Running');
      harness.sim.injectFault({ method: 'StopContainer', podUid: uid, times: 1, code: GrpcStatus.OK, delayMs: HELD_MS });
      const stopping = tracked(pool.sync({ kind: 'terminating', pod: pod(uid, PRESENT_IMAGE), gracePeriodSeconds: 20 }));
      await waitUntil(async () => reasonsOf(uid).includes('Killing'), WAIT_MS, 'the Killing event');
      assert.equal(stopping.settled(), false, 'the sync that kills is still running');
      assert.deepEqual((await containersOf(uid)).map((c) => c.state), ['CONTAINER_RUNNING'], 'the container is not stopped yet');
      const stopped = await stopping.promise;
      assert.equal(stopped.terminated, true);
      const message = posted.find((m) => m.pod.uid === uid && m.event.reason === 'Killing')!;
      assert.deepEqual(message.pod, { uid, name: uid, namespace: 'default' });
      assert.equal(message.event.fieldPath, 'spec.containers{main}');
      assert.deepEqual(reasonsOf(uid), ['Pulled', 'Created', 'Started', 'Killing'], 'each event once, in order');
    });

    test('a slow pull: Pulling arrives while PullImage runs, then Pulled, Created and Started, each once and in order', async () => {
      const uid = `pull-${workers}`;
      harness.sim.injectFault({ method: 'PullImage', times: 1, code: GrpcStatus.OK, delayMs: HELD_MS });
      const starting = tracked(pool.sync({ kind: 'sync', pod: pod(uid, PULLED_IMAGE) }));
      await waitUntil(async () => reasonsOf(uid).includes('Pulling'), WAIT_MS, 'the Pulling event');
      assert.equal(starting.settled(), false, 'the sync is still pulling');
      assert.deepEqual(await containersOf(uid), [], 'no container yet');
      const started = await starting.promise;
      assert.equal(started.status.phase, 'Running', JSON.stringify(started.errors));
      assert.deepEqual(reasonsOf(uid), ['Pulling', 'Pulled', 'Created', 'Started']);
    });
  });
}
