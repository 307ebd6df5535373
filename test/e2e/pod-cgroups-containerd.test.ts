// Pod cgroups on real containerd: each pod gets its own cgroup in its QoS tier,
// with the limits its containers declare, the runtime puts the pod's processes in
// it (through the sandbox's cgroup_parent), and it goes when the pod goes. Read
// straight off the host's cgroup filesystem (v1, hybrid or v2 alike).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cgroupDirectory, detectCgroupLayout, type CgroupLayout } from '../../src/shared/cm/cgroup-fs.js';
import { ensureContainerd } from '../../src/tools/containerd-env.js';
import type { Pod } from '../../src/shared/types.js';
import { findPod, isRunningAndReady, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

const POD_TIMEOUT_MS = 90_000;
const MiB = 1024 * 1024;

let kubelet: KubeletProcess;
let layout: CgroupLayout;
let image: string;

before(async () => {
  const containerd = ensureContainerd();
  image = containerd.busyboxImage;
  layout = await detectCgroupLayout();
  kubelet = await startKubelet({ runtimeEndpoint: containerd.endpoint, workers: 1 });
});

after(async () => {
  await kubelet?.stop();
});

function sleeper(name: string, resources: Record<string, Record<string, string>>): string {
  return manifest(name, { containers: [{ name: 'main', image, command: ['sleep', '3600'], resources }] });
}

function read(controller: string, path: string, v1File: string, v2File: string): string {
  const dir = cgroupDirectory(layout, controller, path)!;
  return readFileSync(join(dir, layout.version === 'v2' ? v2File : v1File), 'utf8').trim();
}

/** Every pid in the cgroup and the cgroups below it. */
function processesUnder(dir: string): number[] {
  const own = readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  const below = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  return [...own, ...below.flatMap((entry) => processesUnder(join(dir, entry.name)))];
}

test('a pod with limits gets its own cgroup under its QoS tier, with the limits set and its processes in it; the cgroup goes with the pod', async () => {
  writeFileSync(join(kubelet.manifestDir, 'burst.yaml'), sleeper('burst', { requests: { cpu: '100m', memory: '16Mi' }, limits: { cpu: '250m', memory: '48Mi' } }));
  writeFileSync(join(kubelet.manifestDir, 'guar.yaml'), sleeper('guar', { limits: { cpu: '200m', memory: '32Mi' } }));
  const running = (await waitUntil(async () => {
    const pods = await kubelet.pods();
    const pair = [findPod(pods, 'burst'), findPod(pods, 'guar')];
    return pair.every((pod) => isRunningAndReady(pod)) ? (pair as Pod[]) : false;
  }, POD_TIMEOUT_MS, 'both pods Running')) as Pod[];
  const [burst, guar] = running as [Pod, Pod];
  t_assertQos(burst, 'Burstable');
  t_assertQos(guar, 'Guaranteed');

  const burstPath = `/kubepods/burstable/pod${burst.metadata!.uid}`;
  const guarPath = `/kubepods/pod${guar.metadata!.uid}`;
  assert.equal(read('memory', burstPath, 'memory.limit_in_bytes', 'memory.max'), String(48 * MiB));
  assert.equal(read('memory', guarPath, 'memory.limit_in_bytes', 'memory.max'), String(32 * MiB));
  if (layout.version === 'v1') {
    assert.equal(read('cpu', burstPath, 'cpu.cfs_quota_us', ''), '25000');
    assert.equal(read('cpu', burstPath, 'cpu.shares', ''), '102');
  } else {
    assert.equal(read('cpu', burstPath, '', 'cpu.max'), '25000 100000');
  }
  // The runtime nested the sandbox and the container below the pod's cgroup.
  const pids = processesUnder(cgroupDirectory(layout, 'memory', burstPath)!);
  assert.ok(pids.length >= 2, `the pause and sleep processes run in the pod's cgroup (found ${pids.length})`);

  rmSync(join(kubelet.manifestDir, 'burst.yaml'));
  rmSync(join(kubelet.manifestDir, 'guar.yaml'));
  await waitUntil(
    async () => !existsSync(cgroupDirectory(layout, 'memory', burstPath)!) && !existsSync(cgroupDirectory(layout, 'memory', guarPath)!),
    POD_TIMEOUT_MS,
    'pod cgroups removed with their pods',
  );
});

function t_assertQos(pod: Pod, qos: string): void {
  assert.equal(pod.status?.qosClass, qos, `${pod.metadata?.name} is ${qos}`);
}
