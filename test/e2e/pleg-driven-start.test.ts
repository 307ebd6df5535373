// Pod starts must be driven by PLEG events and the pod workers, never wait for the
// periodic resync. The instant runtime is where races show: an init container that
// exits before the sync that started it has read its status, or a whole pod that
// is up before the next relist.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { findPod, isRunningAndReady, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

// Far below the 10-minute resync: a pod that made it only through the resync fails.
const TIMEOUT_MS = 30_000;
const PODS = 30;

let sim: SimRuntime;
let kubelet: KubeletProcess;

before(async () => {
  sim = await startSimRuntime({ socketPath: join(mkdtempSync(join(tmpdir(), 'shardlet-pleg-')), 'sim.sock'), latency: { scale: 0 } });
  kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 0, extraArgs: ['--sync-frequency=10m'] });
});

after(async () => {
  await kubelet?.stop();
  await sim?.close();
});

test('pods whose init container exits at once go on to Running without waiting for the resync', async () => {
  for (let i = 0; i < PODS; i++) {
    const spec = {
      initContainers: [{ name: 'init', image: 'busybox:1.35', command: ['sh', '-c', 'true'] }],
      containers: [{ name: 'app', image: 'busybox:1.35', command: ['sh', '-c', 'sleep 3600'] }],
    };
    writeFileSync(join(kubelet.manifestDir, `quick-${i}.yaml`), manifest(`quick-${i}`, spec));
  }
  const pods = await waitUntil(async () => {
    const all = await kubelet.pods();
    return all.filter(isRunningAndReady).length === PODS ? all : undefined;
  }, TIMEOUT_MS, `${PODS} pods Running`);
  const pod = findPod(pods, 'quick-0');
  assert.equal(pod?.status?.initContainerStatuses?.[0]?.state?.terminated?.reason, 'Completed');
});
