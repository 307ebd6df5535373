// GetContainerEvents on the simulated runtime, over its socket with CriClient: the
// CRI contract an evented PLEG relies on against containerd 1.7+ and CRI-O (every
// state change of every container, and of sandboxes under the sandbox's ID, to
// every stream in order, each with the pod's statuses), and containerd 1.6's
// UNIMPLEMENTED when the sim is told to have no events.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type * as cri from '../../src/shared/cri/types.js';
import { containerConfig, eventually, rejectionOf, sandboxConfig, startHarness, subscribeToEvents, TEST_IMAGE, type EventSubscription, type SimHarness } from './harness.js';

type Event = cri.ContainerEventResponse__Output;


/** `<type> <which>` per event, where which names the object by the given IDs. */
function brief(events: Event[], names: Record<string, string>): string[] {
  return events.map((event) => `${event.container_event_type.replace('CONTAINER_', '').replace('_EVENT', '')} ${names[event.container_id] ?? event.container_id}`);
}

async function eventCount(subscription: EventSubscription, count: number): Promise<Event[]> {
  return eventually(async () => (subscription.events.length >= count ? subscription.events : undefined));
}

describe('simulated runtime: container events', () => {
  let h: SimHarness;
  before(async () => {
    h = await startHarness({ scale: 0 }, { preloadImages: [TEST_IMAGE] });
  });
  after(() => h.close());

  async function subscribed(count: number): Promise<EventSubscription[]> {
    const subscriptions = Array.from({ length: count }, () => subscribeToEvents(h.client));
    await eventually(async () => (h.sim.eventStreams() === count ? true : undefined));
    return subscriptions;
  }

  it('reports each change of a sandbox and its container, the process exiting on its own included, to every stream in order', async () => {
    const streams = await subscribed(2);
    const config = sandboxConfig('events', { uid: 'uid-events', labels: { 'io.kubernetes.pod.uid': 'uid-events' } });
    const beforeNs = Date.now() * 1e6;
    const sandboxId = (await h.client.runPodSandbox({ config })).pod_sandbox_id;
    const containerId = (
      await h.client.createContainer({ pod_sandbox_id: sandboxId, config: containerConfig('init', ['sh', '-c', 'exit 3']), sandbox_config: config })
    ).container_id;
    await h.client.startContainer({ container_id: containerId });
    await eventCount(streams[0], 5);
    await h.client.removeContainer({ container_id: containerId });
    await h.client.stopPodSandbox({ pod_sandbox_id: sandboxId });
    await h.client.removePodSandbox({ pod_sandbox_id: sandboxId });
    const expected = [
      'CREATED sandbox',
      'STARTED sandbox',
      'CREATED init',
      'STARTED init',
      'STOPPED init',
      'DELETED init',
      'STOPPED sandbox',
      'DELETED sandbox',
    ];
    const names = { [sandboxId]: 'sandbox', [containerId]: 'init' };
    for (const stream of streams) assert.deepEqual(brief(await eventCount(stream, expected.length), names), expected);

    const events = streams[0].events;
    for (const event of events) {
      assert.equal(event.pod_sandbox_status?.id, sandboxId, 'every event names the pod sandbox');
      assert.equal(event.pod_sandbox_status?.metadata?.uid, 'uid-events');
      assert.equal(event.pod_sandbox_status?.labels['io.kubernetes.pod.uid'], 'uid-events');
      assert.ok(event.created_at >= beforeNs - 1e9, 'created_at is in nanoseconds since the epoch');
    }
    const exited = events[4].containers_statuses.find((status) => status.id === containerId);
    assert.equal(exited?.state, 'CONTAINER_EXITED', 'the statuses are those after the change');
    assert.equal(exited?.exit_code, 3);
    assert.deepEqual(events[5].containers_statuses, [], 'a deleted container is no longer among the statuses');
    assert.equal(events[6].pod_sandbox_status?.state, 'SANDBOX_NOTREADY');
    for (const stream of streams) stream.stop();
    for (const stream of streams) assert.equal(await stream.ended, undefined);
  });

  it('a stopped sandbox reports its running containers killed before itself', async () => {
    const [stream] = await subscribed(1);
    const config = sandboxConfig('killed');
    const sandboxId = (await h.client.runPodSandbox({ config })).pod_sandbox_id;
    const containerId = (
      await h.client.createContainer({ pod_sandbox_id: sandboxId, config: containerConfig('app', ['sleep', '3600']), sandbox_config: config })
    ).container_id;
    await h.client.startContainer({ container_id: containerId });
    await h.client.stopPodSandbox({ pod_sandbox_id: sandboxId });
    await h.client.stopPodSandbox({ pod_sandbox_id: sandboxId });
    const events = await eventCount(stream, 6);
    const names = { [sandboxId]: 'sandbox', [containerId]: 'app' };
    assert.deepEqual(brief(events, names).slice(4), ['STOPPED app', 'STOPPED sandbox']);
    stream.stop();
    assert.equal(await stream.ended, undefined);
  });

  it('a stream the client cancels ends cleanly and gets nothing more', async () => {
    const [stream] = await subscribed(1);
    stream.stop();
    assert.equal(await stream.ended, undefined, 'the client sees the end of the stream, no error');
    await eventually(async () => (h.sim.eventStreams() === 0 ? true : undefined));
    await h.client.runPodSandbox({ config: sandboxConfig('after-cancel') });
    assert.deepEqual(stream.events, []);
  });
});

describe('simulated runtime: container events off, as containerd 1.6', () => {
  let h: SimHarness;
  before(async () => {
    h = await startHarness({ scale: 0 }, { containerEvents: false });
  });
  after(() => h.close());

  it('answers GetContainerEvents with UNIMPLEMENTED', async () => {
    const err = await rejectionOf(subscribeToEvents(h.client).ended.then((ended) => Promise.reject(ended)));
    assert.equal(err.code, GrpcStatus.UNIMPLEMENTED);
    assert.match(String(err.details), /unknown method GetContainerEvents/);
  });
});

describe('simulated runtime: closing with streams open', () => {
  it('ends them, so clients see the runtime go', async () => {
    const h = await startHarness({ scale: 0 });
    const stream = subscribeToEvents(h.client);
    await eventually(async () => (h.sim.eventStreams() === 1 ? true : undefined));
    await h.sim.close();
    assert.equal(await stream.ended, undefined);
    await h.close();
  });
});
