// The PLEG relist's own decoding of ListPodSandbox and ListContainers replies.
// Every second the relist reads every sandbox and container on the node, and
// needs only their IDs, states and pod labels; the generic decode builds a full
// object per entry, every default and both label and annotation maps included,
// which at 500 pods is most of shardlet's steady-state CPU. This reads the wire
// format directly, keeps the few fields the relist uses and skips the rest
// (annotations above all) without building them. Field numbers are runtime.v1's.
import { newReader, readStringMapEntry, WIRE_LENGTH_DELIMITED, WIRE_VARINT, type Reader } from './codec/wire.js';
import { POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL } from '../labels.js';
import type { RuntimeObjectState } from '../shard-protocol.js';

export interface RelistSandbox {
  id: string;
  ready: boolean;
  /** From the pod labels, else the sandbox metadata. */
  podUid: string;
  podName: string;
  podNamespace: string;
}

export interface RelistContainer {
  id: string;
  state: RuntimeObjectState;
  podUid: string;
}

/** runtime.v1 ContainerState values, in enum order. */
const CONTAINER_STATES: RuntimeObjectState[] = ['created', 'running', 'exited', 'unknown'];
/** runtime.v1 PodSandboxState.SANDBOX_READY. */
const SANDBOX_READY = 0;

/** ListPodSandboxResponse: `repeated PodSandbox items = 1`. */
export function decodeSandboxList(buffer: Buffer): RelistSandbox[] {
  return decodeRepeated(buffer, decodeSandbox);
}

/** ListContainersResponse: `repeated Container containers = 1`. */
export function decodeContainerList(buffer: Buffer): RelistContainer[] {
  return decodeRepeated(buffer, decodeContainer);
}

function decodeRepeated<T>(buffer: Buffer, decodeItem: (reader: Reader, end: number) => T): T[] {
  const reader = newReader(buffer);
  const items: T[] = [];
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === 1 && (tag & 7) === WIRE_LENGTH_DELIMITED) {
      const length = reader.uint32();
      items.push(decodeItem(reader, reader.pos + length));
    } else {
      reader.skipType(tag & 7);
    }
  }
  return items;
}

/** PodSandbox: id = 1, metadata = 2 {name = 1, uid = 2, namespace = 3}, state = 3, labels = 5. */
function decodeSandbox(reader: Reader, end: number): RelistSandbox {
  const sandbox: RelistSandbox = { id: '', ready: true, podUid: '', podName: '', podNamespace: '' };
  const labels: Record<string, string> = {};
  while (reader.pos < end) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    if (field === 1 && (tag & 7) === WIRE_LENGTH_DELIMITED) sandbox.id = reader.string();
    else if (field === 2 && (tag & 7) === WIRE_LENGTH_DELIMITED) decodeSandboxMetadata(reader, sandbox);
    else if (field === 3 && (tag & 7) === WIRE_VARINT) sandbox.ready = reader.int32() === SANDBOX_READY;
    else if (field === 5 && (tag & 7) === WIRE_LENGTH_DELIMITED) readStringMapEntry(reader, labels, isWantedLabel);
    else reader.skipType(tag & 7);
  }
  sandbox.podUid = labels[POD_UID_LABEL] ?? sandbox.podUid;
  sandbox.podName = labels[POD_NAME_LABEL] ?? sandbox.podName;
  sandbox.podNamespace = labels[POD_NAMESPACE_LABEL] ?? sandbox.podNamespace;
  return sandbox;
}

function decodeSandboxMetadata(reader: Reader, sandbox: RelistSandbox): void {
  const end = reader.uint32() + reader.pos;
  while (reader.pos < end) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    if (field === 1 && (tag & 7) === WIRE_LENGTH_DELIMITED) sandbox.podName = reader.string();
    else if (field === 2 && (tag & 7) === WIRE_LENGTH_DELIMITED) sandbox.podUid = reader.string();
    else if (field === 3 && (tag & 7) === WIRE_LENGTH_DELIMITED) sandbox.podNamespace = reader.string();
    else reader.skipType(tag & 7);
  }
}

/** Container: id = 1, state = 6, labels = 8; everything else skipped. */
function decodeContainer(reader: Reader, end: number): RelistContainer {
  const container: RelistContainer = { id: '', state: 'created', podUid: '' };
  const labels: Record<string, string> = {};
  while (reader.pos < end) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    if (field === 1 && (tag & 7) === WIRE_LENGTH_DELIMITED) container.id = reader.string();
    else if (field === 6 && (tag & 7) === WIRE_VARINT) container.state = CONTAINER_STATES[reader.int32()] ?? 'unknown';
    else if (field === 8 && (tag & 7) === WIRE_LENGTH_DELIMITED) readStringMapEntry(reader, labels, isWantedLabel);
    else reader.skipType(tag & 7);
  }
  container.podUid = labels[POD_UID_LABEL] ?? '';
  return container;
}

const WANTED_LABELS = new Set([POD_UID_LABEL, POD_NAME_LABEL, POD_NAMESPACE_LABEL]);

/** The pod labels the relist uses; the other labels are read past. */
function isWantedLabel(key: string): boolean {
  return WANTED_LABELS.has(key);
}
