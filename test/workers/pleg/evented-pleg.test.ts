// The PLEG as a whole against the simulated runtime: with container events, an
// exit is published by a per-pod relist without waiting for the periodic relist,
// which then does not report it again; without events
// (UNIMPLEMENTED, as containerd 1.6) the periodic relist reports everything alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { RuntimeEventsFlag } from '../../../src/shared/pleg/runtime-events-flag.js';
import type { RelistResult } from '../../../src/shared/shard-protocol.js';
import { Pleg } from '../../../src/workers/pleg/evented-pleg.js';
import { containerConfig, eventually, sandboxConfig, startHarness, TEST_IMAGE, type SimHarness } from '../../simruntime/harness.js';

const logger = pino({ level: 'silent' });

function startPleg(harness: SimHarness) {
  const published: RelistResult[] = [];
  const eventsFlag = new RuntimeEventsFlag();
  const pleg = new Pleg({ cri: harness.client, logger, eventsFlag, publish: (result) => published.push(result), watcher: { settleMs: 50 } });
  pleg.start();
  return { pleg, published, eventsFlag };
}

/** Starts a pod with one container running `command`; returns the IDs. */
async function runPod(harness: SimHarness, uid: string, command: string[]): Promise<{ sandboxId: string; containerId: string }> {
  const config = sandboxConfig(uid, { uid, labels: { 'io.kubernetes.pod.uid': uid } });
  const sandboxId = (await harness.client.runPodSandbox({ config })).pod_sandbox_id;
  const containerId = (
    await harness.client.createContainer({
      pod_sandbox_id: sandboxId,
      config: containerConfig('app', command, { labels: { 'io.kubernetes.pod.uid': uid } }),
      sandbox_config: config,
    })
  ).container_id;
  await harness.client.startContainer({ container_id: containerId });
  return { sandboxId, containerId };
}

/** The states one object went through, over every published result. */
function walkOf(published: RelistResult[], id: string): string[] {
  return published.flatMap((result) => result.events.filter((event) => event.id === id).map((event) => event.state));
}

test('with container events, an exit is published by a per-pod relist at once, and the full relist does not repeat it', async () => {
  const harness = await startHarness({ scale: 0 }, { preloadImages: [TEST_IMAGE] });
  const { pleg, published, eventsFlag } = startPleg(harness);
  await eventually(async () => (eventsFlag.live() ? true : undefined));
  await pleg.relist();

  const { sandboxId, containerId } = await runPod(harness, 'evented', ['sh', '-c', 'sleep 0.2; exit 1']);
  await eventually(async () => (walkOf(published, containerId).at(-1) === 'exited' ? true : undefined));
  const perPod = published.filter((result) => result.podUid !== undefined);
  assert.ok(perPod.length > 0 && perPod.every((result) => result.podUid === 'evented'));
  assert.equal(published.filter((result) => result.podUid === undefined).length, 1, 'no full relist ran after the first');
  assert.deepEqual(walkOf(published, containerId), ['exited']);
  assert.deepEqual(walkOf(published, sandboxId), ['running'], 'the per-pod relist reports the whole pod');

  const full = await pleg.relist();
  assert.deepEqual(full.events, [], 'the periodic relist has nothing new');
  assert.equal(full.evented?.live, true);
  assert.equal(full.evented?.containerEvents, 5, 'sandbox created and started, container created, started and stopped');
  assert.equal(full.evented?.podRelists, 1, 'only the exit asked for a relist: the rest was the kubelet\'s own doing');
  assert.equal(full.runtimePods?.[0]?.uid, 'evented', 'the pod set still comes from the full relist');

  await harness.client.stopPodSandbox({ pod_sandbox_id: sandboxId });
  await eventually(async () => (walkOf(published, sandboxId).at(-1) === 'exited' ? true : undefined));
  assert.equal(published.filter((result) => result.podUid === undefined).length, 2, 'the sandbox\'s exit came by its own event');
  await pleg.stop();
  assert.equal(eventsFlag.live(), false, 'a stopped PLEG receives no events');
  await harness.close();
});

test('without container events (UNIMPLEMENTED), the periodic relist reports everything alone', async () => {
  const harness = await startHarness({ scale: 0 }, { preloadImages: [TEST_IMAGE], containerEvents: false });
  const { pleg, published, eventsFlag } = startPleg(harness);
  let streamErrors = 0;
  await eventually(async () => ((streamErrors += (await pleg.relist()).evented?.streamErrors ?? 0) > 0 ? true : undefined));
  const { containerId } = await runPod(harness, 'relisted', ['sleep', '3600']);
  const full = await pleg.relist();
  assert.equal(full.evented?.live, false);
  assert.equal(streamErrors + (full.evented?.streamErrors ?? 0), 1);
  assert.equal(harness.sim.stats().calls.GetContainerEvents, 1, 'the stream was not asked for again');
  assert.ok(walkOf(published, containerId).includes('running'));
  assert.ok(published.every((result) => result.podUid === undefined), 'only full relists published');
  assert.equal(eventsFlag.live(), false);
  await pleg.stop();
  await harness.close();
});
