// The shard's error paths against the simulated runtime with injected faults: each
// CRI failure a node meets must become upstream's waiting reason and event, be
// retried, and leave no duplicate behind once the fault is gone.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { pino } from 'pino';
import { PullCoordinator } from '../../src/main/images/pull-coordinator.js';
import type { PodEventRecord, ShardMessage, SyncPodRequest, SyncPodResult } from '../../src/shared/shard-protocol.js';
import type { Pod } from '../../src/shared/types.js';
import { Shard } from '../../src/workers/shard.js';
import { inProcessShardSettings } from '../../src/tools/in-process-shard-settings.js';
import { startHarness, type SimHarness } from '../simruntime/harness.js';

const IMAGE = 'registry.local/app:1.0';
const logger = pino({ level: 'silent' });
let harness: SimHarness;
let shard: Shard;
let workDir: string;
/** What the shard sent the main thread, in order. */
const posted: ShardMessage[] = [];

before(async () => {
  harness = await startHarness({ scale: 0 }, { preloadImages: [IMAGE] });
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-shard-faults-'));
  const settings = inProcessShardSettings(harness.sim.endpoint, workDir, { runtimeRequestTimeoutMs: 1_000 });
  shard = new Shard(0, settings, new PullCoordinator({ serializeImagePulls: false, maxParallelImagePulls: 5, logger }), logger, (message) => posted.push(message));
});

after(async () => {
  await shard.close();
  await harness.close();
  rmSync(workDir, { recursive: true, force: true });
});

function pod(uid: string, image = IMAGE): Pod {
  return {
    metadata: { uid, name: uid, namespace: 'default' },
    spec: { containers: [{ name: 'app', image, imagePullPolicy: 'IfNotPresent' }], restartPolicy: 'Always', terminationGracePeriodSeconds: 0 },
  };
}

type SyncWithEvents = SyncPodResult & { events: PodEventRecord[] };

/** A sync, with the events the shard sent for the pod while it ran. */
async function sync(p: Pod, extra: Partial<SyncPodRequest> = {}): Promise<SyncWithEvents> {
  const from = posted.length;
  const result = await shard.sync({ kind: 'sync', pod: p, ...extra });
  const events = posted.slice(from).flatMap((message) => (message.kind === 'pod-event' && message.pod.uid === result.uid ? [message.event] : []));
  return { ...result, events };
}

function waiting(result: SyncPodResult): { reason?: string; message?: string } | undefined {
  return result.status.containerStatuses?.[0]?.state?.waiting;
}

const reasons = (result: SyncWithEvents) => result.events.map((event) => event.reason);

async function sandboxesOf(uid: string) {
  return ((await harness.client.listPodSandbox({})).items ?? []).filter((sandbox) => sandbox.metadata?.uid === uid);
}

test('RunPodSandbox failing: FailedCreatePodSandBox, the pod stays Pending, and the next sync creates exactly one sandbox', async () => {
  harness.sim.injectFault({ method: 'RunPodSandbox', podUid: 'sbx', times: 1, code: GrpcStatus.UNKNOWN, message: 'failed to setup network for sandbox' });
  const failed = await sync(pod('sbx'));
  assert.equal(failed.status.phase, 'Pending');
  assert.ok(reasons(failed).includes('FailedCreatePodSandBox'), `events: ${reasons(failed)}`);
  assert.match(failed.events.find((e) => e.reason === 'FailedCreatePodSandBox')!.message, /failed to setup network/);
  assert.equal((await sandboxesOf('sbx')).length, 0);
  const retried = await sync(pod('sbx'));
  assert.equal(retried.status.phase, 'Running');
  assert.equal((await sandboxesOf('sbx')).length, 1);
});

test('CreateContainer failing: CreateContainerError with the runtime message, then the container starts', async () => {
  harness.sim.injectFault({ method: 'CreateContainer', podUid: 'cre', times: 1, code: GrpcStatus.UNKNOWN, message: 'no space left on device' });
  const failed = await sync(pod('cre'));
  assert.equal(waiting(failed)?.reason, 'CreateContainerError');
  assert.match(waiting(failed)?.message ?? '', /no space left on device/);
  assert.ok(reasons(failed).includes('Failed'));
  const retried = await sync(pod('cre'));
  assert.ok(retried.status.containerStatuses?.[0]?.state?.running, 'running after the retry');
  assert.equal((await sandboxesOf('cre')).length, 1, 'the retry reuses the sandbox');
});

test('StartContainer failing: RunContainerError, and the retry starts the container', async () => {
  harness.sim.injectFault({ method: 'StartContainer', podUid: 'sta', times: 1, code: GrpcStatus.UNKNOWN, message: 'exec: "app": executable file not found' });
  const failed = await sync(pod('sta'));
  assert.equal(waiting(failed)?.reason, 'RunContainerError');
  assert.match(waiting(failed)?.message ?? '', /executable file not found/);
  const retried = await sync(pod('sta'));
  assert.equal(retried.status.phase, 'Running');
});

test('PullImage failing: ErrImagePull, then ImagePullBackOff with upstream\'s 10 s backoff until it is over', async () => {
  const image = 'registry.local/missing:2.0';
  // PullImage names no sandbox when the kubelet sends none: the fault is for any pod (only this test pulls).
  harness.sim.injectFault({ method: 'PullImage', times: 1, code: GrpcStatus.NOT_FOUND, message: `failed to resolve reference "${image}": not found` });
  const failed = await sync(pod('pull', image));
  assert.equal(waiting(failed)?.reason, 'ErrImagePull');
  assert.ok(reasons(failed).includes('Failed'));
  const backedOff = await sync(pod('pull', image));
  assert.equal(waiting(backedOff)?.reason, 'ImagePullBackOff');
  assert.match(waiting(backedOff)?.message ?? '', /Back-off pulling image/);
  assert.ok(backedOff.requeueAfterMs !== undefined && backedOff.requeueAfterMs > 5_000 && backedOff.requeueAfterMs <= 10_000, `requeue after ${backedOff.requeueAfterMs} ms`);
  assert.equal(harness.sim.stats().calls.PullImage ?? 0, 1, 'no pull during the backoff');
});

test('a StopContainer past its deadline leaves the pod terminating; the next attempt stops it', async () => {
  const running = await sync(pod('stop'));
  assert.equal(running.status.phase, 'Running');
  harness.sim.injectFault({ method: 'StopContainer', podUid: 'stop', times: 1, code: GrpcStatus.OK, delayMs: 3_000 });
  const stuck = await shard.sync({ kind: 'terminating', pod: pod('stop'), gracePeriodSeconds: 0 });
  assert.equal(stuck.terminated, false);
  assert.ok(stuck.errors.length > 0, 'the deadline is reported');
  const stopped = await shard.sync({ kind: 'terminating', pod: pod('stop'), gracePeriodSeconds: 0 });
  assert.equal(stopped.terminated, true);
});

test('a sandbox that dies is replaced by one new sandbox and the container runs again', async () => {
  const running = await sync(pod('die'));
  assert.equal(running.status.phase, 'Running');
  harness.sim.killSandbox('die');
  const recreated = await sync(pod('die'));
  assert.equal(recreated.status.phase, 'Running');
  const sandboxes = await sandboxesOf('die');
  assert.equal(sandboxes.filter((sandbox) => sandbox.state === 'SANDBOX_READY').length, 1);
  assert.equal(sandboxes.find((sandbox) => sandbox.state === 'SANDBOX_READY')?.metadata?.attempt, 1);
});

test('a crash-looping container: the sync that restarts it removes the older dead instance and says so', async () => {
  const crashing: Pod = { ...pod('loop'), spec: { ...pod('loop').spec!, containers: [{ name: 'app', image: IMAGE, command: ['false'] }] } };
  let result = await sync(crashing);
  const removed: string[] = [];
  // Each sync restarts the exited container (the first restart is immediate; later ones wait for the backoff,
  // so the test stops the container itself and syncs again once the runtime shows it exited).
  for (let attempt = 0; attempt < 3; attempt++) {
    const running = await containersOf('loop', 'CONTAINER_RUNNING');
    for (const container of running) await harness.client.stopContainer({ container_id: container.id, timeout: 0 });
    result = await sync(crashing, { previousStatus: result.status });
    removed.push(...result.removedObjectIds);
  }
  const left = await containersOf('loop');
  assert.ok(removed.length > 0, 'some dead instance was removed');
  for (const id of removed) assert.ok(!left.some((container) => container.id === id), `${id} is gone from the runtime`);
  assert.ok(left.filter((container) => container.state === 'CONTAINER_EXITED').length <= 1, 'at most one dead instance is kept');
});

async function containersOf(uid: string, state?: string) {
  const items = (await harness.client.listContainers({})).containers ?? [];
  return items.filter((container) => container.labels?.['io.kubernetes.pod.uid'] === uid && (state === undefined || container.state === state));
}

test('a container whose every instance the runtime lost restarts with the count its log files say, as upstream', async () => {
  const crashing: Pod = { ...pod('lost'), spec: { ...pod('lost').spec!, containers: [{ name: 'app', image: IMAGE, command: ['sleep', '3600'] }] } };
  let result = await sync(crashing);
  // One restart: the runtime's instance 0 stopped, the sync starts instance 1 (log 1.log).
  for (const container of await containersOf('lost', 'CONTAINER_RUNNING')) await harness.client.stopContainer({ container_id: container.id, timeout: 0 });
  result = await sync(crashing, { previousStatus: result.status });
  assert.equal(result.status.containerStatuses?.[0]?.restartCount, 1);
  // The runtime loses the pod's containers (CRI-O after a reboot, a node-wide GC): the log files stay.
  for (const container of await containersOf('lost')) {
    await harness.client.stopContainer({ container_id: container.id, timeout: 0 });
    await harness.client.removeContainer({ container_id: container.id });
  }
  result = await sync(crashing, { previousStatus: result.status });
  const [started] = await containersOf('lost', 'CONTAINER_RUNNING');
  assert.equal(started?.metadata?.attempt, 2, 'counted on from 1.log, not from 0: the old logs are not written over');
  assert.equal(result.status.containerStatuses?.[0]?.restartCount, 2);
});
