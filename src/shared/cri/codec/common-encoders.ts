// Encoders of the runtime.v1 messages that both a PodSandboxConfig and a
// ContainerConfig contain. Each writes the fields of one message in field-number
// order, the numbers as api.proto gives them (the comment on each encoder lists
// them); test/shared/cri/codec checks every field against protobufjs's reflection of
// the same proto.
import type * as cri from '../types.js';
import { NAMESPACE_MODES, SECURITY_PROFILE_TYPES } from './enums.js';
import {
  type Writer,
  writeEnum,
  writeInt64,
  writeMessage,
  writeRepeatedMessage,
  writeString,
  writeStringMap,
  writeUint32,
  writeUint64,
} from './wire.js';

/** ImageSpec: image = 1, annotations = 2, user_specified_image = 18, runtime_handler = 19. */
export function encodeImageSpec(m: cri.ImageSpec, w: Writer): void {
  writeString(w, 1, m.image);
  writeStringMap(w, 2, m.annotations);
  writeString(w, 18, m.user_specified_image);
  writeString(w, 19, m.runtime_handler);
}

/** IDMapping: host_id = 1, container_id = 2, length = 3. */
export function encodeIdMapping(m: cri.IDMapping, w: Writer): void {
  writeUint32(w, 1, m.host_id);
  writeUint32(w, 2, m.container_id);
  writeUint32(w, 3, m.length);
}

/** UserNamespace: mode = 1, uids = 2, gids = 3. */
function encodeUserNamespace(m: cri.UserNamespace, w: Writer): void {
  writeEnum(w, 1, m.mode, NAMESPACE_MODES);
  writeRepeatedMessage(w, 2, m.uids, encodeIdMapping);
  writeRepeatedMessage(w, 3, m.gids, encodeIdMapping);
}

/** NamespaceOption: network = 1, pid = 2, ipc = 3, target_id = 4, userns_options = 5. */
export function encodeNamespaceOption(m: cri.NamespaceOption, w: Writer): void {
  writeEnum(w, 1, m.network, NAMESPACE_MODES);
  writeEnum(w, 2, m.pid, NAMESPACE_MODES);
  writeEnum(w, 3, m.ipc, NAMESPACE_MODES);
  writeString(w, 4, m.target_id);
  writeMessage(w, 5, m.userns_options, encodeUserNamespace);
}

/** SELinuxOption: user = 1, role = 2, type = 3, level = 4. */
export function encodeSeLinuxOption(m: cri.SELinuxOption, w: Writer): void {
  writeString(w, 1, m.user);
  writeString(w, 2, m.role);
  writeString(w, 3, m.type);
  writeString(w, 4, m.level);
}

/** SecurityProfile: profile_type = 1, localhost_ref = 2. */
export function encodeSecurityProfile(m: cri.SecurityProfile, w: Writer): void {
  writeEnum(w, 1, m.profile_type, SECURITY_PROFILE_TYPES);
  writeString(w, 2, m.localhost_ref);
}

/** Int64Value: value = 1. Present with value 0 means "0", not unset (run_as_user 0 is root). */
export function encodeInt64Value(m: cri.Int64Value, w: Writer): void {
  writeInt64(w, 1, m.value);
}

/** HugepageLimit: page_size = 1, limit = 2. */
function encodeHugepageLimit(m: cri.HugepageLimit, w: Writer): void {
  writeString(w, 1, m.page_size);
  writeUint64(w, 2, m.limit);
}

/**
 * LinuxContainerResources: cpu_period = 1, cpu_quota = 2, cpu_shares = 3,
 * memory_limit_in_bytes = 4, oom_score_adj = 5, cpuset_cpus = 6, cpuset_mems = 7,
 * hugepage_limits = 8, unified = 9, memory_swap_limit_in_bytes = 10.
 */
export function encodeLinuxContainerResources(m: cri.LinuxContainerResources, w: Writer): void {
  writeInt64(w, 1, m.cpu_period);
  writeInt64(w, 2, m.cpu_quota);
  writeInt64(w, 3, m.cpu_shares);
  writeInt64(w, 4, m.memory_limit_in_bytes);
  writeInt64(w, 5, m.oom_score_adj);
  writeString(w, 6, m.cpuset_cpus);
  writeString(w, 7, m.cpuset_mems);
  writeRepeatedMessage(w, 8, m.hugepage_limits, encodeHugepageLimit);
  writeStringMap(w, 9, m.unified);
  writeInt64(w, 10, m.memory_swap_limit_in_bytes);
}

/** WindowsCpuGroupAffinity: cpu_mask = 1, cpu_group = 2. */
function encodeWindowsCpuGroupAffinity(m: cri.WindowsCpuGroupAffinity, w: Writer): void {
  writeUint64(w, 1, m.cpu_mask);
  writeUint32(w, 2, m.cpu_group);
}

/**
 * WindowsContainerResources: cpu_shares = 1, cpu_count = 2, cpu_maximum = 3,
 * memory_limit_in_bytes = 4, rootfs_size_in_bytes = 5, affinity_cpus = 6.
 */
export function encodeWindowsContainerResources(m: cri.WindowsContainerResources, w: Writer): void {
  writeInt64(w, 1, m.cpu_shares);
  writeInt64(w, 2, m.cpu_count);
  writeInt64(w, 3, m.cpu_maximum);
  writeInt64(w, 4, m.memory_limit_in_bytes);
  writeInt64(w, 5, m.rootfs_size_in_bytes);
  writeRepeatedMessage(w, 6, m.affinity_cpus, encodeWindowsCpuGroupAffinity);
}
