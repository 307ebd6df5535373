// The encoder of ContainerConfig, which CreateContainer carries. Field numbers as
// api.proto gives them, listed on each encoder.
import type * as cri from '../types.js';
import {
  encodeIdMapping,
  encodeImageSpec,
  encodeInt64Value,
  encodeLinuxContainerResources,
  encodeNamespaceOption,
  encodeSecurityProfile,
  encodeSeLinuxOption,
  encodeWindowsContainerResources,
} from './common-encoders.js';
import { MOUNT_PROPAGATIONS, SUPPLEMENTAL_GROUPS_POLICIES } from './enums.js';
import {
  type Writer,
  writeBool,
  writeEnum,
  writeMessage,
  writeRepeatedInt64,
  writeRepeatedMessage,
  writeRepeatedString,
  writeString,
  writeStringMap,
  writeUint32,
} from './wire.js';

/** ContainerMetadata: name = 1, attempt = 2. */
function encodeContainerMetadata(m: cri.ContainerMetadata, w: Writer): void {
  writeString(w, 1, m.name);
  writeUint32(w, 2, m.attempt);
}

/** KeyValue: key = 1, value = 2. */
function encodeKeyValue(m: cri.KeyValue, w: Writer): void {
  writeString(w, 1, m.key);
  writeString(w, 2, m.value);
}

/**
 * Mount: container_path = 1, host_path = 2, readonly = 3, selinux_relabel = 4,
 * propagation = 5, uidMappings = 6, gidMappings = 7, recursive_read_only = 8, image = 9.
 */
function encodeMount(m: cri.Mount, w: Writer): void {
  writeString(w, 1, m.container_path);
  writeString(w, 2, m.host_path);
  writeBool(w, 3, m.readonly);
  writeBool(w, 4, m.selinux_relabel);
  writeEnum(w, 5, m.propagation, MOUNT_PROPAGATIONS);
  writeRepeatedMessage(w, 6, m.uidMappings, encodeIdMapping);
  writeRepeatedMessage(w, 7, m.gidMappings, encodeIdMapping);
  writeBool(w, 8, m.recursive_read_only);
  writeMessage(w, 9, m.image, encodeImageSpec);
}

/** Device: container_path = 1, host_path = 2, permissions = 3. */
function encodeDevice(m: cri.Device, w: Writer): void {
  writeString(w, 1, m.container_path);
  writeString(w, 2, m.host_path);
  writeString(w, 3, m.permissions);
}

/** Capability: add_capabilities = 1, drop_capabilities = 2, add_ambient_capabilities = 3. */
function encodeCapability(m: cri.Capability, w: Writer): void {
  writeRepeatedString(w, 1, m.add_capabilities);
  writeRepeatedString(w, 2, m.drop_capabilities);
  writeRepeatedString(w, 3, m.add_ambient_capabilities);
}

/**
 * LinuxContainerSecurityContext: capabilities = 1, privileged = 2, namespace_options = 3,
 * selinux_options = 4, run_as_user = 5, run_as_username = 6, readonly_rootfs = 7,
 * supplemental_groups = 8, apparmor_profile = 9, seccomp_profile_path = 10,
 * no_new_privs = 11, run_as_group = 12, masked_paths = 13, readonly_paths = 14,
 * seccomp = 15, apparmor = 16, supplemental_groups_policy = 17.
 */
function encodeLinuxContainerSecurityContext(m: cri.LinuxContainerSecurityContext, w: Writer): void {
  writeMessage(w, 1, m.capabilities, encodeCapability);
  writeBool(w, 2, m.privileged);
  writeMessage(w, 3, m.namespace_options, encodeNamespaceOption);
  writeMessage(w, 4, m.selinux_options, encodeSeLinuxOption);
  writeMessage(w, 5, m.run_as_user, encodeInt64Value);
  writeString(w, 6, m.run_as_username);
  writeBool(w, 7, m.readonly_rootfs);
  writeRepeatedInt64(w, 8, m.supplemental_groups);
  writeString(w, 9, m.apparmor_profile);
  writeString(w, 10, m.seccomp_profile_path);
  writeBool(w, 11, m.no_new_privs);
  writeMessage(w, 12, m.run_as_group, encodeInt64Value);
  writeRepeatedString(w, 13, m.masked_paths);
  writeRepeatedString(w, 14, m.readonly_paths);
  writeMessage(w, 15, m.seccomp, encodeSecurityProfile);
  writeMessage(w, 16, m.apparmor, encodeSecurityProfile);
  writeEnum(w, 17, m.supplemental_groups_policy, SUPPLEMENTAL_GROUPS_POLICIES);
}

/** LinuxContainerConfig: resources = 1, security_context = 2. */
function encodeLinuxContainerConfig(m: cri.LinuxContainerConfig, w: Writer): void {
  writeMessage(w, 1, m.resources, encodeLinuxContainerResources);
  writeMessage(w, 2, m.security_context, encodeLinuxContainerSecurityContext);
}

/** WindowsContainerSecurityContext: run_as_username = 1, credential_spec = 2, host_process = 3. */
function encodeWindowsContainerSecurityContext(m: cri.WindowsContainerSecurityContext, w: Writer): void {
  writeString(w, 1, m.run_as_username);
  writeString(w, 2, m.credential_spec);
  writeBool(w, 3, m.host_process);
}

/** WindowsContainerConfig: resources = 1, security_context = 2. */
function encodeWindowsContainerConfig(m: cri.WindowsContainerConfig, w: Writer): void {
  writeMessage(w, 1, m.resources, encodeWindowsContainerResources);
  writeMessage(w, 2, m.security_context, encodeWindowsContainerSecurityContext);
}

/** CDIDevice: name = 1. */
function encodeCdiDevice(m: cri.CDIDevice, w: Writer): void {
  writeString(w, 1, m.name);
}

/**
 * ContainerConfig: metadata = 1, image = 2, command = 3, args = 4, working_dir = 5,
 * envs = 6, mounts = 7, devices = 8, labels = 9, annotations = 10, log_path = 11,
 * stdin = 12, stdin_once = 13, tty = 14, linux = 15, windows = 16, CDI_devices = 17.
 */
export function encodeContainerConfig(m: cri.ContainerConfig, w: Writer): void {
  writeMessage(w, 1, m.metadata, encodeContainerMetadata);
  writeMessage(w, 2, m.image, encodeImageSpec);
  writeRepeatedString(w, 3, m.command);
  writeRepeatedString(w, 4, m.args);
  writeString(w, 5, m.working_dir);
  writeRepeatedMessage(w, 6, m.envs, encodeKeyValue);
  writeRepeatedMessage(w, 7, m.mounts, encodeMount);
  writeRepeatedMessage(w, 8, m.devices, encodeDevice);
  writeStringMap(w, 9, m.labels);
  writeStringMap(w, 10, m.annotations);
  writeString(w, 11, m.log_path);
  writeBool(w, 12, m.stdin);
  writeBool(w, 13, m.stdin_once);
  writeBool(w, 14, m.tty);
  writeMessage(w, 15, m.linux, encodeLinuxContainerConfig);
  writeMessage(w, 16, m.windows, encodeWindowsContainerConfig);
  writeRepeatedMessage(w, 17, m.CDI_devices, encodeCdiDevice);
}
