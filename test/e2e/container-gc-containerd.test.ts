// Dead container GC on real containerd: a crash-looping container's old instances
// go, and only the newest exited one stays (upstream's MaxPerPodContainer, 1), so a
// pod that crashes all day does not fill the disk with dead containers; and with
// --maximum-dead-containers the node-wide pass holds the whole node at the limit
// (the scenario of container-gc-scenario.ts, also run on the sim). Each case runs
// its own shardlet, one after the other: two kubelets on one containerd would take
// each other's pods for orphans.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CriClient } from '../../src/shared/cri/client.js';
import { ensureContainerd } from '../../src/tools/containerd-env.js';
import { findPod, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { deadContainerLimitScenario } from './container-gc-scenario.js';
import { manifest } from './scenarios.js';

// Two restarts: the crash backoff waits 10 s, then 20 s.
const TIMEOUT_MS = 120_000;

describe('per pod', () => {
  let kubelet: KubeletProcess;
  let cri: CriClient;
  let image: string;

  before(async () => {
    const containerd = ensureContainerd();
    image = containerd.busyboxImage;
    cri = new CriClient(containerd.endpoint, { timeoutMs: 30_000 });
    kubelet = await startKubelet({ runtimeEndpoint: containerd.endpoint, workers: 1 });
  });

  after(async () => {
    rmSync(join(kubelet.manifestDir, 'crashy.yaml'), { force: true });
    await waitUntil(async () => (await kubelet.pods()).length === 0, 60_000, 'pod removed').catch(() => undefined);
    await kubelet?.stop();
    cri?.close();
  });

  test('a crash-looping container keeps one dead instance, not one per crash', async (t) => {
    writeFileSync(join(kubelet.manifestDir, 'crashy.yaml'), manifest('crashy', { restartPolicy: 'Always', containers: [{ name: 'crash', image, command: ['sh', '-c', 'exit 1'] }] }));
    const pod = await waitUntil(async () => {
      const found = findPod(await kubelet.pods(), 'crashy');
      return (found?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2 ? found : false;
    }, TIMEOUT_MS, 'two restarts');
    // The sync that started the newest instance removed what was beyond the limit; give the next one a moment.
    const instances = await waitUntil(async () => {
      const { containers } = await cri.listContainers({ filter: { label_selector: { 'io.kubernetes.pod.uid': pod.metadata!.uid! } } });
      const exited = containers.filter((c) => c.state === 'CONTAINER_EXITED');
      return exited.length <= 1 ? containers : false;
    }, 30_000, 'at most one exited instance left');
    t.diagnostic(`instances in the runtime after ${pod.status!.containerStatuses![0]!.restartCount} restarts: ${instances.map((c) => `${c.metadata?.attempt}:${c.state}`).join(', ')}`);
    assert.ok(instances.length <= 2, 'the newest exited instance, and the current one at most');
    assert.ok(instances.every((c) => (c.metadata?.attempt ?? 0) >= 1), 'the first instance is gone');
  });
});

describe('node-wide', () => {
  test('--maximum-dead-containers holds the node at the limit while crash-looping pods keep restarting', async (t) => {
    const containerd = ensureContainerd();
    await deadContainerLimitScenario(t, { endpoint: containerd.endpoint, image: containerd.busyboxImage }, TIMEOUT_MS);
  });
});
