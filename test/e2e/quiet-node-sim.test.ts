// The CRI calls a pod costs, counted by the simulated runtime per method. A pod
// start asks only what the shard does not know (an image it saw present, the exit
// of an init container it read itself); a node at rest polls nothing per pod: with
// every pod Running and nothing happening, the runtime sees the PLEG's relist and
// nothing that grows with the pod count, although each pod is resynced every second
// here (a resync of a pod whose runtime state did not change starts from what its
// last sync left, as upstream's SyncPod from the PLEG cache).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import type { Pod } from '../../src/shared/types.js';
import type { SimStats } from '../../src/simruntime/call-stats.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { isRunningAndReady, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

const PODS = 24;
/** Every third pod has an init container. */
const INIT_PODS = PODS / 3;
const START_TIMEOUT_MS = 60_000;
/** Lets the start-up's last events and syncs pass before counting. */
const SETTLE_MS = 2_000;
/** Five resync periods of every pod: long enough that a per-pod call shows PODS times over. */
const QUIET_WINDOW_MS = 5_000;

let sim: SimRuntime;
let kubelet: KubeletProcess;

before(async () => {
  sim = await startSimRuntime({ socketPath: join(mkdtempSync(join(tmpdir(), 'shardlet-quiet-')), 'sim.sock'), latency: { scale: 0 } });
  kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 2, extraArgs: ['--sync-frequency=1s'] });
});

after(async () => {
  await kubelet?.stop();
  await sim?.close();
});

function podSpec(index: number): Pod['spec'] {
  const app = { name: 'app', image: 'busybox:1.35', command: ['sh', '-c', 'sleep 3600'] };
  const init = { name: 'init', image: 'busybox:1.35', command: ['sh', '-c', 'true'] };
  return index % 3 === 0 ? { initContainers: [init], containers: [app] } : { containers: [app] };
}

function callsBetween(before: SimStats, after: SimStats): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [method, count] of Object.entries(after.calls)) {
    const made = (count ?? 0) - ((before.calls as Record<string, number>)[method] ?? 0);
    if (made > 0) delta[method] = made;
  }
  return delta;
}

test('a pod start asks for no image, sandbox or container state the shard already knows', async (t) => {
  const first = sim.stats();
  for (let i = 0; i < PODS; i++) writeFileSync(join(kubelet.manifestDir, `quiet-${i}.yaml`), manifest(`quiet-${i}`, podSpec(i)));
  await waitUntil(async () => (await kubelet.pods()).filter(isRunningAndReady).length === PODS, START_TIMEOUT_MS, `${PODS} pods Running`);
  const calls = callsBetween(first, sim.stats());
  const message = `calls for ${PODS} pod starts: ${JSON.stringify(calls)}`;
  t.diagnostic(message);
  const containers = PODS + INIT_PODS;
  assert.equal(calls.CreateContainer, containers, message);
  // One image: a shard asks about it until it has seen it present (starts that ask together share one
  // call; how many waves of starts ask before the pull ends depends on timing), not once per container.
  assert.ok((calls.ImageStatus ?? 0) < PODS, message);
  // The new sandbox's IPs, once per pod, and each started container once; an init container seen exited
  // then is not read again, one seen still running (it runs about 10 ms) is read once its exit event came.
  assert.ok(calls.PodSandboxStatus! >= PODS && calls.PodSandboxStatus! <= PODS + INIT_PODS, message);
  assert.ok(calls.ContainerStatus! >= containers && calls.ContainerStatus! <= containers + INIT_PODS, message);
});

test('resyncs of pods nothing happened to make no CRI call', async (t) => {
  await sleep(SETTLE_MS);
  const first = sim.stats();
  await sleep(QUIET_WINDOW_MS);
  const calls = callsBetween(first, sim.stats());
  const message = `calls over ${QUIET_WINDOW_MS / 1000} s with ${PODS} quiet pods: ${JSON.stringify(calls)}`;
  t.diagnostic(message);
  // Only a sync's read of the runtime asks for a sandbox's status.
  assert.equal(calls.PodSandboxStatus ?? 0, 0, message);
  // The relist lists everything once a second; a per-pod read would list each pod.
  assert.ok((calls.ListPodSandbox ?? 0) < PODS, message);
  assert.ok((calls.ListContainers ?? 0) < PODS, message);
  // Nor a container's (the log rotation knows where the kubelet put each log).
  assert.equal(calls.ContainerStatus ?? 0, 0, message);
  assert.equal((await kubelet.pods()).filter(isRunningAndReady).length, PODS);
});
