// Init containers hand over on their exit event. With a runtime that serves
// container events, the PLEG relists a pod when its init container exits, so the
// next init container and then the app start without any poll: here the periodic
// relist is an hour apart and the resync ten minutes, and each init container runs
// long past the one look-again a runtime without events gets, so only the exit
// events can bring the pods to Running in time. The same pods on a runtime that
// answers GetContainerEvents with UNIMPLEMENTED (containerd 1.6) still run, on the
// periodic relist at its normal period.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Pod } from '../../src/shared/types.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { findPod, isRunningAndReady, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

// Far below the hour-long relist and the 10-minute resync.
const TIMEOUT_MS = 45_000;
const PODS = 12;

const initPodSpec: Pod['spec'] = {
  initContainers: [
    { name: 'init-a', image: 'busybox:1.35', command: ['sh', '-c', 'sleep 0.6'] },
    { name: 'init-b', image: 'busybox:1.35', command: ['sh', '-c', 'sleep 0.6'] },
  ],
  containers: [{ name: 'app', image: 'busybox:1.35', command: ['sh', '-c', 'sleep 3600'] }],
};

async function runPods(kubelet: KubeletProcess, prefix: string): Promise<Pod[]> {
  for (let i = 0; i < PODS; i++) writeFileSync(join(kubelet.manifestDir, `${prefix}-${i}.yaml`), manifest(`${prefix}-${i}`, initPodSpec));
  return waitUntil(async () => {
    const pods = (await kubelet.pods()).filter((pod) => pod.metadata?.name?.startsWith(prefix));
    return pods.filter(isRunningAndReady).length === PODS ? pods : undefined;
  }, TIMEOUT_MS, `${PODS} ${prefix} pods Running`);
}

function assertInitsCompleted(pods: Pod[], name: string): void {
  const pod = findPod(pods, name);
  assert.deepEqual(
    pod?.status?.initContainerStatuses?.map((status) => [status.name, status.state?.terminated?.reason]),
    [['init-a', 'Completed'], ['init-b', 'Completed']],
  );
}

describe('a runtime with container events', () => {
  let sim: SimRuntime;
  let kubelet: KubeletProcess;
  after(async () => {
    await kubelet?.stop();
    await sim?.close();
  });

  it('hands init containers over on their exit events, with the relist an hour apart', async () => {
    sim = await startSimRuntime({ socketPath: join(mkdtempSync(join(tmpdir(), 'shardlet-evented-')), 'sim.sock'), latency: { scale: 0 } });
    kubelet = await startKubelet({
      runtimeEndpoint: sim.endpoint,
      workers: 2,
      extraArgs: ['--sync-frequency=10m', '--pleg-relist-period=1h'],
    });
    const pods = await runPods(kubelet, 'evented');
    assertInitsCompleted(pods, 'evented-0');
    assert.ok(sim.eventStreams() >= 1, 'the PLEG holds the event stream open');
  });
});

describe('a runtime without container events (containerd 1.6)', () => {
  let sim: SimRuntime;
  let kubelet: KubeletProcess;
  after(async () => {
    await kubelet?.stop();
    await sim?.close();
  });

  it('runs the same pods on the periodic relist, and says once that it relists alone', async () => {
    sim = await startSimRuntime({
      socketPath: join(mkdtempSync(join(tmpdir(), 'shardlet-unevented-')), 'sim.sock'),
      latency: { scale: 0 },
      containerEvents: false,
    });
    kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 2, extraArgs: ['--sync-frequency=10m'] });
    const pods = await runPods(kubelet, 'relisted');
    assertInitsCompleted(pods, 'relisted-0');
    const noEvents = kubelet.logs.filter((line) => /no container events/.test(String(line.msg)));
    assert.equal(noEvents.length, 1, 'logged once');
    assert.equal(noEvents[0].level, 30, 'at info');
    assert.equal(sim.stats().calls.GetContainerEvents, 1, 'asked once, not retried');
  });
});
