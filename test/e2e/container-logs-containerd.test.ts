// Container logs on real containerd: busybox static pods' output read back through
// the kubelet's /containerLogs route (on a plain HTTP adapter until the :10250
// server is merged), from the log files containerd itself writes, and rotation's
// ReopenContainerLog accepted by containerd. Needs root (setup.sh).
import assert from 'node:assert/strict';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CriClient } from '../../src/shared/cri/client.js';
import type { Pod } from '../../src/shared/types.js';
import { ensureContainerd, type ProjectContainerd } from '../../src/tools/containerd-env.js';
import { waitUntil } from '../helpers/kubelet-process.js';
import { httpGet, startInProcessKubelet, type InProcessKubelet } from '../helpers/kubelet-routes-server.js';
import { manifest } from './scenarios.js';
import { removeRuntimePod } from './stranded-pods.js';

const NODE = 'logs-ctrd-node';
const WAIT_MS = 120_000;

let containerd: ProjectContainerd;
let cri: CriClient;
let node: InProcessKubelet;

const logsPath = (pod: string, query = '') => `/containerLogs/default/${pod}-${NODE}/main${query ? `?${query}` : ''}`;

function mainStatus(name: string) {
  const pod = node.kubelet.podManager.pods().find((candidate: Pod) => candidate.metadata?.name === `${name}-${NODE}`);
  return pod && node.kubelet.statuses.get(pod.metadata!.uid!)?.containerStatuses?.find((status) => status.name === 'main');
}

before(async () => {
  containerd = ensureContainerd();
  cri = new CriClient(containerd.endpoint, { timeoutMs: 30_000 });
  node = await startInProcessKubelet({
    runtimeEndpoint: containerd.endpoint,
    nodeName: NODE,
    config: { containerLogMaxSize: '1Ki', containerLogMonitorInterval: '3s' },
  });
  const pod = (name: string, script: string) =>
    writeFileSync(join(node.manifestDir, `${name}.yaml`), manifest(name, { containers: [{ name: 'main', image: containerd.busyboxImage, command: ['sh', '-c', script] }] }));
  pod('hello', 'echo hello; sleep 3600');
  pod('crash', 'echo one; exit 1');
  pod('chatty', 'while true; do echo chatty line padded to about eighty bytes 0123456789abcdefghij; sleep 0.05; done');
});

after(async () => {
  const uids = node?.kubelet.podManager.pods().map((pod: Pod) => pod.metadata!.uid!) ?? [];
  await node?.stop();
  // Nothing of this test stays in the shared containerd.
  for (const uid of uids) await removeRuntimePod(cri, uid).catch(() => undefined);
  cri?.close();
  if (node) rmSync(node.podLogsDir, { recursive: true, force: true });
});

test('a busybox container\'s output through the route', async () => {
  await waitUntil(async () => mainStatus('hello')?.state?.running, WAIT_MS, 'hello running');
  const logs = await waitUntil(async () => {
    const reply = await httpGet(node.port, logsPath('hello'));
    return reply.body ? reply : undefined;
  }, WAIT_MS, 'hello printed');
  assert.deepEqual(logs, { status: 200, body: 'hello\n' });
  const stamped = await httpGet(node.port, logsPath('hello', 'timestamps=true'));
  assert.match(stamped.body, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}(Z|[+-]\d{2}:\d{2}) hello\n$/);
});

test('previous reads the instance that crashed before the restart', async () => {
  await waitUntil(async () => (mainStatus('crash')?.restartCount ?? 0) >= 1 && mainStatus('crash')?.lastState?.terminated?.containerID, WAIT_MS, 'crash restarted');
  // The container crashes again and again: between reading the pod's status and the
  // request, its next instance can die and the GC take the one named, so ask until a
  // reply names no gone instance.
  const reply = await waitUntil(async () => {
    const attempt = await httpGet(node.port, logsPath('crash', 'previous=true'));
    return attempt.status === 200 ? attempt : undefined;
  }, WAIT_MS, 'the previous instance\'s log');
  assert.deepEqual(reply, { status: 200, body: 'one\n' });
});

test('containerd reopens a rotated log: the live file is new and keeps growing', async () => {
  await waitUntil(async () => mainStatus('chatty')?.state?.running, WAIT_MS, 'chatty running');
  const uid = node.kubelet.podManager.pods().find((pod: Pod) => pod.metadata?.name === `chatty-${NODE}`)!.metadata!.uid!;
  const containerDir = join(node.podLogsDir, `default_chatty-${NODE}_${uid}`, 'main');
  await waitUntil(async () => readdirSync(containerDir).some((name) => /^0\.log\.\d{8}-\d{6}/.test(name)), WAIT_MS, 'a rotated file');
  // The route reads the new live file, which containerd writes after ReopenContainerLog.
  await waitUntil(async () => (await httpGet(node.port, logsPath('chatty'))).body.includes('chatty line'), WAIT_MS, 'lines in the new file');
});
