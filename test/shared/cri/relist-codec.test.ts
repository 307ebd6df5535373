import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCriServices } from '../../../src/shared/cri/load-proto.js';
import { decodeContainerList, decodeSandboxList } from '../../../src/shared/cri/relist-codec.js';

const services = loadCriServices();
const podLabels = (uid: string) => ({ 'io.kubernetes.pod.uid': uid, 'io.kubernetes.pod.name': `pod-${uid}`, 'io.kubernetes.pod.namespace': 'ns', extra: 'x' });
const bigAnnotations = { 'io.kubernetes.container.hash': 'abc', 'kubectl.kubernetes.io/last-applied-configuration': 'y'.repeat(4096) };

test('sandboxes decode to what the relist needs, with the metadata as fallback for labels', () => {
  const reply = services.runtime.ListPodSandbox.responseSerialize({
    items: [
      { id: 's1', metadata: { name: 'm', uid: 'meta-uid', namespace: 'm-ns', attempt: 2 }, state: 'SANDBOX_READY', created_at: 1e18, labels: podLabels('u1'), annotations: bigAnnotations },
      { id: 's2', metadata: { name: 'orphan', uid: 'u2', namespace: 'kube-system' }, state: 'SANDBOX_NOTREADY', labels: {}, annotations: {} },
    ],
  });
  assert.deepEqual(decodeSandboxList(reply), [
    { id: 's1', ready: true, podUid: 'u1', podName: 'pod-u1', podNamespace: 'ns' },
    { id: 's2', ready: false, podUid: 'u2', podName: 'orphan', podNamespace: 'kube-system' },
  ]);
});

test('containers decode with every state and their pod UID; annotations and the rest are skipped', () => {
  const states = ['CONTAINER_CREATED', 'CONTAINER_RUNNING', 'CONTAINER_EXITED', 'CONTAINER_UNKNOWN'] as const;
  const reply = services.runtime.ListContainers.responseSerialize({
    containers: states.map((state, i) => ({
      id: `c${i}`,
      pod_sandbox_id: 's1',
      metadata: { name: 'app', attempt: i },
      image: { image: 'busybox' },
      image_ref: 'sha256:1',
      state,
      created_at: 1e18,
      labels: { ...podLabels('u1'), 'io.kubernetes.container.name': 'app' },
      annotations: bigAnnotations,
    })),
  });
  assert.deepEqual(decodeContainerList(reply), [
    { id: 'c0', state: 'created', podUid: 'u1' },
    { id: 'c1', state: 'running', podUid: 'u1' },
    { id: 'c2', state: 'exited', podUid: 'u1' },
    { id: 'c3', state: 'unknown', podUid: 'u1' },
  ]);
});

test('empty replies decode to empty lists', () => {
  assert.deepEqual(decodeSandboxList(services.runtime.ListPodSandbox.responseSerialize({ items: [] })), []);
  assert.deepEqual(decodeContainerList(services.runtime.ListContainers.responseSerialize({ containers: [] })), []);
});
