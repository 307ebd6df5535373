// subPath bind mounts across a restart of shardlet, on the simulated runtime (which
// mounts nothing itself; the kubelet's bind mount is real, so this needs root): a
// pod with a subPath runs, shardlet is killed, the pod is gone from its source and
// from a runtime that restarted empty, so no teardown ever comes for it. The next
// shardlet finds the mount in /proc/self/mountinfo and unmounts it in housekeeping,
// and the volume's content stays.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { mountsUnder, unmount } from '../../src/workers/volumes/mountinfo.js';
import { emptyDirPath } from '../../src/workers/volumes/volume-paths.js';
import { isRunningAndReady, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

const WAIT_MS = 60_000;

const workDir = mkdtempSync(join(tmpdir(), 'shardlet-subpath-restart-'));
const socketPath = join(workDir, 'sim.sock');
let sim: SimRuntime | undefined;
let kubelet: KubeletProcess | undefined;

after(async () => {
  await kubelet?.stop();
  await sim?.close();
  for (const entry of await mountsUnder(workDir)) await unmount(entry.mountPoint).catch(() => undefined);
  if ((await mountsUnder(workDir)).length === 0) rmSync(workDir, { recursive: true, force: true });
});

test('the subPath mount of a pod gone while shardlet was down is unmounted by the next one, and the volume keeps its content', async () => {
  sim = await startSimRuntime({ socketPath });
  const start = () => startKubelet({ runtimeEndpoint: `unix://${socketPath}`, workers: 1, workDir });
  kubelet = await start();
  const manifestFile = join(kubelet.manifestDir, 'sub.yaml');
  writeFileSync(manifestFile, manifest('sub', {
    containers: [{ name: 'app', image: 'busybox:1.35', command: ['sleep', '3600'], volumeMounts: [{ name: 'work', mountPath: '/logs', subPath: 'logs/app' }] }],
    volumes: [{ name: 'work', emptyDir: {} }],
  }));
  const pod = await waitUntil(async () => (await kubelet!.pods()).find((candidate) => isRunningAndReady(candidate)), WAIT_MS, 'pod Running');
  const uid = pod.metadata!.uid!;
  const subpathsDir = join(kubelet.rootDir, 'pods', uid, 'volume-subpaths');
  const target = join(subpathsDir, 'work', 'app', '0');
  const subdirectory = join(emptyDirPath(kubelet.rootDir, uid, 'work'), 'logs', 'app');
  assert.deepEqual((await mountsUnder(subpathsDir)).map((entry) => entry.mountPoint), [target]);
  assert.equal(statSync(target).ino, statSync(subdirectory).ino, 'the runtime was handed a bind mount of the subPath');
  writeFileSync(join(subdirectory, 'written-by-app'), 'keep');

  // shardlet dies, and while it is down the pod leaves its source and the runtime restarts empty.
  await kubelet.kill9();
  rmSync(manifestFile);
  await sim.close();
  sim = await startSimRuntime({ socketPath });
  kubelet = await start();
  await waitUntil(async () => (await mountsUnder(subpathsDir)).length === 0, WAIT_MS, 'the leftover subPath mount unmounted');
  // The directories go after the unmount, in the same pass: wait for that pass to finish.
  await waitUntil(async () => !existsSync(subpathsDir), WAIT_MS, 'its directories removed');
  assert.equal(readFileSync(join(subdirectory, 'written-by-app'), 'utf8'), 'keep');
});
