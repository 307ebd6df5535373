import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admitPod, RUNTIME_OS, type AdmitResult, type NodeInfoForAdmission } from '../../../src/shared/admission/admit-pod.js';
import type { Pod } from '../../../src/shared/types.js';
import { API_ANNOTATIONS, container, node, pod, podRequesting, STATIC_ANNOTATIONS } from './fixtures.js';

const GI = 1024 ** 3;
const ADMIT: AdmitResult = { admit: true };

function reject(reason: string, message: string): AdmitResult {
  return { admit: false, reason, message };
}

function pods(count: number): Pod[] {
  return Array.from({ length: count }, () => pod());
}

function hostPortPod(hostPort: number, extra: { hostIP?: string; protocol?: string } = {}): Pod {
  return pod({ containers: [container('web', {}, { ports: [{ containerPort: 80, hostPort, ...extra }] })] });
}

const NODE_AFFINITY_MESSAGE = "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector";
const TAINT_MESSAGE = "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate";
const NO_EXECUTE_NODE = node({ taints: [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }] });
const SMALL_NODE = node({ allocatable: { cpuMillis: 1000, memoryBytes: GI, pods: 3, ephemeralStorageBytes: 2 * GI } });

interface Case {
  name: string;
  pod: Pod;
  active?: Pod[];
  node?: NodeInfoForAdmission;
  want: AdmitResult;
}

const cases: Case[] = [
  { name: 'an empty pod on an empty node', pod: pod(), want: ADMIT },
  // maxPods: exactly at capacity admits, one more rejects.
  { name: 'pods: the last free slot', pod: pod(), active: pods(2), node: SMALL_NODE, want: ADMIT },
  {
    name: 'pods: one over maxPods',
    pod: pod(),
    active: pods(3),
    node: SMALL_NODE,
    want: reject('OutOfpods', "Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3"),
  },
  // cpu in millicores.
  { name: 'cpu: exactly the rest', pod: podRequesting({ cpu: '400m' }), active: [podRequesting({ cpu: '600m' })], node: SMALL_NODE, want: ADMIT },
  {
    name: 'cpu: one millicore over',
    pod: podRequesting({ cpu: '401m' }),
    active: [podRequesting({ cpu: '600m' })],
    node: SMALL_NODE,
    want: reject('OutOfcpu', "Node didn't have enough resource: cpu, requested: 401, used: 600, capacity: 1000"),
  },
  { name: 'memory: exactly allocatable', pod: podRequesting({ memory: '1Gi' }), node: SMALL_NODE, want: ADMIT },
  {
    name: 'memory: one byte over',
    pod: podRequesting({ memory: String(GI + 1) }),
    node: SMALL_NODE,
    want: reject('OutOfmemory', `Node didn't have enough resource: memory, requested: ${GI + 1}, used: 0, capacity: ${GI}`),
  },
  { name: 'ephemeral-storage: exactly the rest', pod: podRequesting({ 'ephemeral-storage': '1Gi' }), active: [podRequesting({ 'ephemeral-storage': '1Gi' })], node: SMALL_NODE, want: ADMIT },
  {
    name: 'ephemeral-storage: over',
    pod: podRequesting({ 'ephemeral-storage': '1536Mi' }),
    active: [podRequesting({ 'ephemeral-storage': '1Gi' })],
    node: SMALL_NODE,
    want: reject('OutOfephemeral-storage', `Node didn't have enough resource: ephemeral-storage, requested: ${1.5 * GI}, used: ${GI}, capacity: ${2 * GI}`),
  },
  {
    name: 'ephemeral-storage: not checked when the node reports none',
    pod: podRequesting({ 'ephemeral-storage': '100Gi' }),
    node: node({ allocatable: { cpuMillis: 1000, memoryBytes: GI, pods: 10 } }),
    want: ADMIT,
  },
  {
    // upstream checks a resource only when the pod requests it
    name: 'a pod without cpu requests on an overcommitted node',
    pod: podRequesting({ memory: '1Mi' }),
    active: [podRequesting({ cpu: '2' })],
    node: SMALL_NODE,
    want: ADMIT,
  },
  {
    name: 'overhead counts against allocatable',
    pod: pod({ containers: [container('app', { cpu: '900m' })], overhead: { cpu: '101m' } }),
    node: SMALL_NODE,
    want: reject('OutOfcpu', "Node didn't have enough resource: cpu, requested: 1001, used: 0, capacity: 1000"),
  },
  {
    name: 'used includes the active pods\' init and sidecar requests',
    pod: podRequesting({ cpu: '1m' }),
    active: [pod({ initContainers: [container('init', { cpu: '1' })], containers: [container('app', { cpu: '100m' })] })],
    node: SMALL_NODE,
    want: reject('OutOfcpu', "Node didn't have enough resource: cpu, requested: 1, used: 1000, capacity: 1000"),
  },
  // Order: pods before cpu before memory before affinity.
  {
    name: 'pods is reported before cpu',
    pod: podRequesting({ cpu: '2' }),
    active: pods(3),
    node: SMALL_NODE,
    want: reject('OutOfpods', "Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3"),
  },
  {
    name: 'cpu is reported before memory',
    pod: podRequesting({ cpu: '2', memory: '2Gi' }),
    node: SMALL_NODE,
    want: reject('OutOfcpu', "Node didn't have enough resource: cpu, requested: 2000, used: 0, capacity: 1000"),
  },
  {
    name: 'resources are reported before node affinity',
    pod: pod({ nodeSelector: { zone: 'z9' }, containers: [container('app', { memory: '2Gi' })] }),
    node: SMALL_NODE,
    want: reject('OutOfmemory', `Node didn't have enough resource: memory, requested: ${2 * GI}, used: 0, capacity: ${GI}`),
  },
  { name: 'nodeSelector matches', pod: pod({ nodeSelector: { zone: 'z1' } }), want: ADMIT },
  { name: 'nodeSelector does not match', pod: pod({ nodeSelector: { zone: 'z9' } }), want: reject('NodeAffinity', NODE_AFFINITY_MESSAGE) },
  {
    name: 'required node affinity does not match',
    pod: pod({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['16'] }] }],
          },
        },
      },
    }),
    want: reject('NodeAffinity', NODE_AFFINITY_MESSAGE),
  },
  {
    name: 'node affinity is reported before the node name',
    pod: pod({ nodeName: 'node-b', nodeSelector: { zone: 'z9' } }),
    want: reject('NodeAffinity', NODE_AFFINITY_MESSAGE),
  },
  { name: 'nodeName is this node', pod: pod({ nodeName: 'node-a' }), want: ADMIT },
  {
    name: 'nodeName is another node',
    pod: pod({ nodeName: 'node-b' }),
    want: reject('NodeName', "Predicate NodeName failed: node(s) didn't match the requested node name"),
  },
  {
    name: 'host port taken by an active pod',
    pod: hostPortPod(8080),
    active: [hostPortPod(8080, { hostIP: '10.0.0.1' })],
    want: reject('NodePorts', "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports"),
  },
  { name: 'same host port, other protocol', pod: hostPortPod(8080, { protocol: 'UDP' }), active: [hostPortPod(8080)], want: ADMIT },
  { name: 'same host port, other specific IPs', pod: hostPortPod(8080, { hostIP: '10.0.0.2' }), active: [hostPortPod(8080, { hostIP: '10.0.0.1' })], want: ADMIT },
  { name: 'untolerated NoExecute taint', pod: pod(), node: NO_EXECUTE_NODE, want: reject('TaintToleration', TAINT_MESSAGE) },
  {
    name: 'tolerated NoExecute taint',
    pod: pod({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoExecute' }] }),
    node: NO_EXECUTE_NODE,
    want: ADMIT,
  },
  {
    name: 'NoSchedule and PreferNoSchedule taints are the scheduler\'s business',
    pod: pod(),
    node: node({ taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'PreferNoSchedule' }] }),
    want: ADMIT,
  },
  { name: 'static pods ignore taints', pod: pod({}, { annotations: STATIC_ANNOTATIONS }), node: NO_EXECUTE_NODE, want: ADMIT },
  { name: 'API pods with a source annotation still check taints', pod: pod({}, { annotations: API_ANNOTATIONS }), node: NO_EXECUTE_NODE, want: reject('TaintToleration', TAINT_MESSAGE) },
  {
    name: 'node name is reported before taints',
    pod: pod({ nodeName: 'node-b' }),
    node: NO_EXECUTE_NODE,
    want: reject('NodeName', "Predicate NodeName failed: node(s) didn't match the requested node name"),
  },
  // Critical pods: resource failures are left to preemption, other failures still count.
  { name: 'critical static pod over cpu and maxPods', pod: pod({ containers: [container('app', { cpu: '8' })] }, { annotations: STATIC_ANNOTATIONS }), active: pods(3), node: SMALL_NODE, want: ADMIT },
  { name: 'system-critical priority pod over memory', pod: pod({ priority: 2_000_001_000, containers: [container('app', { memory: '4Gi' })] }), node: SMALL_NODE, want: ADMIT },
  {
    name: 'critical pod over cpu with a bad node selector gets the selector reason',
    pod: pod({ nodeSelector: { zone: 'z9' }, containers: [container('app', { cpu: '8' })] }, { annotations: STATIC_ANNOTATIONS }),
    node: SMALL_NODE,
    want: reject('NodeAffinity', NODE_AFFINITY_MESSAGE),
  },
  {
    name: 'pod OS label differs from the node OS',
    pod: pod({}, { labels: { 'kubernetes.io/os': RUNTIME_OS === 'windows' ? 'linux' : 'windows' } }),
    want: reject('PodOSSelectorNodeLabelDoesNotMatch', "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label"),
  },
  {
    name: 'spec.os differs from the node OS',
    pod: pod({ os: { name: RUNTIME_OS === 'windows' ? 'linux' : 'windows' } }),
    want: reject('PodOSNotSupported', "Failed to admit pod as the OS field doesn't match node OS"),
  },
  { name: 'spec.os matches', pod: pod({ os: { name: RUNTIME_OS } }), want: ADMIT },
  {
    name: 'an unparsable quantity',
    pod: podRequesting({ cpu: 'lots' }),
    want: reject('UnexpectedAdmissionError', 'Unexpected error while computing the pod\'s resource requests: invalid resource quantity "lots"'),
  },
];

for (const c of cases) {
  test(`admitPod: ${c.name}`, () => {
    assert.deepEqual(admitPod(c.pod, c.active ?? [], c.node ?? node()), c.want);
  });
}

test('admitPod: the pod already in activePods (same UID) is not counted twice', () => {
  const candidate = podRequesting({ cpu: '1' });
  const again = structuredClone(candidate);
  assert.deepEqual(admitPod(candidate, [again, pod(), pod()], SMALL_NODE), ADMIT);
});

test('a pod replaced with a new spec is admitted by its new requests, not the ones computed for the old object', () => {
  const node = { name: 'n1', labels: {}, taints: [], allocatable: { cpuMillis: 1000, memoryBytes: 8 << 30, pods: 110 } };
  const withCpu = (cpu: string): Pod => ({
    metadata: { uid: 'grows', name: 'grows', namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu } } }] },
  });
  const small = withCpu('100m');
  const newcomer: Pod = { metadata: { uid: 'new', name: 'new', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '500m' } } }] } };
  assert.equal(admitPod(newcomer, [small], node).admit, true);
  assert.equal(admitPod(newcomer, [withCpu('600m')], node).admit, false, 'the updated pod leaves no room');
});

test('supplementalGroupsPolicy Strict is refused on a node whose runtime does not support it, after the OS checks (KEP 3619)', () => {
  const strict = pod({ securityContext: { supplementalGroupsPolicy: 'Strict' } });
  const merge = pod({ securityContext: { supplementalGroupsPolicy: 'Merge' } });
  const refused = reject('SupplementalGroupsPolicyNotSupported', 'SupplementalGroupsPolicy=Strict is not supported in this node');
  assert.deepEqual(admitPod(strict, [], node({ features: { supplementalGroupsPolicy: false } })), refused);
  assert.deepEqual(admitPod(strict, [], node()), refused, 'a node that reports no features supports none');
  assert.deepEqual(admitPod(strict, [], node({ features: { supplementalGroupsPolicy: true } })), ADMIT);
  assert.deepEqual(admitPod(merge, [], node({ features: { supplementalGroupsPolicy: false } })), ADMIT, 'Merge is what every runtime does');
  const otherOS = pod({ os: { name: RUNTIME_OS === 'linux' ? 'windows' : 'linux' }, securityContext: { supplementalGroupsPolicy: 'Strict' } });
  assert.equal((admitPod(otherOS, [], node()) as { reason: string }).reason, 'PodOSNotSupported', 'the OS checks come first');
});
