import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CoreV1Api, KubeConfig, type CoreV1Event } from '@kubernetes/client-node';
import { pino } from 'pino';
import { loadKubeClients } from '../../../../src/main/cluster/apiclient/kube-client.js';
import { EventRecorder } from '../../../../src/main/cluster/events/event-recorder.js';
import { containerFieldPath, EventMessages, EventReasons, podObject, type KubeletEvent } from '../../../../src/shared/events/event-types.js';
import { startTestApiServer, type TestApiServer } from '../../../../src/testapiserver/index.js';

const NODE = 'node-events';
const logger = pino({ level: 'silent' });

let server: TestApiServer;
let dir: string;
let kubeletKubeconfig: string;
let admin: CoreV1Api;

before(async () => {
  server = await startTestApiServer();
  dir = await mkdtemp(path.join(tmpdir(), 'shardlet-events-test-'));
  kubeletKubeconfig = await server.writeKubeconfig(path.join(dir, 'kubelet.kubeconfig'), { user: 'kubelet', nodeName: NODE });
  const adminConfig = new KubeConfig();
  adminConfig.loadFromFile(await server.writeKubeconfig(path.join(dir, 'admin.kubeconfig'), { user: 'admin' }));
  admin = adminConfig.makeApiClient(CoreV1Api);
});

after(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

function newRecorder(): EventRecorder {
  return new EventRecorder({ clients: loadKubeClients(kubeletKubeconfig, 50, 100), nodeName: NODE, logger, retryDelayMs: 10 });
}

function podEvent(pod: string, reason: string, message: string): KubeletEvent {
  const ref = podObject({ name: pod, namespace: 'default', uid: `uid-${pod}` }, containerFieldPath('app'));
  return { involvedObject: ref, type: reason === 'BackOff' ? 'Warning' : 'Normal', reason, message, timestampMs: Date.now() };
}

async function eventsAbout(pod: string): Promise<CoreV1Event[]> {
  const list = await admin.listNamespacedEvent({ namespace: 'default' });
  return list.items.filter((event) => event.involvedObject.name === pod);
}

test('3 identical BackOff events become one event with count 3', async () => {
  const recorder = newRecorder();
  const message = EventMessages.backOffRestartingContainer('app', 'crashy', 'default', 'uid-crashy');
  for (let i = 0; i < 3; i++) recorder.record(podEvent('crashy', EventReasons.BackOffStartContainer, message));
  await recorder.flush();
  const events = await eventsAbout('crashy');
  assert.equal(events.length, 1);
  assert.equal(events[0].count, 3);
  assert.equal(events[0].reason, 'BackOff');
  assert.equal(events[0].type, 'Warning');
  assert.equal(events[0].message, message);
  assert.equal(events[0].involvedObject.fieldPath, 'spec.containers{app}');
  assert.deepEqual({ ...events[0].source }, { component: 'kubelet', host: NODE });
  assert.equal(events[0].reportingInstance, NODE);
  assert.deepEqual(recorder.writes, { creates: 1, patches: 2 });
  recorder.stop();
});

test('2 different reasons become 2 events', async () => {
  const recorder = newRecorder();
  recorder.record(podEvent('web', EventReasons.CreatedContainer, EventMessages.createdContainer('app')));
  recorder.record(podEvent('web', EventReasons.StartedContainer, EventMessages.startedContainer('app')));
  await recorder.flush();
  const events = await eventsAbout('web');
  assert.deepEqual(events.map((event) => [event.reason, event.count]).sort(), [
    ['Created', 1],
    ['Started', 1],
  ]);
  recorder.stop();
});

test('a repeat of an event deleted on the server is created again', async () => {
  const recorder = newRecorder();
  const event = podEvent('gone', EventReasons.KillingContainer, EventMessages.killingContainer('app'));
  recorder.record(event);
  await recorder.flush();
  const [first] = await eventsAbout('gone');
  await admin.deleteNamespacedEvent({ name: first.metadata.name!, namespace: 'default' });
  recorder.record(event);
  await recorder.flush();
  const events = await eventsAbout('gone');
  assert.equal(events.length, 1);
  assert.equal(events[0].count, 2);
  assert.deepEqual(recorder.writes, { creates: 2, patches: 0 });
  recorder.stop();
});

test('while the server is away writes are retried, then dropped; the queue keeps the newest', async () => {
  const clients = loadKubeClients(kubeletKubeconfig, 50, 100);
  const recorder = new EventRecorder({ clients, nodeName: NODE, logger, retryDelayMs: 5, maxTriesPerEvent: 3, maxQueuedEvents: 2 });
  let served = false;
  await server.restart({
    whileDown: async () => {
      for (let i = 0; i < 4; i++) recorder.record(podEvent('offline', `Reason${i}`, `m${i}`));
      await recorder.flush();
      served = true;
    },
  });
  assert.ok(served);
  // The first event went straight to the drain loop; of the three queued behind it the oldest was pushed out.
  assert.equal(recorder.dropped.queueFull, 1);
  assert.equal(recorder.dropped.failed, 3);
  assert.deepEqual(recorder.writes, { creates: 0, patches: 0 });
  recorder.record(podEvent('offline', 'Back', 'm'));
  await recorder.flush();
  assert.equal((await eventsAbout('offline')).length, 1);
  recorder.stop();
});
