// A pod whose containers are done (restartPolicy Never) comes out of its sync with
// its terminal status while its sandbox still stands (issue 27, defect 2): as
// upstream's SyncPod returning isTerminal, the sandbox is stopped only by the
// SyncTerminatingPod that follows, so a slow StopPodSandbox never holds up the
// status a Job waits for.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { PullCoordinator } from '../../src/main/images/pull-coordinator.js';
import type { Pod } from '../../src/shared/types.js';
import { inProcessShardSettings } from '../../src/tools/in-process-shard-settings.js';
import { Shard } from '../../src/workers/shard.js';
import { waitUntil } from '../helpers/kubelet-process.js';
import { startHarness, type SimHarness } from '../simruntime/harness.js';

const IMAGE = 'registry.local/job:1.0';
const WAIT_MS = 30_000;
const logger = pino({ level: 'silent' });
let harness: SimHarness;
let shard: Shard;
let workDir: string;

before(async () => {
  harness = await startHarness({ scale: 0 }, { preloadImages: [IMAGE] });
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-finished-pod-'));
  shard = new Shard(0, inProcessShardSettings(harness.sim.endpoint, workDir), new PullCoordinator({ serializeImagePulls: false, maxParallelImagePulls: 5, logger }), logger);
});

after(async () => {
  await shard.close();
  await harness.close();
  rmSync(workDir, { recursive: true, force: true });
});

function job(uid: string, command: string[]): Pod {
  return {
    metadata: { uid, name: uid, namespace: 'default' },
    spec: { containers: [{ name: 'main', image: IMAGE, command }], restartPolicy: 'Never', terminationGracePeriodSeconds: 0 },
  };
}

async function sandboxStatesOf(uid: string): Promise<string[]> {
  const reply = await harness.client.listPodSandbox({ filter: { label_selector: { 'io.kubernetes.pod.uid': uid } } });
  return (reply.items ?? []).map((sandbox) => sandbox.state);
}

async function containerStatesOf(uid: string): Promise<string[]> {
  const reply = await harness.client.listContainers({ filter: { label_selector: { 'io.kubernetes.pod.uid': uid } } });
  return (reply.containers ?? []).map((container) => container.state);
}

for (const { command, phase } of [
  { command: ['true'], phase: 'Succeeded' },
  { command: ['false'], phase: 'Failed' },
]) {
  test(`a Never pod whose container exited (${command[0]}): the sync reports ${phase} and leaves the sandbox to SyncTerminatingPod`, async () => {
    const uid = `job-${command[0]}`;
    const pod = job(uid, command);
    await shard.sync({ kind: 'sync', pod });
    await waitUntil(async () => (await containerStatesOf(uid)).join() === 'CONTAINER_EXITED', WAIT_MS, 'the container to exit');
    const finished = await shard.sync({ kind: 'sync', pod });
    assert.equal(finished.status.phase, phase, JSON.stringify(finished.errors));
    assert.deepEqual(await sandboxStatesOf(uid), ['SANDBOX_READY'], 'the terminal status comes before the sandbox is stopped');
    assert.equal(finished.terminated, false, 'the pod worker still has SyncTerminatingPod to run');
    const terminating = await shard.sync({ kind: 'terminating', pod, previousStatus: finished.status });
    assert.equal(terminating.terminated, true);
    assert.equal(terminating.status.phase, phase);
    assert.deepEqual(await sandboxStatesOf(uid), ['SANDBOX_NOTREADY']);
  });
}

test('a Never pod with a container still running is not finished: nothing is left to SyncTerminatingPod', async () => {
  const uid = 'job-running';
  const pod: Pod = {
    metadata: { uid, name: uid, namespace: 'default' },
    spec: {
      containers: [
        { name: 'main', image: IMAGE, command: ['true'] },
        { name: 'sidecar-like', image: IMAGE, command: ['sleep', '3600'] },
      ],
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 0,
    },
  };
  await shard.sync({ kind: 'sync', pod });
  await waitUntil(async () => (await containerStatesOf(uid)).includes('CONTAINER_EXITED'), WAIT_MS, 'the first container to exit');
  const result = await shard.sync({ kind: 'sync', pod });
  assert.equal(result.status.phase, 'Running');
  assert.deepEqual(await sandboxStatesOf(uid), ['SANDBOX_READY']);
});
