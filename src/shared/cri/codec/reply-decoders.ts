// The replies of the hot CRI methods, from bytes: what grpc-js calls as the method's
// deserialize. proto-loader's deserialize builds protobufjs message objects and then
// copies them into plain objects with every default filled in, Long objects turned
// into numbers on the way; these read the wire once into the shapes of
// reply-types.ts and skip the fields no caller reads without building them. As
// protobufjs's own decoders, a field is found by its number (a repeated one appends,
// a message field seen twice keeps the last) and unknown fields are skipped.
import type * as cri from '../types.js';
import { CONTAINER_STATES, enumName, NAMESPACE_MODES, POD_SANDBOX_STATES } from './enums.js';
import type {
  ContainerLean,
  ContainerStatusLean,
  ContainerStatusReply,
  ContainerUserLean,
  ImageLean,
  ImageSpecLean,
  ImageStatusReply,
  LinuxPodSandboxStatusLean,
  ListContainersReply,
  ListPodSandboxReply,
  NamespaceOptionLean,
  PodSandboxLean,
  PodSandboxStatusLean,
  PodSandboxStatusReply,
} from './reply-types.js';
import { endOfField, newReader, type Reader, readInt64, readStringMapEntry, readUint64 } from './wire.js';

const EMPTY_BYTES = Buffer.alloc(0);

/** VersionResponse: version = 1, runtime_name = 2, runtime_version = 3, runtime_api_version = 4. */
export function decodeVersionResponse(bytes: Buffer): cri.VersionResponse__Output {
  const reply: cri.VersionResponse__Output = { version: '', runtime_name: '', runtime_version: '', runtime_api_version: '' };
  const r = newReader(bytes);
  while (r.pos < r.len) {
    const key = r.uint32();
    const field = key >>> 3;
    if (field === 1) reply.version = r.string();
    else if (field === 2) reply.runtime_name = r.string();
    else if (field === 3) reply.runtime_version = r.string();
    else if (field === 4) reply.runtime_api_version = r.string();
    else r.skipType(key & 7);
  }
  return reply;
}

/** A reply with no fields (StartContainer, StopContainer, …); whatever a newer runtime adds is skipped. */
export function decodeEmptyResponse(bytes: Buffer): Record<string, never> {
  const r = newReader(bytes);
  while (r.pos < r.len) r.skipType(r.uint32() & 7);
  return {};
}

/** The string at field 1 of the message that ends at `end`; every other field skipped. */
function readFirstString(r: Reader, end: number): string {
  let value = '';
  while (r.pos < end) {
    const key = r.uint32();
    if (key >>> 3 === 1) value = r.string();
    else r.skipType(key & 7);
  }
  return value;
}

/** RunPodSandboxResponse: pod_sandbox_id = 1. */
export function decodeRunPodSandboxResponse(bytes: Buffer): cri.RunPodSandboxResponse__Output {
  const r = newReader(bytes);
  return { pod_sandbox_id: readFirstString(r, r.len) };
}

/** CreateContainerResponse: container_id = 1. */
export function decodeCreateContainerResponse(bytes: Buffer): cri.CreateContainerResponse__Output {
  const r = newReader(bytes);
  return { container_id: readFirstString(r, r.len) };
}

/** PullImageResponse: image_ref = 1. */
export function decodePullImageResponse(bytes: Buffer): cri.PullImageResponse__Output {
  const r = newReader(bytes);
  return { image_ref: readFirstString(r, r.len) };
}

/** ExecSyncResponse: stdout = 1, stderr = 2, exit_code = 3. The output stays a view of the reply's bytes, as with protobufjs. */
export function decodeExecSyncResponse(bytes: Buffer): cri.ExecSyncResponse__Output {
  const reply: cri.ExecSyncResponse__Output = { stdout: EMPTY_BYTES, stderr: EMPTY_BYTES, exit_code: 0 };
  const r = newReader(bytes);
  while (r.pos < r.len) {
    const key = r.uint32();
    const field = key >>> 3;
    if (field === 1) reply.stdout = r.bytes() as Buffer;
    else if (field === 2) reply.stderr = r.bytes() as Buffer;
    else if (field === 3) reply.exit_code = r.int32();
    else r.skipType(key & 7);
  }
  return reply;
}

/** Int64Value: value = 1. */
function readInt64Value(r: Reader, end: number): cri.Int64Value__Output {
  const wrapped: cri.Int64Value__Output = { value: 0 };
  while (r.pos < end) {
    const key = r.uint32();
    if (key >>> 3 === 1) wrapped.value = readInt64(r);
    else r.skipType(key & 7);
  }
  return wrapped;
}

/** Image: id = 1, size = 4, uid = 5, username = 6 (repo_tags, repo_digests, spec, pinned, image_source skipped). */
function readImage(r: Reader, end: number): ImageLean {
  const image: ImageLean = { id: '', size: 0, uid: null, username: '' };
  while (r.pos < end) {
    const key = r.uint32();
    const field = key >>> 3;
    if (field === 1) image.id = r.string();
    else if (field === 4) image.size = readUint64(r);
    else if (field === 5) image.uid = readInt64Value(r, endOfField(r));
    else if (field === 6) image.username = r.string();
    else r.skipType(key & 7);
  }
  return image;
}

/** ImageStatusResponse: image = 1 (info = 2 skipped). */
export function decodeImageStatusResponse(bytes: Buffer): ImageStatusReply {
  const reply: ImageStatusReply = { image: null };
  const r = newReader(bytes);
  while (r.pos < r.len) {
    const key = r.uint32();
    if (key >>> 3 === 1) reply.image = readImage(r, endOfField(r));
    else r.skipType(key & 7);
  }
  return reply;
}

/** PodSandboxMetadata: name = 1, uid = 2, namespace = 3, attempt = 4. */
function readPodSandboxMetadata(r: Reader, end: number): cri.PodSandboxMetadata__Output {
  const metadata: cri.PodSandboxMetadata__Output = { name: '', uid: '', namespace: '', attempt: 0 };
  while (r.pos < end) {
    const key = r.uint32();
    const field = key >>> 3;
    if (field === 1) metadata.name = r.string();
    else if (field === 2) metadata.uid = r.string();
    else if (field === 3) metadata.namespace = r.string();
    else if (field === 4) metadata.attempt = r.uint32();
    else r.skipType(key & 7);
  }
  return metadata;
}

/** ContainerMetadata: name = 1, attempt = 2. */
function readContainerMetadata(r: Reader, end: number): cri.ContainerMetadata__Output {
  const metadata: cri.ContainerMetadata__Output = { name: '', attempt: 0 };
  while (r.pos < end) {
    const key = r.uint32();
    const field = key >>> 3;
    if (field === 1) metadata.name = r.string();
    else if (field === 2) metadata.attempt = r.uint32();
    else r.skipType(key & 7);
  }
  return metadata;
}

/** ImageSpec: image = 1 (annotations, user_specified_image, runtime_handler skipped). */
function readImageSpec(r: Reader, end: number): ImageSpecLean {
  return { image: readFirstString(r, end) };
}

/** PodSandboxNetworkStatus: ip = 1, additional_ips = 2 (PodIP: ip = 1). */
function readNetworkStatus(r: Reader, end: number): cri.PodSandboxNetworkStatus__Output {
  const network: cri.PodSandboxNetworkStatus__Output = { ip: '', additional_ips: [] };
  while (r.pos < end) {
    const key = r.uint32();
    const field = key >>> 3;
    if (field === 1) network.ip = r.string();
    else if (field === 2) network.additional_ips.push({ ip: readFirstString(r, endOfField(r)) });
    else r.skipType(key & 7);
  }
  return network;
}

/** NamespaceOption: network = 1 (pid, ipc, target_id, userns_options skipped). */
function readNamespaceOption(r: Reader, end: number): NamespaceOptionLean {
  const options: NamespaceOptionLean = { network: NAMESPACE_MODES[0] };
  while (r.pos < end) {
    const key = r.uint32();
    if (key >>> 3 === 1) options.network = enumName(NAMESPACE_MODES, r.int32());
    else r.skipType(key & 7);
  }
  return options;
}

/** LinuxPodSandboxStatus: namespaces = 1; Namespace: options = 2. */
function readLinuxSandboxStatus(r: Reader, end: number): LinuxPodSandboxStatusLean {
  const linux: LinuxPodSandboxStatusLean = { namespaces: null };
  while (r.pos < end) {
    const key = r.uint32();
    if (key >>> 3 !== 1) {
      r.skipType(key & 7);
      continue;
    }
    const namespaces: NonNullable<LinuxPodSandboxStatusLean['namespaces']> = { options: null };
    const namespacesEnd = endOfField(r);
    while (r.pos < namespacesEnd) {
      const namespaceKey = r.uint32();
      if (namespaceKey >>> 3 === 2) namespaces.options = readNamespaceOption(r, endOfField(r));
      else r.skipType(namespaceKey & 7);
    }
    linux.namespaces = namespaces;
  }
  return linux;
}

/** PodSandboxStatus: id = 1, metadata = 2, state = 3, created_at = 4, network = 5, linux = 6 (labels = 7, annotations = 8, runtime_handler = 9 skipped). */
function readPodSandboxStatus(r: Reader, end: number): PodSandboxStatusLean {
  const status: PodSandboxStatusLean = { id: '', metadata: null, state: POD_SANDBOX_STATES[0], created_at: 0, network: null, linux: null };
  while (r.pos < end) {
    const key = r.uint32();
    const field = key >>> 3;
    if (field === 1) status.id = r.string();
    else if (field === 2) status.metadata = readPodSandboxMetadata(r, endOfField(r));
    else if (field === 3) status.state = enumName(POD_SANDBOX_STATES, r.int32());
    else if (field === 4) status.created_at = readInt64(r);
    else if (field === 5) status.network = readNetworkStatus(r, endOfField(r));
    else if (field === 6) status.linux = readLinuxSandboxStatus(r, endOfField(r));
    else r.skipType(key & 7);
  }
  return status;
}

/** PodSandboxStatusResponse: status = 1 (info = 2, containers_statuses = 3, timestamp = 4 skipped). */
export function decodePodSandboxStatusResponse(bytes: Buffer): PodSandboxStatusReply {
  const reply: PodSandboxStatusReply = { status: null };
  const r = newReader(bytes);
  while (r.pos < r.len) {
    const key = r.uint32();
    if (key >>> 3 === 1) reply.status = readPodSandboxStatus(r, endOfField(r));
    else r.skipType(key & 7);
  }
  return reply;
}

/** PodSandbox: id = 1, metadata = 2, state = 3, created_at = 4, labels = 5 (annotations = 6, runtime_handler = 7 skipped). */
function readPodSandbox(r: Reader, end: number): PodSandboxLean {
  const sandbox: PodSandboxLean = { id: '', metadata: null, state: POD_SANDBOX_STATES[0], created_at: 0, labels: {} };
  while (r.pos < end) {
    const key = r.uint32();
    const field = key >>> 3;
    if (field === 1) sandbox.id = r.string();
    else if (field === 2) sandbox.metadata = readPodSandboxMetadata(r, endOfField(r));
    else if (field === 3) sandbox.state = enumName(POD_SANDBOX_STATES, r.int32());
    else if (field === 4) sandbox.created_at = readInt64(r);
    else if (field === 5) readStringMapEntry(r, sandbox.labels);
    else r.skipType(key & 7);
  }
  return sandbox;
}

/** ListPodSandboxResponse: items = 1. */
export function decodeListPodSandboxResponse(bytes: Buffer): ListPodSandboxReply {
  const reply: ListPodSandboxReply = { items: [] };
  const r = newReader(bytes);
  while (r.pos < r.len) {
    const key = r.uint32();
    if (key >>> 3 === 1) reply.items.push(readPodSandbox(r, endOfField(r)));
    else r.skipType(key & 7);
  }
  return reply;
}

/** Container: id = 1, pod_sandbox_id = 2, metadata = 3, image = 4, image_ref = 5, state = 6, created_at = 7, labels = 8, annotations = 9 (image_id = 10 skipped). */
function readContainer(r: Reader, end: number): ContainerLean {
  const container: ContainerLean = {
    id: '',
    pod_sandbox_id: '',
    metadata: null,
    image: null,
    image_ref: '',
    state: CONTAINER_STATES[0],
    created_at: 0,
    labels: {},
    annotations: {},
  };
  while (r.pos < end) {
    const key = r.uint32();
    const field = key >>> 3;
    if (field === 1) container.id = r.string();
    else if (field === 2) container.pod_sandbox_id = r.string();
    else if (field === 3) container.metadata = readContainerMetadata(r, endOfField(r));
    else if (field === 4) container.image = readImageSpec(r, endOfField(r));
    else if (field === 5) container.image_ref = r.string();
    else if (field === 6) container.state = enumName(CONTAINER_STATES, r.int32());
    else if (field === 7) container.created_at = readInt64(r);
    else if (field === 8) readStringMapEntry(r, container.labels);
    else if (field === 9) readStringMapEntry(r, container.annotations);
    else r.skipType(key & 7);
  }
  return container;
}

/** ListContainersResponse: containers = 1. */
export function decodeListContainersResponse(bytes: Buffer): ListContainersReply {
  const reply: ListContainersReply = { containers: [] };
  const r = newReader(bytes);
  while (r.pos < r.len) {
    const key = r.uint32();
    if (key >>> 3 === 1) reply.containers.push(readContainer(r, endOfField(r)));
    else r.skipType(key & 7);
  }
  return reply;
}

function emptyContainerStatus(): ContainerStatusLean {
  return {
    id: '',
    metadata: null,
    state: CONTAINER_STATES[0],
    created_at: 0,
    started_at: 0,
    finished_at: 0,
    exit_code: 0,
    image: null,
    image_ref: '',
    reason: '',
    message: '',
    labels: {},
    annotations: {},
    log_path: '',
    user: null,
  };
}

/** LinuxContainerUser: uid = 1, gid = 2, supplemental_groups = 3 (packed, or one per entry). */
function readLinuxContainerUser(r: Reader, end: number): NonNullable<ContainerUserLean['linux']> {
  const user = { uid: 0, gid: 0, supplemental_groups: [] as number[] };
  while (r.pos < end) {
    const key = r.uint32();
    const field = key >>> 3;
    if (field === 1) user.uid = readInt64(r);
    else if (field === 2) user.gid = readInt64(r);
    else if (field === 3 && (key & 7) === 2) {
      const packedEnd = endOfField(r);
      while (r.pos < packedEnd) user.supplemental_groups.push(readInt64(r));
    } else if (field === 3) user.supplemental_groups.push(readInt64(r));
    else r.skipType(key & 7);
  }
  return user;
}

/** ContainerUser: linux = 1. */
function readContainerUser(r: Reader, end: number): ContainerUserLean {
  const user: ContainerUserLean = { linux: null };
  while (r.pos < end) {
    const key = r.uint32();
    if (key >>> 3 === 1) user.linux = readLinuxContainerUser(r, endOfField(r));
    else r.skipType(key & 7);
  }
  return user;
}

/**
 * ContainerStatus: id = 1, metadata = 2, state = 3, created_at = 4, started_at = 5,
 * finished_at = 6, exit_code = 7, image = 8, image_ref = 9, reason = 10, message = 11,
 * labels = 12, annotations = 13, log_path = 15, user = 18 (mounts = 14, resources = 16,
 * image_id = 17, image_source = 19 skipped).
 */
function readContainerStatus(r: Reader, end: number): ContainerStatusLean {
  const status = emptyContainerStatus();
  while (r.pos < end) {
    const key = r.uint32();
    const field = key >>> 3;
    if (field === 1) status.id = r.string();
    else if (field === 2) status.metadata = readContainerMetadata(r, endOfField(r));
    else if (field === 3) status.state = enumName(CONTAINER_STATES, r.int32());
    else if (field === 4) status.created_at = readInt64(r);
    else if (field === 5) status.started_at = readInt64(r);
    else if (field === 6) status.finished_at = readInt64(r);
    else if (field === 7) status.exit_code = r.int32();
    else if (field === 8) status.image = readImageSpec(r, endOfField(r));
    else if (field === 9) status.image_ref = r.string();
    else if (field === 10) status.reason = r.string();
    else if (field === 11) status.message = r.string();
    else if (field === 12) readStringMapEntry(r, status.labels);
    else if (field === 13) readStringMapEntry(r, status.annotations);
    else if (field === 15) status.log_path = r.string();
    else if (field === 18) status.user = readContainerUser(r, endOfField(r));
    else r.skipType(key & 7);
  }
  return status;
}

/** ContainerStatusResponse: status = 1 (info = 2 skipped). */
export function decodeContainerStatusResponse(bytes: Buffer): ContainerStatusReply {
  const reply: ContainerStatusReply = { status: null };
  const r = newReader(bytes);
  while (r.pos < r.len) {
    const key = r.uint32();
    if (key >>> 3 === 1) reply.status = readContainerStatus(r, endOfField(r));
    else r.skipType(key & 7);
  }
  return reply;
}
