// Probes and lifecycle hooks end to end on real containerd (the project's
// scripts/containerd/setup.sh): exec probes and hooks over CRI ExecSync, httpGet and
// tcpSocket probes to the pod IP on the CNI bridge, status read from /pods, events
// from shardlet's log. Needs root; run under flock /tmp/shardlet-containerd.lock.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Pod } from '../../src/shared/types.js';
import { ensureContainerd } from '../../src/tools/containerd-env.js';
import { findPod, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

const WAIT_MS = 90_000;

const readyOf = (pod: Pod | undefined) => pod?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
const statusOf = (pod: Pod | undefined) => pod?.status?.containerStatuses?.find((s) => s.name === 'app');

describe('probes and hooks on containerd', () => {
  let kubelet: KubeletProcess;
  let image: string;
  const hostDir = mkdtempSync(join(tmpdir(), 'shardlet-probes-'));
  const files = ['exec-live.yaml', 'http-ready.yaml', 'startup.yaml', 'prestop.yaml', 'poststart.yaml'];

  const write = (file: string, text: string) => writeFileSync(join(kubelet.manifestDir, file), text);
  const waitForPod = async (prefix: string, check: (pod: Pod | undefined) => boolean, what: string): Promise<Pod | undefined> => {
    const found = await waitUntil(async () => {
      const pod = findPod(await kubelet.pods(), prefix);
      return check(pod) ? { pod } : false;
    }, WAIT_MS, `${prefix}: ${what}`);
    return found.pod;
  };
  const eventsOf = (prefix: string, reason: string) =>
    kubelet.logs.filter((l) => l.msg === 'Event' && l.reason === reason && String(l.pod).includes(`${prefix}-test-node`)).map((l) => String(l.message));
  const appPod = (name: string, script: string, container: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    manifest(name, { containers: [{ name: 'app', image, command: ['sh', '-c', script], ...container }], terminationGracePeriodSeconds: 5, ...extra });

  before(async () => {
    const containerd = ensureContainerd();
    image = containerd.busyboxImage;
    kubelet = await startKubelet({ runtimeEndpoint: containerd.endpoint, workers: 2, extraArgs: ['--sync-frequency=10m'] });
  });

  after(async () => {
    for (const file of files) rmSync(join(kubelet.manifestDir, file), { force: true });
    await waitUntil(async () => (await kubelet.pods()).length === 0, 60_000, 'pods removed').catch(() => undefined);
    await kubelet.stop();
    rmSync(hostDir, { recursive: true, force: true });
  });

  test('an exec liveness probe that starts failing restarts the container, with an Unhealthy event', async () => {
    write(
      'exec-live.yaml',
      appPod('exec-live', 'touch /tmp/healthy; sleep 6; rm /tmp/healthy; sleep 3600', {
        livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] }, periodSeconds: 1, failureThreshold: 2 },
      }),
    );
    await waitForPod('exec-live', (p) => readyOf(p) === 'True', 'Running and Ready');
    await waitForPod('exec-live', (p) => (statusOf(p)?.restartCount ?? 0) >= 1, 'restarted by its liveness probe');
    await waitUntil(async () => eventsOf('exec-live', 'Unhealthy').some((m) => m.startsWith("Liveness probe failed: cat: can't open '/tmp/healthy'")), WAIT_MS, 'Unhealthy event');
    assert.ok(eventsOf('exec-live', 'Killing').includes('Container app failed liveness probe, will be restarted'));
  });

  test('an httpGet readiness probe against busybox httpd flips Ready false and back as the file goes and comes', async () => {
    const script = 'mkdir -p /www; echo ok > /www/index.html; httpd -p 8080 -h /www; while true; do sleep 5; rm /www/index.html; sleep 5; echo ok > /www/index.html; done';
    write(
      'http-ready.yaml',
      appPod('http-ready', script, {
        ports: [{ name: 'web', containerPort: 8080 }],
        readinessProbe: { httpGet: { path: '/index.html', port: 'web' }, periodSeconds: 1, failureThreshold: 1 },
        // The same port by tcpSocket: open all along, so the container is never restarted.
        livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1, failureThreshold: 1, initialDelaySeconds: 2 },
      }),
    );
    await waitForPod('http-ready', (p) => readyOf(p) === 'True', 'Ready');
    await waitForPod('http-ready', (p) => readyOf(p) === 'False', 'not Ready once the file is gone');
    const back = await waitForPod('http-ready', (p) => readyOf(p) === 'True', 'Ready again once the file is back');
    assert.equal(statusOf(back)?.restartCount, 0, 'readiness and a passing tcpSocket liveness never restart it');
    assert.ok(eventsOf('http-ready', 'Unhealthy').some((m) => m === 'Readiness probe failed: HTTP probe failed with statuscode: 404'));
  });

  test('a startup probe holds liveness off until it passes', async () => {
    write(
      'startup.yaml',
      appPod('startup', 'sleep 8; touch /tmp/started; sleep 3600', {
        startupProbe: { exec: { command: ['test', '-f', '/tmp/started'] }, periodSeconds: 1, failureThreshold: 60 },
        // Would restart the container at once if it ran.
        livenessProbe: { exec: { command: ['test', '-f', '/tmp/never'] }, periodSeconds: 1, failureThreshold: 1 },
      }),
    );
    const running = await waitForPod('startup', (p) => statusOf(p)?.state?.running !== undefined, 'running');
    assert.equal(statusOf(running)?.started, false);
    await waitForPod('startup', (p) => (statusOf(p)?.restartCount ?? 0) >= 1, 'liveness runs (and fails) once started');
    const liveness = kubelet.logs.filter((l) => l.msg === 'Event' && String(l.message).startsWith('Liveness probe failed') && String(l.pod).includes('startup-test-node'));
    const started = kubelet.logs.findIndex((l) => l.msg === 'Probe result changed' && l.probeType === 'startup' && l.result === 'success');
    const firstLiveness = kubelet.logs.indexOf(liveness[0]);
    assert.ok(started >= 0 && firstLiveness > started, 'no liveness probe before the startup probe passed');
  });

  test("a preStop hook's side effect is there before the container is stopped", async () => {
    const script = "trap 'if test -f /host/prestop; then echo after-prestop > /host/term; else echo before-prestop > /host/term; fi; exit 0' TERM; while true; do sleep 1; done";
    write(
      'prestop.yaml',
      appPod(
        'prestop',
        script,
        {
          lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo ran > /host/prestop'] } } },
          volumeMounts: [{ name: 'host', mountPath: '/host' }],
        },
        { volumes: [{ name: 'host', hostPath: { path: hostDir, type: 'Directory' } }] },
      ),
    );
    await waitForPod('prestop', (p) => readyOf(p) === 'True', 'Ready');
    rmSync(join(kubelet.manifestDir, 'prestop.yaml'));
    // The pod leaves /pods when its manifest goes; its containers stop after that.
    await waitUntil(async () => existsSync(join(hostDir, 'term')), WAIT_MS, 'the container handled SIGTERM');
    assert.equal(readFileSync(join(hostDir, 'prestop'), 'utf8'), 'ran\n');
    assert.equal(readFileSync(join(hostDir, 'term'), 'utf8'), 'after-prestop\n', 'the hook had written its file when SIGTERM came');
  });

  test('a failing postStart exec hook kills the container', async () => {
    write('poststart.yaml', appPod('poststart', 'sleep 3600', { lifecycle: { postStart: { exec: { command: ['sh', '-c', 'exit 3'] } } } }));
    await waitForPod('poststart', (p) => (statusOf(p)?.restartCount ?? 0) >= 1 || statusOf(p)?.lastState?.terminated !== undefined, 'killed after its postStart hook failed');
    await waitUntil(async () => eventsOf('poststart', 'FailedPostStartHook').includes('PostStartHook failed'), WAIT_MS, 'FailedPostStartHook event');
    assert.ok(eventsOf('poststart', 'Killing').includes('FailedPostStartHook'));
  });
});
