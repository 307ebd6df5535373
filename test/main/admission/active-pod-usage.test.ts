// Admission counts the pods the pod manager holds whose pod worker is syncing. The
// counts follow the pod manager and the pod workers as they change, with no walk over
// the pods: a terminating pod frees its share at once, a spec update is counted by its
// new requests, a restarted pod counts again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { ActivePodUsage } from '../../../src/main/admission/active-pod-usage.js';
import { PodManager } from '../../../src/main/pod/pod-manager.js';
import { PodWorkers, type PodSyncHost } from '../../../src/main/podworkers/pod-workers.js';
import type { SyncPodRequest, SyncPodResult } from '../../../src/shared/shard-protocol.js';
import type { Pod } from '../../../src/shared/types.js';

const logger = pino({ level: 'silent' });

/** Syncs that finish at once: running pods stay Running, terminating ones stop. */
const host: PodSyncHost = {
  runSync: async (request: SyncPodRequest): Promise<SyncPodResult> => ({
    uid: request.pod.metadata!.uid!,
    status: { phase: 'Running' },
    terminated: request.kind !== 'sync',
    errors: [],
    runtimeObjects: {},
    actedOnObjects: {},
    removedObjectIds: [],
  }),
  previousStatus: () => undefined,
  onSyncResult: () => undefined,
  onSyncFailed: () => undefined,
};

function withCpu(uid: string, cpu: string): Pod {
  return { metadata: { uid, name: uid, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu } } }] } };
}

function setup() {
  const podManager = new PodManager();
  let workers: PodWorkers | undefined;
  const usage = new ActivePodUsage(
    (uid) => podManager.get(uid),
    (uid) => workers?.phaseOf(uid) === 'syncing',
  );
  workers = new PodWorkers(host, 60_000, logger, { onPhaseChange: (uid) => usage.refresh(uid) });
  podManager.onChange((uid) => usage.refresh(uid));
  const add = (pod: Pod) => {
    podManager.addOrUpdate(pod);
    workers!.updatePod({ type: 'create', pod });
  };
  return { podManager, workers, usage, add };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('a created pod counts; an update counts its new requests; a pod without a pod worker (rejected) does not', () => {
  const { podManager, workers, usage, add } = setup();
  add(withCpu('a', '100m'));
  add(withCpu('b', '200m'));
  podManager.addOrUpdate(withCpu('rejected', '4'));
  assert.equal(usage.usageExcluding('new').pods, 2);
  assert.equal(usage.usageExcluding('new').requested.cpuMillis, 300);
  assert.equal(usage.usageExcluding('a').requested.cpuMillis, 200, 'the candidate itself is left out');
  const bigger = withCpu('a', '1');
  podManager.addOrUpdate(bigger);
  workers.updatePod({ type: 'update', pod: bigger });
  assert.equal(usage.usageExcluding('new').requested.cpuMillis, 1200);
});

test('a terminating pod stops counting at once, a removed one too; a pod started again after it finished counts again', async () => {
  const { podManager, workers, usage, add } = setup();
  const pod = withCpu('a', '500m');
  add(pod);
  add(withCpu('b', '100m'));
  workers.updatePod({ type: 'kill', pod, gracePeriodSeconds: 0 });
  assert.equal(usage.usageExcluding('new').requested.cpuMillis, 100, 'terminating frees the pod\'s share');
  await settle();
  await settle();
  assert.equal(workers.isFinished('a'), true);
  workers.updatePod({ type: 'create', pod });
  assert.equal(workers.phaseOf('a'), 'syncing');
  assert.equal(usage.usageExcluding('new').requested.cpuMillis, 600, 're-added after it finished: counted again');
  podManager.remove(withCpu('b', '100m'));
  assert.equal(usage.usageExcluding('new').pods, 1, 'gone from the pod manager: not counted');
  assert.equal(usage.has('b'), false);
});
