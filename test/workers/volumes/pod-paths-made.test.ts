// A shard makes a pod's directories and managed files once, and makes them again
// when they may be gone: after the pod's terminated sync removed them (the same UID
// started again, as a static pod whose manifest pins metadata.uid), or when a write
// finds its directory removed behind the shard's back.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { PullCoordinator } from '../../../src/main/images/pull-coordinator.js';
import type { Pod } from '../../../src/shared/types.js';
import { Shard } from '../../../src/workers/shard.js';
import { PodPathsMade } from '../../../src/workers/volumes/pod-paths-made.js';
import { inProcessShardSettings } from '../../../src/tools/in-process-shard-settings.js';
import { startHarness, type SimHarness } from '../../simruntime/harness.js';

const IMAGE = 'registry.local/app:1.0';
const logger = pino({ level: 'silent' });
let harness: SimHarness;
let workDir: string;

before(async () => {
  harness = await startHarness({ scale: 0 }, { preloadImages: [IMAGE] });
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-pod-paths-'));
});

after(async () => {
  await harness.close();
  rmSync(workDir, { recursive: true, force: true });
});

test('a pod started again with the same UID after its terminated sync removed its directories gets them made afresh', async () => {
  const settings = inProcessShardSettings(harness.sim.endpoint, workDir);
  const shard = new Shard(0, settings, new PullCoordinator({ serializeImagePulls: false, maxParallelImagePulls: 5, logger }), logger);
  const pod: Pod = {
    metadata: { uid: 'again', name: 'again', namespace: 'default' },
    spec: { containers: [{ name: 'app', image: IMAGE }], terminationGracePeriodSeconds: 0 },
  };
  const podDir = join(settings.rootDir, 'pods', 'again');
  const containerLogs = join(settings.podLogsDir, 'default_again_again', 'app');
  try {
    for (const life of ['first', 'second']) {
      const started = await shard.sync({ kind: 'sync', pod });
      assert.equal(started.status.phase, 'Running', `${life} life: ${JSON.stringify(started.errors)}`);
      assert.ok(statSync(containerLogs).isDirectory(), `${life} life: the container's log directory`);
      assert.match(readFileSync(join(podDir, 'etc-hosts'), 'utf8'), /^# Kubernetes-managed hosts file\./, `${life} life: etc-hosts`);
      assert.equal(readdirSync(join(podDir, 'containers', 'app')).length, 1, `${life} life: one termination-log file`);
      await shard.sync({ kind: 'terminating', pod, gracePeriodSeconds: 0 });
      await shard.sync({ kind: 'terminated', pod, removeFromRuntime: true });
      assert.throws(() => statSync(podDir), { code: 'ENOENT' }, `${life} life: the pod directory is removed`);
      assert.throws(() => statSync(containerLogs), { code: 'ENOENT' }, `${life} life: the log directory is removed`);
    }
  } finally {
    await shard.close();
  }
});

test('a write whose directory was removed behind the shard\'s back makes it again, with its mode', async () => {
  const made = new PodPathsMade();
  const dir = join(workDir, 'direct', 'pod');
  const file = join(dir, 'etc-hosts');
  const reference = join(workDir, 'direct', 'reference');
  mkdirSync(reference, { recursive: true, mode: 0o750 });
  await made.file('u', file, 'one\n', 0o644, { path: dir, mode: 0o750 });
  rmSync(dir, { recursive: true });
  await made.file('u', file, 'two\n', 0o644, { path: dir, mode: 0o750 });
  assert.equal(readFileSync(file, 'utf8'), 'two\n');
  assert.equal(statSync(dir).mode & 0o777, statSync(reference).mode & 0o777);
});
