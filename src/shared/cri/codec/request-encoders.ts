// The requests of the hot CRI methods, straight to bytes: what grpc-js calls as the
// method's serialize. proto-loader's serialize first copies the request into
// protobufjs message objects (fromObject) and then encodes those; these write the
// caller's plain object directly and only the fields it set. Field numbers as
// api.proto gives them, listed on each encoder.
import type * as cri from '../types.js';
import { encodeImageSpec } from './common-encoders.js';
import { encodeContainerConfig } from './container-config-encoder.js';
import { CONTAINER_STATES, POD_SANDBOX_STATES } from './enums.js';
import { encodePodSandboxConfig } from './sandbox-config-encoder.js';
import {
  type Writer,
  finish,
  newWriter,
  writeBool,
  writeEnum,
  writeInt64,
  writeMessage,
  writeRepeatedString,
  writeString,
  writeStringMap,
} from './wire.js';

/** VersionRequest: version = 1. */
export function encodeVersionRequest(m: cri.VersionRequest): Buffer {
  const w = newWriter();
  writeString(w, 1, m.version);
  return finish(w);
}

/** RunPodSandboxRequest: config = 1, runtime_handler = 2. */
export function encodeRunPodSandboxRequest(m: cri.RunPodSandboxRequest): Buffer {
  const w = newWriter();
  writeMessage(w, 1, m.config, encodePodSandboxConfig);
  writeString(w, 2, m.runtime_handler);
  return finish(w);
}

/** StopPodSandboxRequest, RemovePodSandboxRequest: pod_sandbox_id = 1. */
export function encodePodSandboxIdRequest(m: cri.StopPodSandboxRequest | cri.RemovePodSandboxRequest): Buffer {
  const w = newWriter();
  writeString(w, 1, m.pod_sandbox_id);
  return finish(w);
}

/** PodSandboxStatusRequest: pod_sandbox_id = 1, verbose = 2. */
export function encodePodSandboxStatusRequest(m: cri.PodSandboxStatusRequest): Buffer {
  const w = newWriter();
  writeString(w, 1, m.pod_sandbox_id);
  writeBool(w, 2, m.verbose);
  return finish(w);
}

/** PodSandboxStateValue: state = 1. */
function encodePodSandboxStateValue(m: cri.PodSandboxStateValue, w: Writer): void {
  writeEnum(w, 1, m.state, POD_SANDBOX_STATES);
}

/** PodSandboxFilter: id = 1, state = 2, label_selector = 3. */
function encodePodSandboxFilter(m: cri.PodSandboxFilter, w: Writer): void {
  writeString(w, 1, m.id);
  writeMessage(w, 2, m.state, encodePodSandboxStateValue);
  writeStringMap(w, 3, m.label_selector);
}

/** ListPodSandboxRequest: filter = 1. */
export function encodeListPodSandboxRequest(m: cri.ListPodSandboxRequest): Buffer {
  const w = newWriter();
  writeMessage(w, 1, m.filter, encodePodSandboxFilter);
  return finish(w);
}

/** CreateContainerRequest: pod_sandbox_id = 1, config = 2, sandbox_config = 3. */
export function encodeCreateContainerRequest(m: cri.CreateContainerRequest): Buffer {
  const w = newWriter();
  writeString(w, 1, m.pod_sandbox_id);
  writeMessage(w, 2, m.config, encodeContainerConfig);
  writeMessage(w, 3, m.sandbox_config, encodePodSandboxConfig);
  return finish(w);
}

/** StartContainerRequest, RemoveContainerRequest: container_id = 1. */
export function encodeContainerIdRequest(m: cri.StartContainerRequest | cri.RemoveContainerRequest): Buffer {
  const w = newWriter();
  writeString(w, 1, m.container_id);
  return finish(w);
}

/** StopContainerRequest: container_id = 1, timeout = 2. */
export function encodeStopContainerRequest(m: cri.StopContainerRequest): Buffer {
  const w = newWriter();
  writeString(w, 1, m.container_id);
  writeInt64(w, 2, m.timeout);
  return finish(w);
}

/** ContainerStateValue: state = 1. */
function encodeContainerStateValue(m: cri.ContainerStateValue, w: Writer): void {
  writeEnum(w, 1, m.state, CONTAINER_STATES);
}

/** ContainerFilter: id = 1, state = 2, pod_sandbox_id = 3, label_selector = 4. */
function encodeContainerFilter(m: cri.ContainerFilter, w: Writer): void {
  writeString(w, 1, m.id);
  writeMessage(w, 2, m.state, encodeContainerStateValue);
  writeString(w, 3, m.pod_sandbox_id);
  writeStringMap(w, 4, m.label_selector);
}

/** ListContainersRequest: filter = 1. */
export function encodeListContainersRequest(m: cri.ListContainersRequest): Buffer {
  const w = newWriter();
  writeMessage(w, 1, m.filter, encodeContainerFilter);
  return finish(w);
}

/** ContainerStatusRequest: container_id = 1, verbose = 2. */
export function encodeContainerStatusRequest(m: cri.ContainerStatusRequest): Buffer {
  const w = newWriter();
  writeString(w, 1, m.container_id);
  writeBool(w, 2, m.verbose);
  return finish(w);
}

/** ExecSyncRequest: container_id = 1, cmd = 2, timeout = 3. */
export function encodeExecSyncRequest(m: cri.ExecSyncRequest): Buffer {
  const w = newWriter();
  writeString(w, 1, m.container_id);
  writeRepeatedString(w, 2, m.cmd);
  writeInt64(w, 3, m.timeout);
  return finish(w);
}

/** ImageStatusRequest: image = 1, verbose = 2. */
export function encodeImageStatusRequest(m: cri.ImageStatusRequest): Buffer {
  const w = newWriter();
  writeMessage(w, 1, m.image, encodeImageSpec);
  writeBool(w, 2, m.verbose);
  return finish(w);
}

/** AuthConfig: username = 1, password = 2, auth = 3, server_address = 4, identity_token = 5, registry_token = 6. */
function encodeAuthConfig(m: cri.AuthConfig, w: Writer): void {
  writeString(w, 1, m.username);
  writeString(w, 2, m.password);
  writeString(w, 3, m.auth);
  writeString(w, 4, m.server_address);
  writeString(w, 5, m.identity_token);
  writeString(w, 6, m.registry_token);
}

/** PullImageRequest: image = 1, auth = 2, sandbox_config = 3. */
export function encodePullImageRequest(m: cri.PullImageRequest): Buffer {
  const w = newWriter();
  writeMessage(w, 1, m.image, encodeImageSpec);
  writeMessage(w, 2, m.auth, encodeAuthConfig);
  writeMessage(w, 3, m.sandbox_config, encodePodSandboxConfig);
  return finish(w);
}
