// The container event watcher against the simulated runtime over a real socket:
// it names the pod of each event, gives up once (one info line) on a runtime
// without events, takes CRI-O's empty, ended stream for "no events" too (one info
// line, a slow retry), opens a broken stream again after a runtime restart, with
// one warning for the outage, and says at info whether events are in use once it
// knows and on every change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { Backoff } from '../../../src/shared/backoff.js';
import { CriClient } from '../../../src/shared/cri/client.js';
import { startSimRuntime } from '../../../src/simruntime/server.js';
import { ContainerEventWatcher } from '../../../src/workers/pleg/container-event-watcher.js';
import { eventually, sandboxConfig, startHarness, tempSocketPath } from '../../simruntime/harness.js';

/** A pino logger whose lines land in `lines`. */
function capturingLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

const PINO_INFO = 30;
const PINO_WARN = 40;
/** Quick retries without jitter, so the test's runtime restart is picked up at once. */
const quickBackoff = () => new Backoff({ initialMs: 20, maxMs: 100, jitter: 0 });

test('each event names its pod and what happened, sandbox events included', async () => {
  const harness = await startHarness();
  const { logger, lines } = capturingLogger();
  const pods: string[] = [];
  const watcher = new ContainerEventWatcher({ cri: harness.client, logger, onPodEvent: (uid, type) => pods.push(`${uid} ${type}`), settleMs: 50 });
  watcher.start();
  await eventually(async () => (watcher.live ? true : undefined));
  await harness.client.runPodSandbox({ config: sandboxConfig('named', { uid: 'by-metadata' }) });
  await harness.client.runPodSandbox({ config: sandboxConfig('labelled', { uid: 'ignored', labels: { 'io.kubernetes.pod.uid': 'by-label' } }) });
  await eventually(async () => (pods.length === 4 ? true : undefined));
  assert.deepEqual(
    pods,
    ['by-metadata CONTAINER_CREATED_EVENT', 'by-metadata CONTAINER_STARTED_EVENT', 'by-label CONTAINER_CREATED_EVENT', 'by-label CONTAINER_STARTED_EVENT'],
    'the label wins over the metadata, as in the relist',
  );
  assert.deepEqual(watcher.takeCounts(), { containerEvents: 4, streamConnects: 1, streamErrors: 0 });
  const inUse = lines.filter((line) => /Container events in use/.test(line.msg));
  assert.equal(inUse.length, 1, 'said once at start-up');
  assert.equal(inUse[0].level, PINO_INFO);
  assert.equal((inUse[0] as { containerEvents?: boolean }).containerEvents, true);
  await watcher.stop();
  assert.equal(watcher.live, false);
  await eventually(async () => (harness.sim.eventStreams() === 0 ? true : undefined));
  await harness.close();
});

test('a runtime without container events (UNIMPLEMENTED): one info line, and the watcher gives up', async () => {
  const harness = await startHarness({ scale: 0 }, { containerEvents: false });
  const { logger, lines } = capturingLogger();
  const liveChanges: boolean[] = [];
  const watcher = new ContainerEventWatcher({ cri: harness.client, logger, onPodEvent: () => undefined, onLiveChange: (live) => liveChanges.push(live) });
  watcher.start();
  await watcher.done;
  const noEvents = lines.filter((line) => /no container events/.test(line.msg));
  assert.equal(noEvents.length, 1);
  assert.equal(noEvents[0].level, PINO_INFO);
  assert.equal(lines.filter((line) => line.level >= PINO_WARN).length, 0, 'a runtime without events is no failure');
  assert.deepEqual(liveChanges, [], 'events never counted as flowing');
  assert.equal(harness.sim.stats().calls.GetContainerEvents, 1, 'asked once');
  await harness.close();
});

test('a runtime restart breaks the stream: it is opened again with backoff, and events flow again', async () => {
  const { socketPath } = tempSocketPath();
  let sim = await startSimRuntime({ socketPath, latency: { scale: 0 } });
  const cri = new CriClient(sim.endpoint, { timeoutMs: 5_000 });
  const { logger, lines } = capturingLogger();
  const liveChanges: boolean[] = [];
  const pods: string[] = [];
  const watcher = new ContainerEventWatcher({
    cri,
    logger,
    onPodEvent: (uid) => pods.push(uid),
    onLiveChange: (live) => liveChanges.push(live),
    backoff: quickBackoff(),
    settleMs: 50,
  });
  watcher.start();
  await eventually(async () => (watcher.live ? true : undefined));

  watcher.takeCounts();
  await sim.close();
  await eventually(async () => (liveChanges.length === 2 ? true : undefined));
  // Away long enough for several attempts to fail; the outage is one warning all the same.
  let failedAttempts = 0;
  await eventually(async () => ((failedAttempts += watcher.takeCounts().streamErrors) >= 3 ? true : undefined));
  sim = await startSimRuntime({ socketPath, latency: { scale: 0 } });
  await eventually(async () => (sim.eventStreams() === 1 ? true : undefined));
  await cri.runPodSandbox({ config: sandboxConfig('after-restart', { uid: 'after-restart' }) });
  await eventually(async () => (pods.includes('after-restart') ? true : undefined));
  await eventually(async () => (watcher.live ? true : undefined));

  assert.deepEqual(liveChanges, [true, false, true]);
  const warnings = lines.filter((line) => line.level === PINO_WARN);
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.match(warnings[0].msg, /Container event stream broke/);
  assert.equal(lines.filter((line) => /Container events in use/.test(line.msg)).length, 2, 'once at start, once when they flow again');
  await watcher.stop();
  cri.close();
  await sim.close();
});

test('CRI-O with enable_pod_events = false (OK, an empty stream that ends): one info line, no warning, a slow retry', async () => {
  const { socketPath } = tempSocketPath();
  let sim = await startSimRuntime({ socketPath, latency: { scale: 0 }, personality: 'crio' });
  const cri = new CriClient(sim.endpoint, { timeoutMs: 5_000 });
  const { logger, lines } = capturingLogger();
  const liveChanges: boolean[] = [];
  const watcher = new ContainerEventWatcher({
    cri,
    logger,
    onPodEvent: () => undefined,
    onLiveChange: (live) => liveChanges.push(live),
    backoff: quickBackoff(),
    settleMs: 50,
    noEventsRetryMs: 300,
  });
  watcher.start();
  // Two empty streams make the verdict; then it is asked again, slowly, and says nothing more.
  await eventually(async () => ((sim.stats().calls.GetContainerEvents ?? 0) >= 4 ? true : undefined));
  const noEvents = lines.filter((line) => /no container events/.test(line.msg));
  assert.equal(noEvents.length, 1, JSON.stringify(lines));
  assert.equal(noEvents[0].level, PINO_INFO);
  assert.match(String((noEvents[0] as { reason?: string }).reason), /enable_pod_events/);
  assert.equal(lines.filter((line) => line.level >= PINO_WARN).length, 0, 'an empty stream is no failure');
  assert.deepEqual(liveChanges, [], 'events never counted as flowing');

  // The runtime is reconfigured (enable_pod_events = true) and restarted: the slow retry finds events, and says so once.
  await sim.close();
  sim = await startSimRuntime({ socketPath, latency: { scale: 0 }, personality: 'crio', podEvents: true });
  await eventually(async () => (watcher.live ? true : undefined));
  const inUse = lines.filter((line) => /Container events in use/.test(line.msg));
  assert.equal(inUse.length, 1);
  assert.equal(inUse[0].level, PINO_INFO);
  await watcher.stop();
  cri.close();
  await sim.close();
});
