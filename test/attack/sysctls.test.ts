// Attack: a pod sets sysctls the node must not let it set: one that is not
// namespaced at all (it would change the whole node), a namespaced one the operator
// did not allow, or a safe net sysctl in a host-network pod (whose net namespace is
// the node's). Upstream refuses each at admission (phase Failed, reason
// SysctlForbidden) before a sandbox exists. A real shardlet process on the simulated
// runtime over its socket: admission is the kubelet's and runs before any CRI call.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CriClient } from '../../src/shared/cri/client.js';
import type { Pod } from '../../src/shared/types.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { findPod, isRunningAndReady, kubeletServerPortArgs, signalGroup, spawnShardlet, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from '../e2e/scenarios.js';

const POD_TIMEOUT_MS = 60_000;
const IMAGE = 'busybox:1.35';

describe('attack: sysctls a pod must not set', () => {
  let dir: string;
  let sim: SimRuntime;
  let kubelet: KubeletProcess;
  let cri: CriClient;

  const write = (name: string, spec: Pod['spec']) => writeFileSync(join(kubelet.manifestDir, `${name}.yaml`), manifest(name, spec));
  const podSpec = (sysctls: Array<{ name: string; value: string }>, extra: Partial<NonNullable<Pod['spec']>> = {}): Pod['spec'] => ({
    terminationGracePeriodSeconds: 1,
    securityContext: { sysctls },
    containers: [{ name: 'app', image: IMAGE, command: ['sh', '-c', 'sleep 3600'] }],
    ...extra,
  });
  const settled = (prefix: string) =>
    waitUntil(async () => {
      const pod = findPod(await kubelet.pods(), prefix);
      return pod?.status?.phase === 'Failed' || isRunningAndReady(pod) ? pod : false;
    }, POD_TIMEOUT_MS, `${prefix}: refused or Running`);
  const sandboxesOf = async (pod: Pod) =>
    (await cri.listPodSandbox({ filter: { label_selector: { 'io.kubernetes.pod.uid': pod.metadata!.uid! } } })).items;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shardlet-attack-sysctls-'));
    sim = await startSimRuntime({ socketPath: join(dir, 'sim.sock'), latency: { scale: 0 } });
    kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 2, workDir: join(dir, 'kubelet'), extraArgs: ['--allowed-unsafe-sysctls=net.core.somaxconn,kernel.msg*'] });
    cri = new CriClient(sim.endpoint, { timeoutMs: 30_000 });
  });

  after(async () => {
    rmSync(kubelet.manifestDir, { recursive: true, force: true });
    await waitUntil(async () => (await cri.listPodSandbox({})).items.length === 0, 30_000, 'sandboxes removed').catch(() => undefined);
    await kubelet.stop();
    cri.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const refusals: Array<[string, Pod['spec'], RegExp]> = [
    ['core-pattern', podSpec([{ name: 'kernel.core_pattern', value: '|/tmp/x' }]), /^forbidden sysctl: "kernel\.core_pattern" not allowlisted$/],
    ['overcommit', podSpec([{ name: 'vm/overcommit_memory', value: '1' }]), /"vm\.overcommit_memory" not allowlisted/],
    ['ip-forward', podSpec([{ name: 'net.ipv4.ip_forward', value: '1' }]), /"net\.ipv4\.ip_forward" not allowlisted/],
    [
      'one-bad-among-safe',
      podSpec([
        { name: 'kernel.shm_rmid_forced', value: '1' },
        { name: 'kernel.panic', value: '0' },
      ]),
      /"kernel\.panic" not allowlisted/,
    ],
    [
      'host-net',
      podSpec([{ name: 'net.ipv4.ip_unprivileged_port_start', value: '0' }], { hostNetwork: true }),
      /"net\.ipv4\.ip_unprivileged_port_start" not allowed with host Net enabled/,
    ],
    ['host-ipc', podSpec([{ name: 'kernel.msgmax', value: '65536' }], { hostIPC: true }), /"kernel\.msgmax" not allowed with host IPC enabled/],
    ['not-allowed-net', podSpec([{ name: 'net.core.rmem_max', value: '1' }]), /"net\.core\.rmem_max" not allowlisted/],
  ];

  for (const [name, spec, message] of refusals) {
    test(`${name}: refused at admission with SysctlForbidden, and no sandbox is made`, async () => {
      write(name, spec);
      const pod = await settled(name);
      assert.equal(pod.status?.phase, 'Failed', `${name} must not run`);
      assert.equal(pod.status?.reason, 'SysctlForbidden');
      assert.match(pod.status?.message ?? '', message);
      assert.deepEqual(await sandboxesOf(pod), [], 'nothing reached the runtime');
    });
  }

  test('safe sysctls, and the unsafe ones the operator allowed, run', async () => {
    write('safe', podSpec([{ name: 'kernel.shm_rmid_forced', value: '1' }, { name: 'net/ipv4/ip_local_port_range', value: '1024 65000' }]));
    write('allowed', podSpec([{ name: 'net.core.somaxconn', value: '1024' }, { name: 'kernel.msgmnb', value: '65536' }]));
    for (const name of ['safe', 'allowed']) {
      const pod = await settled(name);
      assert.ok(isRunningAndReady(pod), `${name}: ${pod.status?.reason ?? ''} ${pod.status?.message ?? ''}`);
      assert.equal((await sandboxesOf(pod)).length, 1);
    }
  });

  test('an allowedUnsafeSysctls entry that is not namespaced stops the start, naming the flag', async () => {
    const args = [`--container-runtime-endpoint=${sim.endpoint}`, `--root-dir=${join(dir, 'refused')}`, '--read-only-port=0', '--allowed-unsafe-sysctls=kernel.*'];
    const { child, stderr } = spawnShardlet([...(await kubeletServerPortArgs(args)), ...args]);
    try {
      const exited = await waitUntil(async () => (child.exitCode === null ? undefined : { code: child.exitCode }), POD_TIMEOUT_MS, 'shardlet to exit');
      assert.notEqual(exited.code, 0);
      assert.match(stderr(), /--allowed-unsafe-sysctls: the sysctls "kernel\." are not known to be namespaced/);
    } finally {
      await signalGroup(child, 'SIGKILL');
    }
  });
});
