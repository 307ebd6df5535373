// The PLEG's own decoding of GetContainerEvents messages. Each event carries the
// pod sandbox's full status and the statuses of all its containers (labels,
// annotations, mounts), and a pod start brings several events; the PLEG needs
// only which pod, which object and what happened, so this reads the wire format
// directly and skips the rest without building it, as relist-codec.ts does for the
// relist's lists. Field numbers are runtime.v1's.
import { newReader, readStringMapEntry, WIRE_LENGTH_DELIMITED, WIRE_VARINT, type Reader } from '../cri/codec/wire.js';
import type * as cri from '../cri/types.js';
import { POD_UID_LABEL } from '../labels.js';

export type ContainerEventType = cri.ContainerEventResponse__Output['container_event_type'];

/** What the PLEG reads of one ContainerEventResponse. */
export interface PlegContainerEvent {
  /** The container's ID, or the sandbox's for a sandbox event. */
  id: string;
  type: ContainerEventType;
  /** The pod: the sandbox's io.kubernetes.pod.uid label, else its metadata.uid; '' when the event has no sandbox. */
  podUid: string;
}

/** runtime.v1 ContainerEventType values, in enum order. */
const EVENT_TYPES: ContainerEventType[] = ['CONTAINER_CREATED_EVENT', 'CONTAINER_STARTED_EVENT', 'CONTAINER_STOPPED_EVENT', 'CONTAINER_DELETED_EVENT'];

/** ContainerEventResponse: container_id = 1, container_event_type = 2, pod_sandbox_status = 4; the rest skipped. */
export function decodeContainerEvent(buffer: Buffer): PlegContainerEvent {
  const reader = newReader(buffer);
  // proto3: an absent enum is its first value.
  const event: PlegContainerEvent = { id: '', type: EVENT_TYPES[0], podUid: '' };
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    if (field === 1 && (tag & 7) === WIRE_LENGTH_DELIMITED) event.id = reader.string();
    else if (field === 2 && (tag & 7) === WIRE_VARINT) event.type = EVENT_TYPES[reader.int32()] ?? EVENT_TYPES[0];
    else if (field === 4 && (tag & 7) === WIRE_LENGTH_DELIMITED) event.podUid = readSandboxPodUid(reader);
    else reader.skipType(tag & 7);
  }
  return event;
}

/** PodSandboxStatus: metadata = 2 {uid = 2}, labels = 7; the label wins, as in the relist. */
function readSandboxPodUid(reader: Reader): string {
  const end = reader.uint32() + reader.pos;
  let metadataUid = '';
  const labels: Record<string, string> = {};
  while (reader.pos < end) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    if (field === 2 && (tag & 7) === WIRE_LENGTH_DELIMITED) metadataUid = readMetadataUid(reader);
    else if (field === 7 && (tag & 7) === WIRE_LENGTH_DELIMITED) readStringMapEntry(reader, labels, isPodUidLabel);
    else reader.skipType(tag & 7);
  }
  return labels[POD_UID_LABEL] || metadataUid;
}

/** PodSandboxMetadata: uid = 2. */
function readMetadataUid(reader: Reader): string {
  const end = reader.uint32() + reader.pos;
  let uid = '';
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag >>> 3 === 2 && (tag & 7) === WIRE_LENGTH_DELIMITED) uid = reader.string();
    else reader.skipType(tag & 7);
  }
  return uid;
}

function isPodUidLabel(key: string): boolean {
  return key === POD_UID_LABEL;
}
