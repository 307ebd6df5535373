// Probes and lifecycle hooks end to end on the simulated runtime: a real shardlet
// process (shard threads), hostNetwork pods whose httpGet, tcpSocket and grpc probes
// and hooks reach servers this test runs on the node (--node-ip 127.0.0.1), status
// read from /pods, events from shardlet's log. Exec probes and hooks go through the
// sim's ExecSync, which runs busybox-like commands against the files the container's
// own script makes and removes (src/simruntime/exec-commands.ts, container-files.ts).
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { CriClient } from '../../src/shared/cri/client.js';
import { healthServiceDefinition, type ServingStatus } from '../../src/shared/grpc-health.js';
import type { Pod } from '../../src/shared/types.js';
import { startSimRuntime } from '../../src/simruntime/server.js';
import { freePort } from '../../src/tools/free-port.js';
import { findPod, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

const WAIT_MS = 60_000;
const IMAGE = 'busybox:1.35';

const readyOf = (pod: Pod | undefined) => pod?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
const statusOf = (pod: Pod | undefined, name = 'app') => pod?.status?.containerStatuses?.find((s) => s.name === name);

// With shard threads (results cross a MessagePort) and with --workers 0 (the same code on the main thread).
for (const workers of [2, 0]) describe(`probes and hooks on the simulated runtime, --workers ${workers}`, () => {
  let sim: Awaited<ReturnType<typeof startSimRuntime>>;
  let kubelet: KubeletProcess;
  let cri: CriClient;
  let httpServer: http.Server;
  let httpPort = 0;
  /** Status code per path the test's HTTP server answers (200 unless set). */
  const codeByPath = new Map<string, number>();
  /** Requests the HTTP server saw, with the app container's runtime state at that moment. */
  const requests: Array<{ path: string; userAgent: string; appState?: string }> = [];

  const write = (file: string, text: string) => writeFileSync(join(kubelet.manifestDir, file), text);
  /** The pod once the check holds (undefined when the check was that it is gone). */
  const waitForPod = async (prefix: string, check: (pod: Pod | undefined) => boolean, what: string): Promise<Pod | undefined> => {
    const found = await waitUntil(async () => {
      const pod = findPod(await kubelet.pods(), prefix);
      return check(pod) ? { pod } : false;
    }, WAIT_MS, `${prefix}: ${what}`);
    return found.pod;
  };
  const eventsOf = (prefix: string, reason: string) =>
    kubelet.logs.filter((l) => l.msg === 'Event' && l.reason === reason && String(l.pod).includes(`${prefix}-test-node`)).map((l) => String(l.message));
  const hostNetPod = (name: string, container: Record<string, unknown>) =>
    manifest(name, { hostNetwork: true, containers: [{ name: 'app', image: IMAGE, command: ['sleep', '3600'], ...container }] });

  before(async () => {
    const socketPath = join(mkdtempSync(join(tmpdir(), 'shardlet-sim-')), 'sim.sock');
    sim = await startSimRuntime({ socketPath });
    cri = new CriClient(`unix://${socketPath}`, { timeoutMs: 30_000 });
    httpServer = http.createServer((req, res) => {
      const path = req.url ?? '/';
      const record: (typeof requests)[number] = { path, userAgent: req.headers['user-agent'] ?? '' };
      requests.push(record);
      if (path.startsWith('/prestop/')) {
        // What the runtime says of the pod's container while its preStop hook runs.
        const podName = path.slice('/prestop/'.length);
        void cri
          .listContainers({ filter: { label_selector: { 'io.kubernetes.pod.name': podName } } })
          .then((reply) => (record.appState = reply.containers[0]?.state))
          .finally(() => res.end('bye'));
        return;
      }
      res.writeHead(codeByPath.get(path) ?? 200).end('ok');
    });
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    httpPort = (httpServer.address() as AddressInfo).port;
    kubelet = await startKubelet({ runtimeEndpoint: `unix://${socketPath}`, workers, extraArgs: ['--node-ip=127.0.0.1', '--sync-frequency=10m'] });
  });

  after(async () => {
    for (const file of ['ready.yaml', 'live.yaml', 'exec-live.yaml', 'exec-poststart.yaml', 'grpc.yaml', 'startup.yaml', 'poststart.yaml', 'prestop.yaml']) rmSync(join(kubelet.manifestDir, file), { force: true });
    await waitUntil(async () => (await kubelet.pods()).length === 0, 60_000, 'pods removed').catch(() => undefined);
    await kubelet.stop();
    cri.close();
    httpServer.close();
    await sim.close();
  });

  test('an httpGet readiness probe holds Ready false until it passes, and flips it with the server', async () => {
    codeByPath.set('/ready', 500);
    write('ready.yaml', hostNetPod('ready', { readinessProbe: { httpGet: { path: '/ready', port: httpPort }, periodSeconds: 1, failureThreshold: 1 } }));
    const notReady = await waitForPod('ready', (p) => statusOf(p)?.state?.running !== undefined, 'running');
    assert.equal(readyOf(notReady), 'False', 'running but never probed successfully: not ready');
    assert.equal(statusOf(notReady)?.ready, false);
    codeByPath.set('/ready', 200);
    await waitForPod('ready', (p) => readyOf(p) === 'True' && statusOf(p)?.ready === true, 'Ready after the probe passes');
    codeByPath.set('/ready', 503);
    const unready = await waitForPod('ready', (p) => readyOf(p) === 'False', 'Ready false again');
    assert.equal(unready?.status?.conditions?.find((c) => c.type === 'ContainersReady')?.status, 'False');
    assert.equal(statusOf(unready)?.restartCount, 0, 'readiness never restarts a container');
    codeByPath.set('/ready', 200);
    await waitForPod('ready', (p) => readyOf(p) === 'True', 'Ready once more');
    assert.ok(requests.some((r) => r.path === '/ready' && r.userAgent === 'kube-probe/1.36'));
    await waitUntil(async () => eventsOf('ready', 'Unhealthy').some((m) => m === 'Readiness probe failed: HTTP probe failed with statuscode: 503'), WAIT_MS, 'Unhealthy event');
  });

  test('a tcpSocket liveness probe that starts failing restarts the container, with Unhealthy and Killing events', async () => {
    const listener = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const tcpPort = (listener.address() as AddressInfo).port;
    write('live.yaml', hostNetPod('live', { livenessProbe: { tcpSocket: { port: tcpPort }, periodSeconds: 1, failureThreshold: 2 } }));
    await waitForPod('live', (p) => readyOf(p) === 'True', 'Running and Ready');
    await new Promise<void>((resolve) => listener.close(() => resolve()));
    const restarted = await waitForPod('live', (p) => (statusOf(p)?.restartCount ?? 0) >= 1, 'restarted by its liveness probe');
    assert.ok(restarted);
    await waitUntil(async () => eventsOf('live', 'Unhealthy').some((m) => m.startsWith(`Liveness probe failed: dial tcp 127.0.0.1:${tcpPort}: connect: connection refused`)), WAIT_MS, 'Unhealthy event');
    assert.ok(eventsOf('live', 'Killing').includes('Container app failed liveness probe, will be restarted'));
  });

  test('an exec liveness probe that starts failing restarts the container, with an Unhealthy event', async () => {
    write(
      'exec-live.yaml',
      hostNetPod('exec-live', {
        command: ['sh', '-c', 'touch /tmp/healthy; sleep 4; rm /tmp/healthy; sleep 3600'],
        livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] }, periodSeconds: 1, failureThreshold: 2 },
      }),
    );
    await waitForPod('exec-live', (p) => readyOf(p) === 'True', 'Running and Ready');
    await waitForPod('exec-live', (p) => (statusOf(p)?.restartCount ?? 0) >= 1, 'restarted by its liveness probe');
    await waitUntil(
      async () => eventsOf('exec-live', 'Unhealthy').some((m) => m.startsWith("Liveness probe failed: cat: can't open '/tmp/healthy'")),
      WAIT_MS,
      'Unhealthy event',
    );
    assert.ok(eventsOf('exec-live', 'Killing').includes('Container app failed liveness probe, will be restarted'));
  });

  test('a failing postStart exec hook kills the container (FailedPostStartHook)', async () => {
    write('exec-poststart.yaml', hostNetPod('exec-poststart', { lifecycle: { postStart: { exec: { command: ['sh', '-c', 'exit 3'] } } } }));
    await waitForPod('exec-poststart', (p) => (statusOf(p)?.restartCount ?? 0) >= 1, 'restarted after its postStart hook failed');
    await waitUntil(async () => eventsOf('exec-poststart', 'FailedPostStartHook').length > 0, WAIT_MS, 'FailedPostStartHook event');
  });

  test('a grpc readiness probe follows a grpc.health.v1 server', async () => {
    let serving: ServingStatus = 'SERVING';
    const server = new grpc.Server();
    server.addService(healthServiceDefinition(), {
      Check: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, { status: serving }),
      Watch: () => undefined,
    });
    const grpcPort = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
    );
    try {
      write('grpc.yaml', hostNetPod('grpc', { readinessProbe: { grpc: { port: grpcPort }, periodSeconds: 1, failureThreshold: 1 } }));
      await waitForPod('grpc', (p) => readyOf(p) === 'True', 'Ready while SERVING');
      serving = 'NOT_SERVING';
      await waitForPod('grpc', (p) => readyOf(p) === 'False', 'not Ready while NOT_SERVING');
      await waitUntil(async () => eventsOf('grpc', 'Unhealthy').includes('Readiness probe failed: service unhealthy (responded with "NOT_SERVING")'), WAIT_MS, 'Unhealthy event');
    } finally {
      server.forceShutdown();
    }
  });

  test('a startup probe holds the liveness probe off until it passes', async () => {
    codeByPath.set('/started', 500);
    const closed = await freePort();
    write(
      'startup.yaml',
      hostNetPod('startup', {
        startupProbe: { httpGet: { path: '/started', port: httpPort }, periodSeconds: 1, failureThreshold: 1000 },
        // Would restart the container within two seconds if it ran.
        livenessProbe: { tcpSocket: { port: closed }, periodSeconds: 1, failureThreshold: 1 },
      }),
    );
    await waitForPod('startup', (p) => statusOf(p)?.state?.running !== undefined, 'running');
    const requestsBefore = requests.filter((r) => r.path === '/started').length;
    await waitUntil(async () => requests.filter((r) => r.path === '/started').length >= requestsBefore + 4, WAIT_MS, 'a few startup probes');
    const held = findPod(await kubelet.pods(), 'startup');
    assert.equal(statusOf(held)?.started, false);
    assert.equal(statusOf(held)?.restartCount, 0, 'liveness did not run while the startup probe had not passed');
    assert.equal(eventsOf('startup', 'Unhealthy').filter((m) => m.startsWith('Liveness')).length, 0);
    codeByPath.set('/started', 200);
    await waitForPod('startup', (p) => (statusOf(p)?.restartCount ?? 0) >= 1, 'liveness runs (and fails) once started');
  });

  test('a failing postStart httpGet hook kills the container (FailedPostStartHook) and the restart policy restarts it', async () => {
    const closed = await freePort();
    write('poststart.yaml', hostNetPod('poststart', { lifecycle: { postStart: { httpGet: { path: '/hook', port: closed } } } }));
    await waitForPod('poststart', (p) => (statusOf(p)?.restartCount ?? 0) >= 1, 'restarted after its postStart hook failed');
    await waitUntil(async () => eventsOf('poststart', 'FailedPostStartHook').includes('PostStartHook failed'), WAIT_MS, 'FailedPostStartHook event');
    assert.ok(eventsOf('poststart', 'Killing').includes('FailedPostStartHook'));
  });

  test('a preStop httpGet hook runs while the container still runs, before it is stopped', async () => {
    write('prestop.yaml', hostNetPod('prestop', { lifecycle: { preStop: { httpGet: { path: '/prestop/prestop-test-node', port: httpPort } } } }));
    await waitForPod('prestop', (p) => readyOf(p) === 'True', 'Ready');
    rmSync(join(kubelet.manifestDir, 'prestop.yaml'));
    // /pods forgets the pod at once; its container is stopped after the hook returned.
    const running = async () =>
      (await cri.listContainers({ filter: { label_selector: { 'io.kubernetes.pod.name': 'prestop-test-node' } } })).containers.filter((c) => c.state === 'CONTAINER_RUNNING');
    await waitUntil(async () => (await running()).length === 0, WAIT_MS, 'the container stopped');
    const hook = requests.find((r) => r.path === '/prestop/prestop-test-node');
    assert.ok(hook, 'the preStop hook reached the server');
    assert.equal(hook.appState, 'CONTAINER_RUNNING');
  });
});
