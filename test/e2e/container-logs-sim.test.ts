// Container logs end to end on the simulated runtime: static pods whose commands
// print, read through the kubelet's /containerLogs route (mounted on a plain HTTP
// adapter until the :10250 server is merged), and log rotation through CRI
// ReopenContainerLog with a tiny containerLogMaxSize.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import type { Pod } from '../../src/shared/types.js';
import { waitUntil } from '../helpers/kubelet-process.js';
import { httpFollow, httpGet, startInProcessKubelet, type InProcessKubelet } from '../helpers/kubelet-routes-server.js';
import { manifest } from './scenarios.js';

const NODE = 'logs-node';
const IMAGE = 'busybox:1.35';
const WAIT_MS = 60_000;

let sim: SimRuntime;
let node: InProcessKubelet;

const logsPath = (pod: string, query = '', container = 'main') => `/containerLogs/default/${pod}-${NODE}/${container}${query ? `?${query}` : ''}`;

function podStatus(name: string) {
  const pod = node.kubelet.podManager.pods().find((candidate: Pod) => candidate.metadata?.name === `${name}-${NODE}`);
  return pod && node.kubelet.statuses.get(pod.metadata!.uid!);
}

function mainStatus(name: string) {
  return podStatus(name)?.containerStatuses?.find((status) => status.name === 'main');
}

before(async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-logs-sim-'));
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  node = await startInProcessKubelet({
    runtimeEndpoint: sim.endpoint,
    nodeName: NODE,
    workers: 2,
    // Small enough for the chatty pod to pass within seconds, far above what the others print in a test run.
    config: { containerLogMaxSize: '4Ki', containerLogMaxFiles: 3, containerLogMonitorInterval: '3s', featureGates: { PodLogsQuerySplitStreams: true } },
  });
  const pod = (name: string, script: string) =>
    writeFileSync(join(node.manifestDir, `${name}.yaml`), manifest(name, { containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', script] }] }));
  pod('talk', 'echo hello; echo world >&2; while true; do echo tick; sleep 1; done');
  pod('crash', 'echo one; exit 1');
  pod('chatty', 'while true; do echo chatty line padded to about eighty bytes 0123456789abcdefghij; sleep 0.02; done');
  await waitUntil(async () => mainStatus('talk')?.state?.running && mainStatus('chatty')?.state?.running, WAIT_MS, 'talk and chatty running');
});

after(async () => {
  await node?.stop();
  await sim?.close();
});

test('the whole log: what the container printed on stdout and stderr, in order', async () => {
  await waitUntil(async () => (await httpGet(node.port, logsPath('talk'))).body.includes('tick\n'), WAIT_MS, 'a tick');
  const { status, body } = await httpGet(node.port, logsPath('talk'));
  assert.equal(status, 200);
  assert.match(body, /^hello\nworld\n(tick\n)+$/);
});

test('tailLines, limitBytes, timestamps and stream select what upstream selects', async () => {
  await waitUntil(async () => ((await httpGet(node.port, logsPath('talk'))).body.match(/tick/g)?.length ?? 0) >= 2, WAIT_MS, 'two ticks');
  assert.equal((await httpGet(node.port, logsPath('talk', 'tailLines=1'))).body, 'tick\n');
  assert.equal((await httpGet(node.port, logsPath('talk', 'tailLines=0'))).body, '');
  assert.equal((await httpGet(node.port, logsPath('talk', 'limitBytes=8'))).body, 'hello\nwo');
  assert.equal((await httpGet(node.port, logsPath('talk', 'stream=Stderr'))).body, 'world\n');
  const stamped = (await httpGet(node.port, logsPath('talk', 'timestamps=true&tailLines=3'))).body.split('\n').filter(Boolean);
  assert.equal(stamped.length, 3);
  for (const line of stamped) assert.match(line, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z (hello|world|tick)$/);
  // sinceTime after every line written so far selects nothing.
  assert.equal((await httpGet(node.port, logsPath('talk', `sinceTime=${new Date(Date.now() + 60_000).toISOString()}`))).body, '');
});

test('follow sends the lines the container prints after the request, until the client hangs up', async () => {
  const follower = httpFollow(node.port, logsPath('talk', 'follow=true&tailLines=0'));
  try {
    await waitUntil(async () => follower.text().includes('tick\n'), WAIT_MS, 'a new tick through follow');
    assert.match(follower.text(), /^(tick\n)+$/);
    assert.equal(follower.ended(), false, 'a running container keeps the stream open');
  } finally {
    follower.close();
  }
});

test('previous reads the last terminated instance of a restarting container', async () => {
  await waitUntil(async () => (mainStatus('crash')?.restartCount ?? 0) >= 1 && mainStatus('crash')?.lastState?.terminated?.containerID, WAIT_MS, 'crash restarted');
  const previous = await httpGet(node.port, logsPath('crash', 'previous=true'));
  assert.equal(previous.status, 200);
  assert.equal(previous.body, 'one\n');
  const current = await httpGet(node.port, logsPath('crash'));
  assert.equal(current.body, 'one\n');
  const none = await httpGet(node.port, logsPath('talk', 'previous=true'));
  assert.equal(none.status, 400);
  assert.equal(none.body, `previous terminated container "main" in pod "talk-${NODE}" not found`);
});

test('unknown pods and containers are 404, bad queries 400 and 422, as upstream answers', async () => {
  assert.deepEqual(await httpGet(node.port, '/containerLogs/default/nope/main'), { status: 404, body: 'pod "nope" does not exist' });
  assert.deepEqual(await httpGet(node.port, logsPath('talk', '', 'other')), { status: 404, body: `container "other" not found in pod "talk-${NODE}"` });
  assert.equal((await httpGet(node.port, '/containerLogs/default/%E0%A4%A/main')).status, 404);
  assert.equal((await httpGet(node.port, logsPath('talk', 'tailLines=x'))).status, 400);
  assert.equal((await httpGet(node.port, logsPath('talk', 'tailLines=-1'))).status, 422);
  assert.equal((await httpGet(node.port, logsPath('talk', 'sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z'))).status, 422);
});

test('a log over containerLogMaxSize is rotated: renamed, older ones compressed, ReopenContainerLog called, followers carried over', async () => {
  const uid = node.kubelet.podManager.pods().find((pod: Pod) => pod.metadata?.name === `chatty-${NODE}`)!.metadata!.uid!;
  const containerDir = join(node.podLogsDir, `default_chatty-${NODE}_${uid}`, 'main');
  const follower = httpFollow(node.port, logsPath('chatty', 'follow=true'));
  try {
    const reopensBefore = sim.stats().calls.ReopenContainerLog ?? 0;
    await waitUntil(async () => (sim.stats().calls.ReopenContainerLog ?? 0) > reopensBefore, WAIT_MS, 'a rotation');
    const receivedAtRotation = follower.text().length;
    assert.ok(readdirSync(containerDir).some((name) => /^0\.log\.\d{8}-\d{6}$/.test(name)), 'a rotated file <log>.<timestamp>');
    assert.ok(existsSync(join(containerDir, '0.log')), 'a new live file after ReopenContainerLog');
    // The follower keeps receiving what the container writes to the new file.
    await waitUntil(async () => follower.text().length > receivedAtRotation + 1_000, WAIT_MS, 'lines after the rotation through follow');
    await waitUntil(async () => readdirSync(containerDir).some((name) => name.endsWith('.gz')), WAIT_MS, 'a compressed rotated file');
    // At most containerLogMaxFiles files, the live one included.
    await waitUntil(async () => (sim.stats().calls.ReopenContainerLog ?? 0) >= reopensBefore + 4, WAIT_MS, 'more rotations');
    const files = readdirSync(containerDir).filter((name) => !name.endsWith('.tmp'));
    assert.ok(files.length <= 3, `at most 3 files, found ${files.join(', ')}`);
    assert.match(follower.text(), /^(chatty line padded to about eighty bytes 0123456789abcdefghij\n)+/);
  } finally {
    follower.close();
  }
});
