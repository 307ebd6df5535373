import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import { reconcileExistingNode, registrationBackoffMs } from '../../../../src/main/cluster/nodestatus/registration.js';

const INITIAL: V1Node = {
  metadata: {
    name: 'node-a',
    labels: {
      'kubernetes.io/hostname': 'node-a',
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'arm64',
      'beta.kubernetes.io/os': 'linux',
      'beta.kubernetes.io/arch': 'arm64',
      custom: 'new',
    },
    annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
  },
  status: {
    capacity: { cpu: '2', memory: '4Gi', 'hugepages-2Mi': '0' },
    allocatable: { cpu: '2', memory: '4Gi', 'hugepages-2Mi': '0' },
  },
};

test('an existing node is reconciled as tryRegisterWithAPIServer does', () => {
  const cases: Array<{ name: string; existing: V1Node; changed: boolean; check?: (node: V1Node) => void }> = [
    { name: 'identical', existing: structuredClone(INITIAL), changed: false },
    {
      name: 'arch label changed, user label kept, custom label not reconciled',
      existing: {
        ...structuredClone(INITIAL),
        metadata: {
          ...structuredClone(INITIAL.metadata),
          labels: { ...INITIAL.metadata!.labels, 'kubernetes.io/arch': 'amd64', custom: 'old', team: 'a' },
        },
      },
      changed: true,
      check: (node) => {
        assert.equal(node.metadata?.labels?.['kubernetes.io/arch'], 'arm64');
        assert.equal(node.metadata?.labels?.custom, 'old');
        assert.equal(node.metadata?.labels?.team, 'a');
      },
    },
    {
      name: 'attach annotation missing',
      existing: { ...structuredClone(INITIAL), metadata: { ...structuredClone(INITIAL.metadata), annotations: {} } },
      changed: true,
      check: (node) => assert.equal(node.metadata?.annotations?.['volumes.kubernetes.io/controller-managed-attach-detach'], 'true'),
    },
    {
      name: 'stale huge page size dropped',
      existing: {
        ...structuredClone(INITIAL),
        status: {
          capacity: { cpu: '2', memory: '4Gi', 'hugepages-2Mi': '0', 'hugepages-1Gi': '2Gi' },
          allocatable: { cpu: '2', memory: '4Gi', 'hugepages-2Mi': '0', 'hugepages-1Gi': '2Gi' },
        },
      },
      changed: true,
      check: (node) => assert.deepEqual(Object.keys(node.status?.capacity ?? {}), ['cpu', 'memory', 'hugepages-2Mi']),
    },
  ];
  for (const testCase of cases) {
    const before = structuredClone(testCase.existing);
    const { node, changed } = reconcileExistingNode(INITIAL, testCase.existing);
    assert.equal(changed, testCase.changed, testCase.name);
    assert.deepEqual(testCase.existing, before, `${testCase.name}: input untouched`);
    testCase.check?.(node);
  }
});

test('registration backoff doubles to 7 s', () => {
  assert.deepEqual([0, 1, 2, 5, 6, 7, 20].map(registrationBackoffMs), [100, 200, 400, 3200, 6400, 7000, 7000]);
});
