// The PLEG's lean decoding of container events against what the generic decoder
// of the same bytes says: the object, what happened and the pod, whatever else the
// event carries.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCriServices } from '../../../src/shared/cri/load-proto.js';
import type * as cri from '../../../src/shared/cri/types.js';
import { decodeContainerEvent } from '../../../src/shared/pleg/container-event-codec.js';

const services = loadCriServices();
const encode = (event: cri.ContainerEventResponse) => services.runtime.GetContainerEvents.responseSerialize(event);
const bigAnnotations = { 'kubectl.kubernetes.io/last-applied-configuration': 'y'.repeat(4096) };

function sandboxStatus(labels: Record<string, string>, uid = 'meta-uid'): cri.PodSandboxStatus {
  return {
    id: 'sandbox-1',
    metadata: { name: 'web', uid, namespace: 'default', attempt: 1 },
    state: 'SANDBOX_READY',
    created_at: 1e18,
    network: { ip: '10.88.0.2', additional_ips: [] },
    labels,
    annotations: bigAnnotations,
  };
}

const cases: Array<{ name: string; event: cri.ContainerEventResponse; expected: ReturnType<typeof decodeContainerEvent> }> = [
  {
    name: 'the pod UID label wins over the metadata; the containers\' statuses are skipped',
    event: {
      container_id: 'c1',
      container_event_type: 'CONTAINER_STOPPED_EVENT',
      created_at: 1.7e18,
      pod_sandbox_status: sandboxStatus({ 'io.kubernetes.pod.name': 'web', 'io.kubernetes.pod.uid': 'label-uid' }),
      containers_statuses: [{ id: 'c1', state: 'CONTAINER_EXITED', exit_code: 1, labels: { 'io.kubernetes.pod.uid': 'other' }, annotations: bigAnnotations }],
    },
    expected: { id: 'c1', type: 'CONTAINER_STOPPED_EVENT', podUid: 'label-uid' },
  },
  {
    name: 'without the label, the sandbox metadata names the pod',
    event: { container_id: 'sandbox-1', container_event_type: 'CONTAINER_STARTED_EVENT', pod_sandbox_status: sandboxStatus({}, 'only-meta') },
    expected: { id: 'sandbox-1', type: 'CONTAINER_STARTED_EVENT', podUid: 'only-meta' },
  },
  {
    name: 'CREATED is the enum\'s zero value, absent on the wire',
    event: { container_id: 'c2', container_event_type: 'CONTAINER_CREATED_EVENT', pod_sandbox_status: sandboxStatus({ 'io.kubernetes.pod.uid': 'u' }) },
    expected: { id: 'c2', type: 'CONTAINER_CREATED_EVENT', podUid: 'u' },
  },
  {
    name: 'an event without a sandbox names no pod',
    event: { container_id: 'c3', container_event_type: 'CONTAINER_DELETED_EVENT' },
    expected: { id: 'c3', type: 'CONTAINER_DELETED_EVENT', podUid: '' },
  },
];

for (const { name, event, expected } of cases) {
  test(`container event codec: ${name}`, () => {
    const bytes = encode(event);
    assert.deepEqual(decodeContainerEvent(bytes), expected);
    const generic = services.runtime.GetContainerEvents.responseDeserialize(bytes) as cri.ContainerEventResponse__Output;
    assert.equal(generic.container_id, expected.id);
    assert.equal(generic.container_event_type, expected.type);
  });
}
