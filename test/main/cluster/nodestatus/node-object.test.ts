import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeFlags } from '../../../../src/main/options/kubelet-config.js';
import type { KubeletOptions } from '../../../../src/main/options/kubelet-options.js';
import type { MachineInfo } from '../../../../src/main/nodestatus/machine-info.js';
import {
  containerRuntimeVersion,
  initialNode,
  nodeAddresses,
  normalizeRuntimeVersion,
} from '../../../../src/main/cluster/nodestatus/node-object.js';
import { HEALTHY } from './fixtures.js';

const MACHINE: MachineInfo = {
  numCores: 2,
  memoryCapacityBytes: 4 * 1024 ** 3,
  ephemeralStorageCapacityBytes: 100 * 1024 ** 3,
  hugePages: [],
  machineID: 'machine-1',
  systemUUID: 'uuid-1',
  bootID: 'boot-1',
  kernelVersion: '6.1.0-18-amd64',
  osImage: 'Debian GNU/Linux 12 (bookworm)',
  operatingSystem: 'linux',
  architecture: 'amd64',
};

function options(overrides: Partial<KubeletOptions> = {}): KubeletOptions {
  return { ...mergeFlags(undefined, {}, { hostname: () => 'node-a' }), ...overrides };
}

test('the runtime version as the kubelet prints it', () => {
  const cases: Array<[string, string | undefined]> = [
    ['v1.6.20', '1.6.20'],
    ['1.6.20', '1.6.20'],
    ['1.7.0-rc.1', '1.7.0-rc.1'],
    ['v2.0.0+unknown', '2.0.0+unknown'],
    ['0.1.0', '0.1.0'],
    ['1.2.3.4-extra', '1.2.3.4'],
    ['1.2', '1.2'],
    ['1.2.3 junk!', '1.2.3'],
    ['latest', undefined],
    ['7', undefined],
  ];
  for (const [raw, want] of cases) assert.equal(normalizeRuntimeVersion(raw), want, raw);
  assert.equal(containerRuntimeVersion({ runtimeName: 'containerd', runtimeVersion: 'v1.6.20' }), 'containerd://1.6.20');
  assert.equal(containerRuntimeVersion({ runtimeName: 'sim', runtimeVersion: 'dev' }), 'sim://Unknown');
});

test('addresses: node IPs, hostname as IP, detected IP', () => {
  const detect = (): string => '10.0.0.9';
  const cases: Array<{ name: string; overrides: Partial<KubeletOptions>; want: Array<[string, string]> }> = [
    {
      name: '--node-ip',
      overrides: { nodeIP: '192.168.1.5', nodeIPs: ['192.168.1.5'] },
      want: [['InternalIP', '192.168.1.5'], ['Hostname', 'node-a']],
    },
    {
      name: 'dual stack',
      overrides: { nodeIP: '192.168.1.5', nodeIPs: ['192.168.1.5', 'fd00::5'] },
      want: [['InternalIP', '192.168.1.5'], ['InternalIP', 'fd00::5'], ['Hostname', 'node-a']],
    },
    { name: 'detected', overrides: {}, want: [['InternalIP', '10.0.0.9'], ['Hostname', 'node-a']] },
    {
      name: 'hostname is an IP',
      overrides: { nodeName: '172.16.0.3' },
      want: [['InternalIP', '172.16.0.3'], ['Hostname', '172.16.0.3']],
    },
  ];
  for (const testCase of cases) {
    const got = nodeAddresses(options(testCase.overrides), detect).map((a) => [a.type, a.address]);
    assert.deepEqual(got, testCase.want, testCase.name);
  }
});

test('initialNode carries labels, taints, spec and status as upstream', () => {
  const node = initialNode(
    options({
      nodeIP: '192.168.1.5',
      nodeIPs: ['192.168.1.5'],
      nodeLabels: { 'node-role.kubernetes.io/worker': '', 'kubernetes.io/hostname': 'override' },
      registerWithTaints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
      podCIDR: '10.244.1.0/24',
      providerID: 'kind://docker/kind/node-a',
    }),
    MACHINE,
    { runtimeName: 'containerd', runtimeVersion: 'v1.6.20' },
    'v1.32.0',
    { kubeletPort: 10250 },
  );
  assert.equal(node.metadata?.name, 'node-a');
  assert.deepEqual(node.metadata?.labels, {
    'kubernetes.io/hostname': 'override',
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'beta.kubernetes.io/arch': 'amd64',
    'node-role.kubernetes.io/worker': '',
  });
  assert.deepEqual(node.spec, {
    taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
    podCIDR: '10.244.1.0/24',
    podCIDRs: ['10.244.1.0/24'],
    providerID: 'kind://docker/kind/node-a',
  });
  assert.deepEqual(node.status?.capacity, {
    cpu: '2',
    memory: '4Gi',
    'ephemeral-storage': '100Gi',
    pods: '110',
  });
  assert.deepEqual(node.status?.nodeInfo, {
    machineID: 'machine-1',
    systemUUID: 'uuid-1',
    bootID: 'boot-1',
    kernelVersion: '6.1.0-18-amd64',
    osImage: 'Debian GNU/Linux 12 (bookworm)',
    containerRuntimeVersion: 'containerd://1.6.20',
    kubeletVersion: 'v1.32.0',
    kubeProxyVersion: '',
    operatingSystem: 'linux',
    architecture: 'amd64',
  });
  assert.deepEqual(node.status?.daemonEndpoints, { kubeletEndpoint: { Port: 10250 } });
  assert.equal(node.status?.conditions, undefined);
});

test('initialNode without taints or CIDR leaves the spec empty, conditions when health is given', () => {
  const node = initialNode(options({ nodeIPs: ['10.1.1.1'] }), MACHINE, { runtimeName: 'containerd', runtimeVersion: '1.7.0' }, 'v1.32.0', {
    health: HEALTHY,
    now: new Date('2024-05-01T10:00:00Z'),
  });
  assert.deepEqual(node.spec, {});
  assert.deepEqual(node.status?.conditions?.map((c) => `${c.type}=${c.status}`), [
    'MemoryPressure=False',
    'DiskPressure=False',
    'PIDPressure=False',
    'Ready=True',
  ]);
});
