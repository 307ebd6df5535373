// The look-again of a pod whose init container still runs: with the runtime's
// container events flowing, the exit event wakes the pod and the sync asks for no
// poll; without them (containerd 1.6) it asks to be looked at again shortly, so
// the hand-over does not wait for the next relist.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { PullCoordinator } from '../../../src/main/images/pull-coordinator.js';
import { RuntimeEventsFlag } from '../../../src/shared/pleg/runtime-events-flag.js';
import type { Pod } from '../../../src/shared/types.js';
import { INIT_CONTAINER_RECHECK_MS } from '../../../src/workers/kuberuntime/sync-pod.js';
import { Shard } from '../../../src/workers/shard.js';
import { inProcessShardSettings } from '../../../src/tools/in-process-shard-settings.js';
import { startHarness, type SimHarness } from '../../simruntime/harness.js';

const IMAGE = 'registry.local/app:1.0';
const logger = pino({ level: 'silent' });
const eventsFlag = new RuntimeEventsFlag();
let harness: SimHarness;
let shard: Shard;
let workDir: string;

before(async () => {
  harness = await startHarness({ scale: 0 }, { preloadImages: [IMAGE] });
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-init-recheck-'));
  const settings = inProcessShardSettings(harness.sim.endpoint, workDir, { runtimeEventsLive: eventsFlag.buffer });
  shard = new Shard(0, settings, new PullCoordinator({ serializeImagePulls: false, maxParallelImagePulls: 5, logger }), logger);
});

after(async () => {
  await shard.close();
  await harness.close();
  rmSync(workDir, { recursive: true, force: true });
});

function podWithInit(uid: string, initCommand: string[]): Pod {
  return {
    metadata: { uid, name: uid, namespace: 'default' },
    spec: {
      initContainers: [{ name: 'init', image: IMAGE, command: initCommand }],
      containers: [{ name: 'app', image: IMAGE, command: ['sleep', '3600'] }],
      terminationGracePeriodSeconds: 0,
    },
  };
}

const cases = [
  { name: 'no container events: a running init container is looked at again shortly', live: false, expected: INIT_CONTAINER_RECHECK_MS },
  { name: 'container events flowing: a running init container waits for its exit event', live: true, expected: undefined },
];

for (const { name, live, expected } of cases) {
  test(name, async () => {
    eventsFlag.set(live);
    const uid = `init-running-${live ? 'evented' : 'polled'}`;
    const result = await shard.sync({ kind: 'sync', pod: podWithInit(uid, ['sleep', '3600']) });
    assert.equal(result.status.initContainerStatuses?.[0]?.state?.running !== undefined, true, 'the init container runs');
    assert.equal(result.requeueAfterMs, expected);
  });
}

