// Probe workers live only in the shard that owns the pod: a shard thread that dies
// takes them along, and its replacement gets them back from the resync of its
// pods. Runs the kubelet in this process (fault injection ends the shard thread) on
// the simulated runtime, with a hostNetwork pod whose readiness probe reaches a
// server this test runs.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { Kubelet } from '../../src/main/kubelet.js';
import { parseFlags } from '../../src/main/options/flags.js';
import { mergeFlags } from '../../src/main/options/kubelet-config.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { waitUntil } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

let sim: SimRuntime;
let kubelet: Kubelet;
let server: http.Server;
let probesServed = 0;

const podUid = () => kubelet.podManager.pods().find((pod) => pod.metadata?.name === 'probed-loss-node')?.metadata?.uid ?? '';
const ready = () => kubelet.statuses.get(podUid())?.conditions?.find((c) => c.type === 'Ready')?.status;

before(async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-probes-loss-'));
  const manifestDir = join(workDir, 'manifests');
  mkdirSync(manifestDir);
  server = http.createServer((_req, res) => {
    probesServed++;
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  writeFileSync(
    join(manifestDir, 'probed.yaml'),
    manifest('probed', {
      hostNetwork: true,
      containers: [{ name: 'main', image: 'busybox:1.35', command: ['sleep', 'infinity'], readinessProbe: { httpGet: { path: '/ready', port }, periodSeconds: 1 } }],
    }),
  );
  const flags = parseFlags([
    `--container-runtime-endpoint=unix://${join(workDir, 'sim.sock')}`,
    `--pod-manifest-path=${manifestDir}`,
    `--root-dir=${join(workDir, 'root')}`,
    '--read-only-port=0',
    '--workers=2',
    '--hostname-override=loss-node',
    '--node-ip=127.0.0.1',
    '--file-check-frequency=1s',
    '--fault-injection',
  ]);
  kubelet = new Kubelet(mergeFlags(undefined, flags), pino({ level: 'warn' }));
  await kubelet.start();
});

after(async () => {
  await kubelet.stop();
  await sim.close();
  server.close();
});

test('a replaced shard probes its pods again, from the resync, without restarting them', async () => {
  await waitUntil(async () => ready() === 'True', 60_000, 'the pod Ready after its readiness probe passed');
  const restartsBefore = kubelet.statuses.get(podUid())?.containerStatuses?.[0].restartCount;
  await kubelet.crashShard(0);
  await kubelet.crashShard(1);
  const servedAfterLoss = probesServed;
  await waitUntil(async () => probesServed >= servedAfterLoss + 2, 30_000, 'probes from the replacement shard');
  await waitUntil(async () => ready() === 'True', 30_000, 'Ready again');
  assert.equal(kubelet.statuses.get(podUid())?.containerStatuses?.[0].restartCount, restartsBefore, 'no restart');
});
