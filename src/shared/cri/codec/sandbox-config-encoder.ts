// The encoder of PodSandboxConfig, which RunPodSandbox carries and CreateContainer
// and PullImage carry again: the biggest request a pod start sends. Field numbers
// as api.proto gives them, listed on each encoder.
import type * as cri from '../types.js';
import {
  encodeInt64Value,
  encodeLinuxContainerResources,
  encodeNamespaceOption,
  encodeSecurityProfile,
  encodeSeLinuxOption,
} from './common-encoders.js';
import { NAMESPACE_MODES, PROTOCOLS, SUPPLEMENTAL_GROUPS_POLICIES } from './enums.js';
import {
  type Writer,
  writeBool,
  writeEnum,
  writeInt32,
  writeMessage,
  writeRepeatedInt64,
  writeRepeatedMessage,
  writeRepeatedString,
  writeString,
  writeStringMap,
  writeUint32,
} from './wire.js';

/** PodSandboxMetadata: name = 1, uid = 2, namespace = 3, attempt = 4. */
function encodePodSandboxMetadata(m: cri.PodSandboxMetadata, w: Writer): void {
  writeString(w, 1, m.name);
  writeString(w, 2, m.uid);
  writeString(w, 3, m.namespace);
  writeUint32(w, 4, m.attempt);
}

/** DNSConfig: servers = 1, searches = 2, options = 3. */
function encodeDnsConfig(m: cri.DNSConfig, w: Writer): void {
  writeRepeatedString(w, 1, m.servers);
  writeRepeatedString(w, 2, m.searches);
  writeRepeatedString(w, 3, m.options);
}

/** PortMapping: protocol = 1, container_port = 2, host_port = 3, host_ip = 4. */
function encodePortMapping(m: cri.PortMapping, w: Writer): void {
  writeEnum(w, 1, m.protocol, PROTOCOLS);
  writeInt32(w, 2, m.container_port);
  writeInt32(w, 3, m.host_port);
  writeString(w, 4, m.host_ip);
}

/**
 * LinuxSandboxSecurityContext: namespace_options = 1, selinux_options = 2,
 * run_as_user = 3, readonly_rootfs = 4, supplemental_groups = 5, privileged = 6,
 * seccomp_profile_path = 7, run_as_group = 8, seccomp = 9, apparmor = 10,
 * supplemental_groups_policy = 11.
 */
function encodeLinuxSandboxSecurityContext(m: cri.LinuxSandboxSecurityContext, w: Writer): void {
  writeMessage(w, 1, m.namespace_options, encodeNamespaceOption);
  writeMessage(w, 2, m.selinux_options, encodeSeLinuxOption);
  writeMessage(w, 3, m.run_as_user, encodeInt64Value);
  writeBool(w, 4, m.readonly_rootfs);
  writeRepeatedInt64(w, 5, m.supplemental_groups);
  writeBool(w, 6, m.privileged);
  writeString(w, 7, m.seccomp_profile_path);
  writeMessage(w, 8, m.run_as_group, encodeInt64Value);
  writeMessage(w, 9, m.seccomp, encodeSecurityProfile);
  writeMessage(w, 10, m.apparmor, encodeSecurityProfile);
  writeEnum(w, 11, m.supplemental_groups_policy, SUPPLEMENTAL_GROUPS_POLICIES);
}

/** LinuxPodSandboxConfig: cgroup_parent = 1, security_context = 2, sysctls = 3, overhead = 4, resources = 5. */
function encodeLinuxPodSandboxConfig(m: cri.LinuxPodSandboxConfig, w: Writer): void {
  writeString(w, 1, m.cgroup_parent);
  writeMessage(w, 2, m.security_context, encodeLinuxSandboxSecurityContext);
  writeStringMap(w, 3, m.sysctls);
  writeMessage(w, 4, m.overhead, encodeLinuxContainerResources);
  writeMessage(w, 5, m.resources, encodeLinuxContainerResources);
}

/** WindowsNamespaceOption: network = 1. */
function encodeWindowsNamespaceOption(m: cri.WindowsNamespaceOption, w: Writer): void {
  writeEnum(w, 1, m.network, NAMESPACE_MODES);
}

/** WindowsSandboxSecurityContext: run_as_username = 1, credential_spec = 2, host_process = 3, namespace_options = 4. */
function encodeWindowsSandboxSecurityContext(m: cri.WindowsSandboxSecurityContext, w: Writer): void {
  writeString(w, 1, m.run_as_username);
  writeString(w, 2, m.credential_spec);
  writeBool(w, 3, m.host_process);
  writeMessage(w, 4, m.namespace_options, encodeWindowsNamespaceOption);
}

/** WindowsPodSandboxConfig: security_context = 1. */
function encodeWindowsPodSandboxConfig(m: cri.WindowsPodSandboxConfig, w: Writer): void {
  writeMessage(w, 1, m.security_context, encodeWindowsSandboxSecurityContext);
}

/**
 * PodSandboxConfig: metadata = 1, hostname = 2, log_directory = 3, dns_config = 4,
 * port_mappings = 5, labels = 6, annotations = 7, linux = 8, windows = 9.
 */
export function encodePodSandboxConfig(m: cri.PodSandboxConfig, w: Writer): void {
  writeMessage(w, 1, m.metadata, encodePodSandboxMetadata);
  writeString(w, 2, m.hostname);
  writeString(w, 3, m.log_directory);
  writeMessage(w, 4, m.dns_config, encodeDnsConfig);
  writeRepeatedMessage(w, 5, m.port_mappings, encodePortMapping);
  writeStringMap(w, 6, m.labels);
  writeStringMap(w, 7, m.annotations);
  writeMessage(w, 8, m.linux, encodeLinuxPodSandboxConfig);
  writeMessage(w, 9, m.windows, encodeWindowsPodSandboxConfig);
}
