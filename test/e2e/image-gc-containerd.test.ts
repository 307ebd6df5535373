// Image garbage collection on real containerd: with the high threshold set below
// the disk's real usage, the collector removes every image no container uses and
// keeps the one the running pod uses, as upstream's image GC does.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CriClient } from '../../src/shared/cri/client.js';
import { ensureContainerd } from '../../src/tools/containerd-env.js';
import { findPod, isRunningAndReady, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

const TIMEOUT_MS = 90_000;
const PAUSE_IMAGE = process.env.SHARDLET_PAUSE_IMAGE ?? '127.0.0.1:5000/pause:3.9';

let kubelet: KubeletProcess;
let cri: CriClient;
let busybox: string;

before(async () => {
  const containerd = ensureContainerd();
  busybox = containerd.busyboxImage;
  cri = new CriClient(containerd.endpoint, { timeoutMs: 30_000 });
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-imagegc-'));
  const config = join(workDir, 'kubelet.yaml');
  // Any real disk is more than 1 % full: every pass must try to free down to 0 %.
  writeFileSync(config, [
    'apiVersion: kubelet.config.k8s.io/v1beta1',
    'kind: KubeletConfiguration',
    'imageGCHighThresholdPercent: 1',
    'imageGCLowThresholdPercent: 0',
    // 0s would mean upstream's default of 2m (a zero duration takes the default).
    'imageMinimumGCAge: 1s',
    // Standalone: webhook authn/authz (a config file's defaults) need a client, so off, as upstream's standalone guide.
    'authentication: {webhook: {enabled: false}}',
    'authorization: {mode: AlwaysAllow}',
    '',
  ].join('\n'));
  kubelet = await startKubelet({ runtimeEndpoint: containerd.endpoint, workers: 1, workDir, extraArgs: ['--config', config, '--image-gc-period=2s'] });
});

after(async () => {
  await kubelet?.stop();
  cri?.close();
  // Put back the images the rest of the suite expects (setup.sh pulls what is missing).
  ensureContainerd('ignore');
});

async function imageTags(): Promise<string[]> {
  return (await cri.listImages({})).images.flatMap((image) => image.repo_tags);
}

test('over the high threshold: unused images are removed, the image a running pod uses is kept', async () => {
  assert.ok((await imageTags()).includes(busybox), 'busybox is there to begin with');
  // The pod runs the pause binary as its container: pause is in use twice, busybox not at all.
  writeFileSync(join(kubelet.manifestDir, 'keeper.yaml'), manifest('keeper', { containers: [{ name: 'pause', image: PAUSE_IMAGE, imagePullPolicy: 'IfNotPresent' }] }));
  await waitUntil(async () => isRunningAndReady(findPod(await kubelet.pods(), 'keeper')), TIMEOUT_MS, 'the pod using only the pause image Running');
  await waitUntil(async () => !(await imageTags()).includes(busybox), TIMEOUT_MS, 'the unused busybox image removed');
  assert.ok((await imageTags()).includes(PAUSE_IMAGE), 'the image in use stays');
  assert.ok(isRunningAndReady(findPod(await kubelet.pods(), 'keeper')), 'the pod still runs');
  assert.ok(
    kubelet.logs.some((line) => line.msg === 'Disk usage on image filesystem is over the high threshold, trying to free bytes down to the low threshold'),
    'the collector says why it removes images, in upstream\'s words',
  );
});
