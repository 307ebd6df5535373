import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  hugePageResourceName,
  nodeAllocatableReservation,
  nodeResources,
  parseThresholdPercentage,
  type ResourceList,
} from '../../../src/main/nodestatus/capacity.js';
import type { MachineInfo } from '../../../src/main/nodestatus/machine-info.js';

const MACHINE: MachineInfo = {
  numCores: 4,
  memoryCapacityBytes: 16331712 * 1024,
  ephemeralStorageCapacityBytes: 66053021 * 4096,
  hugePages: [
    { pageSizeKiB: 2048, numPages: 0 },
    { pageSizeKiB: 1048576, numPages: 0 },
  ],
  machineID: 'm',
  systemUUID: '',
  bootID: 'b',
  kernelVersion: '6.1.0',
  osImage: 'Debian GNU/Linux 12 (bookworm)',
  operatingSystem: 'linux',
  architecture: 'amd64',
};

const NO_RESERVATION = { maxPods: 110, podsPerCore: 0, systemReserved: {}, kubeReserved: {}, evictionHard: {} };

const BASE_CAPACITY: ResourceList = {
  cpu: '4',
  memory: '16331712Ki',
  'hugepages-2Mi': '0',
  'hugepages-1Gi': '0',
  'ephemeral-storage': '264212084Ki',
  pods: '110',
};

test('capacity and allocatable as upstream computes them', () => {
  const cases: Array<{
    name: string;
    machine?: Partial<MachineInfo>;
    options?: Partial<typeof NO_RESERVATION> & Record<string, unknown>;
    capacity?: ResourceList;
    allocatable: ResourceList;
  }> = [
    { name: 'nothing reserved', allocatable: BASE_CAPACITY },
    {
      name: 'system, kube and hard eviction reservations',
      options: {
        systemReserved: { cpu: '500m', memory: '1Gi' },
        kubeReserved: { cpu: '100m', memory: '256Mi', pid: '1000' },
        evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%', 'imagefs.available': '15%' },
      },
      allocatable: {
        ...BASE_CAPACITY,
        cpu: '3400m',
        memory: '14918592Ki',
        // 10% as a float32 of 270553174016 bytes, truncated: 27055317804.
        'ephemeral-storage': '243497856212',
      },
    },
    {
      name: 'memory.available as a percentage',
      options: { evictionHard: { 'memory.available': '5%' } },
      machine: { memoryCapacityBytes: 1024 * 1024 ** 2 },
      capacity: { ...BASE_CAPACITY, memory: '1Gi' },
      allocatable: { ...BASE_CAPACITY, memory: '1020054732' },
    },
    {
      name: 'huge pages come out of allocatable memory',
      machine: { hugePages: [{ pageSizeKiB: 2048, numPages: 512 }] },
      capacity: {
        cpu: '4',
        memory: '16331712Ki',
        'hugepages-2Mi': '1Gi',
        'ephemeral-storage': '264212084Ki',
        pods: '110',
      },
      allocatable: {
        cpu: '4',
        memory: '15283136Ki',
        'hugepages-2Mi': '1Gi',
        'ephemeral-storage': '264212084Ki',
        pods: '110',
      },
    },
    {
      name: 'podsPerCore caps pods',
      options: { podsPerCore: 10 },
      capacity: { ...BASE_CAPACITY, pods: '40' },
      allocatable: { ...BASE_CAPACITY, pods: '40' },
    },
    {
      name: 'reservation above capacity clamps at zero',
      options: { systemReserved: { cpu: '8' } },
      allocatable: { ...BASE_CAPACITY, cpu: '0' },
    },
    {
      name: 'fractional cores reserved',
      options: { kubeReserved: { cpu: '0.25' } },
      allocatable: { ...BASE_CAPACITY, cpu: '3750m' },
    },
  ];
  for (const testCase of cases) {
    const machine = { ...MACHINE, ...testCase.machine };
    const options = { ...NO_RESERVATION, ...testCase.options } as typeof NO_RESERVATION;
    const { capacity, allocatable } = nodeResources(machine, options);
    assert.deepEqual(capacity, testCase.capacity ?? BASE_CAPACITY, `${testCase.name}: capacity`);
    assert.deepEqual(allocatable, testCase.allocatable, `${testCase.name}: allocatable`);
  }
});

test('reservation lists only reserved resources present in capacity', () => {
  const reservation = nodeAllocatableReservation(BASE_CAPACITY, {
    systemReserved: { memory: '100Mi', pid: '100' },
    kubeReserved: {},
    evictionHard: { 'memory.available': '100Mi', 'pid.available': '10%' },
  });
  assert.deepEqual(reservation, { memory: 200 * 1024 * 1024 });
});

test('threshold percentages and huge page names', () => {
  assert.equal(parseThresholdPercentage('10%'), Math.fround(0.1));
  assert.equal(parseThresholdPercentage('100Mi'), undefined);
  assert.equal(hugePageResourceName(2048), 'hugepages-2Mi');
  assert.equal(hugePageResourceName(1048576), 'hugepages-1Gi');
  assert.equal(hugePageResourceName(64), 'hugepages-64Ki');
});
