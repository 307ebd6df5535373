// Graceful node shutdown where there is no logind (as on these CI machines): a real
// shardlet with shutdownGracePeriod set starts, runs its pods, and says once, at
// info level, that graceful node shutdown is unavailable and why; the setting is
// not named among those "not acted on" (it is, where logind exists).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { findPod, isRunningAndReady, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';

const TIMEOUT_MS = 60_000;
const INFO_LEVEL = 30;

let workDir: string;
let sim: SimRuntime;
let kubelet: KubeletProcess;

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-no-logind-'));
  // No system bus at all, whatever this machine has.
  process.env.DBUS_SYSTEM_BUS_ADDRESS = `unix:path=${join(workDir, 'no-system-bus')}`;
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  const config = join(workDir, 'kubelet.yaml');
  // Standalone: the file's webhook authentication and authorization defaults need an API server, so they are turned off.
  writeFileSync(
    config,
    'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nshutdownGracePeriod: 10s\nshutdownGracePeriodCriticalPods: 4s\n' +
      'authentication: {webhook: {enabled: false}}\nauthorization: {mode: AlwaysAllow}\n',
  );
  kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 1, workDir, extraArgs: ['--config', config, `--logind-conf-dir=${join(workDir, 'logind.conf.d')}`] });
  const web = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'main', image: 'busybox:1.35', command: ['sleep', '3600'] }] } };
  writeFileSync(join(kubelet.manifestDir, 'web.yaml'), stringify(web));
});

after(async () => {
  await kubelet?.stop();
  await sim?.close();
});

test('without logind shardlet starts, runs pods and logs once that graceful node shutdown is unavailable', async () => {
  const unavailable = await waitUntil(
    async () => kubelet.logs.find((line) => line.code === 'SHARDLET_NODE_SHUTDOWN_UNAVAILABLE'),
    TIMEOUT_MS,
    'the unavailability line',
  );
  assert.equal(unavailable.level, INFO_LEVEL);
  assert.match(String(unavailable.msg), /^Graceful node shutdown is unavailable: no systemd-logind on the system bus/);
  assert.match(String(unavailable.reason), /^no system bus: /);
  assert.equal(unavailable.shutdownGracePeriodRequested, '10s');
  await waitUntil(async () => isRunningAndReady(findPod(await kubelet.pods(), 'web')), TIMEOUT_MS, 'the pod Running');

  assert.equal(kubelet.logs.filter((line) => line.code === 'SHARDLET_NODE_SHUTDOWN_UNAVAILABLE').length, 1);
  assert.ok(!kubelet.logs.some((line) => line.msg === 'Failed to start node shutdown manager'));
  const notActedOn = kubelet.logs.find((line) => String(line.msg).startsWith('Settings accepted but not acted on yet'));
  assert.ok(!String(notActedOn?.msg ?? '').includes('shutdownGracePeriod'), 'not listed as not acted on');
});
