// /stats/summary's volume entries through the real process: shardlet on the
// simulated runtime runs a pod with an emptyDir and a hostPath volume; what a
// container would write into the emptyDir (written here on the host side, with
// symlinks out of the volume a hostile container could plant) shows in the pod's
// volume[] and ephemeral storage within volumeStatsAggPeriod, read from :10250 as
// metrics-server reads it.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Summary } from '../../src/main/stats/summary-types.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { kubeletApiGet, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

const TIMEOUT_MS = 60_000;
const WRITTEN_BYTES = 256 * 1024;
const OUTSIDE_BYTES = 8 * 1024 * 1024;

let sim: SimRuntime;
let kubelet: KubeletProcess;
let hostDir: string;


before(async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-volstats-e2e-'));
  hostDir = join(workDir, 'host');
  mkdirSync(hostDir);
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 1, workDir, extraArgs: ['--volume-stats-agg-period=1s'] });
  writeFileSync(
    join(kubelet.manifestDir, 'vols.yaml'),
    manifest('vols', {
      containers: [{ name: 'main', image: 'busybox:1.35', command: ['sleep', 'infinity'], volumeMounts: [{ name: 'cache', mountPath: '/cache' }, { name: 'host', mountPath: '/host' }] }],
      volumes: [{ name: 'cache', emptyDir: {} }, { name: 'host', hostPath: { path: hostDir } }],
    }),
  );
});

after(async () => {
  await kubelet?.stop();
  await sim?.close();
});

test('an emptyDir’s usage is in /stats/summary’s volume[] and the pod’s ephemeral storage; symlinks out of it are not followed; hostPath is not the pod’s', async () => {
  const pod = await waitUntil(async () => (await kubelet.pods()).find((p) => p.metadata?.name?.startsWith('vols') && p.status?.phase === 'Running'), TIMEOUT_MS, 'pod vols running');
  const uid = pod.metadata!.uid!;
  const volume = join(kubelet.rootDir, 'pods', uid, 'volumes', 'kubernetes.io~empty-dir', 'cache');
  writeFileSync(join(volume, 'data'), Buffer.alloc(WRITTEN_BYTES, 1));
  writeFileSync(join(hostDir, 'big'), Buffer.alloc(OUTSIDE_BYTES, 1));
  symlinkSync(join(hostDir, 'big'), join(volume, 'escape'));
  symlinkSync('/', join(volume, 'host-root'));

  const summary = await waitUntil(async () => {
    const reply = await kubeletApiGet(kubelet, '/stats/summary');
    if (reply.status !== 200) return false;
    const parsed = JSON.parse(reply.body) as Summary;
    const cache = parsed.pods.find((p) => p.podRef.uid === uid)?.volume?.find((v) => v.name === 'cache');
    return (cache?.usedBytes ?? 0) >= WRITTEN_BYTES ? parsed : false;
  }, TIMEOUT_MS, 'the emptyDir’s usage in /stats/summary');
  const podStats = summary.pods.find((p) => p.podRef.uid === uid)!;
  assert.deepEqual(podStats.volume?.map((v) => v.name), ['cache'], 'the hostPath volume is the host’s, not the pod’s');
  const cache = podStats.volume![0];
  assert.ok(cache.usedBytes! < OUTSIDE_BYTES, `the file behind the symlink is not counted (${cache.usedBytes} bytes)`);
  assert.ok(cache.inodesUsed! >= 4, 'the directory, the file and both links');
  assert.ok(cache.capacityBytes! > 0 && cache.inodes! > 0 && cache.availableBytes !== undefined && cache.inodesFree !== undefined);
  assert.ok(podStats['ephemeral-storage']!.usedBytes! >= WRITTEN_BYTES, 'a local ephemeral volume counts in the pod’s ephemeral storage');
  const cpuAndMemory = JSON.parse((await kubeletApiGet(kubelet, '/stats/summary?only_cpu_and_memory=true')).body) as Summary;
  assert.equal(cpuAndMemory.pods.find((p) => p.podRef.uid === uid)?.volume, undefined, 'metrics-server’s view has no filesystems');
});
