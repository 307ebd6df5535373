// Image garbage collection against the simulated runtime: imageMaximumGCAge removes
// an image no container has used for longer than the limit, whatever the disk, and
// keeps the image a running pod uses (the sim's image filesystem is not on this host,
// so only the age rule applies there; the disk rule is tested with modelled figures
// in test/main/images and on containerd).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CriClient } from '../../src/shared/cri/client.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { findPod, isRunningAndReady, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

const TIMEOUT_MS = 30_000;

let sim: SimRuntime;
let kubelet: KubeletProcess;
let cri: CriClient;

before(async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-imagegc-sim-'));
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock'), latency: { scale: 0 } });
  cri = new CriClient(sim.endpoint, { timeoutMs: 5_000 });
  const config = join(workDir, 'kubelet.yaml');
  // Standalone: webhook authn/authz (a config file's defaults) need a client, so off, as upstream's standalone guide.
  writeFileSync(config, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nimageMinimumGCAge: 1s\nimageMaximumGCAge: 3s\nauthentication: {webhook: {enabled: false}}\nauthorization: {mode: AlwaysAllow}\n');
  kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 1, workDir, extraArgs: ['--config', config, '--image-gc-period=1s'] });
});

after(async () => {
  await kubelet?.stop();
  cri?.close();
  await sim?.close();
});

const sleeper = (name: string, image: string) => manifest(name, { containers: [{ name: 'main', image, command: ['sleep', '3600'] }] });
const tags = async () => (await cri.listImages({})).images.flatMap((image) => image.repo_tags);

test('an image unused for longer than imageMaximumGCAge is removed; the one in use stays', async () => {
  writeFileSync(join(kubelet.manifestDir, 'stays.yaml'), sleeper('stays', 'busybox:1.35'));
  writeFileSync(join(kubelet.manifestDir, 'goes.yaml'), sleeper('goes', 'nginx:1.27'));
  await waitUntil(async () => {
    const pods = await kubelet.pods();
    return isRunningAndReady(findPod(pods, 'stays')) && isRunningAndReady(findPod(pods, 'goes'));
  }, TIMEOUT_MS, 'both pods Running');
  const pulled = await tags();
  assert.ok(pulled.some((tag) => tag.includes('nginx')) && pulled.some((tag) => tag.includes('busybox')), `both images pulled: ${pulled}`);
  rmSync(join(kubelet.manifestDir, 'goes.yaml'));
  await waitUntil(async () => !(await tags()).some((tag) => tag.includes('nginx')), TIMEOUT_MS, 'the image nothing uses any more removed');
  assert.ok((await tags()).some((tag) => tag.includes('busybox')), 'the image in use stays');
  assert.ok(kubelet.logs.some((line) => line.msg === 'Removing image to free bytes' && line.reason === 'unused for longer than imageMaximumGCAge'));
});
