// Linux security settings for sandboxes and containers, as upstream's
// runtimeutil.NamespacesForPod, generatePodSandboxLinuxConfig (security part),
// determineEffectiveSecurityContext, convertToRuntimeSecurityContext (with the
// pod's supplementalGroupsPolicy, KEP 3619),
// getSeccompProfile (with the kubelet's default seccompDefault=false),
// getAppArmorProfile and verifyRunAsNonRoot.
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { joinDescendingPath } from '../../shared/safe-path.js';
import type { Container, Pod } from '../../shared/types.js';
import type { LinuxContainerSecurityContext } from '../../generated/cri/runtime/v1/LinuxContainerSecurityContext.js';
import type { LinuxSandboxSecurityContext } from '../../generated/cri/runtime/v1/LinuxSandboxSecurityContext.js';
import type { NamespaceOption } from '../../generated/cri/runtime/v1/NamespaceOption.js';
import type { SecurityProfile } from '../../generated/cri/runtime/v1/SecurityProfile.js';
import type { V1SeccompProfile, V1SecurityContext } from '@kubernetes/client-node';
import { seccompProfileRoot } from '../volumes/volume-paths.js';
import { appArmorProfileOf, APPARMOR_ANNOTATION_LOCALHOST_PREFIX, APPARMOR_ANNOTATION_RUNTIME_DEFAULT, APPARMOR_ANNOTATION_UNCONFINED } from '../../shared/apparmor.js';
import type { ImageUser } from '../images/image-user.js';

/** Paths hidden inside every non-privileged container (upstream's defaultMaskedPaths, from moby). */
export const DEFAULT_MASKED_PATHS = [
  '/proc/asound',
  '/proc/acpi',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
  '/sys/devices/virtual/powercap',
];

/** Paths mounted read-only inside every non-privileged container (upstream's defaultReadonlyPaths). */
export const DEFAULT_READONLY_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

/** As NamespacesForPod: host namespaces on request, a pod-wide PID namespace with shareProcessNamespace. */
export function namespacesForPod(pod: Pod): NamespaceOption {
  const spec = pod.spec;
  let pid: NamespaceOption['pid'] = 'CONTAINER';
  if (spec?.hostPID) pid = 'NODE';
  else if (spec?.shareProcessNamespace) pid = 'POD';
  return {
    network: spec?.hostNetwork ? 'NODE' : 'POD',
    pid,
    ipc: spec?.hostIPC ? 'NODE' : 'POD',
  };
}

/** As kubecontainer.HasPrivilegedContainer, over init and app containers. */
export function hasPrivilegedContainer(pod: Pod): boolean {
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  return containers.some((container) => container.securityContext?.privileged === true);
}

/** fsGroup first, then supplementalGroups, as upstream orders them. */
function podSupplementalGroups(pod: Pod): number[] {
  const podSecurity = pod.spec?.securityContext;
  const groups: number[] = [];
  if (podSecurity?.fsGroup !== undefined) groups.push(podSecurity.fsGroup);
  groups.push(...(podSecurity?.supplementalGroups ?? []));
  return groups;
}

/**
 * The pod's supplementalGroupsPolicy as the CRI enum (upstream's
 * convertToRuntimeSupplementalGroupsPolicy): Strict, else Merge, the default.
 */
function supplementalGroupsPolicy(pod: Pod): 'Merge' | 'Strict' {
  return pod.spec?.securityContext?.supplementalGroupsPolicy === 'Strict' ? 'Strict' : 'Merge';
}

/** The sandbox's security context; the sandbox always runs with the runtime's default seccomp profile. */
export function sandboxSecurityContext(pod: Pod): LinuxSandboxSecurityContext {
  const podSecurity = pod.spec?.securityContext;
  const context: LinuxSandboxSecurityContext = {
    namespace_options: namespacesForPod(pod),
    privileged: hasPrivilegedContainer(pod),
    // Upstream forces RuntimeDefault here so pods can pick the least privileged profile (issue #84623).
    seccomp: { profile_type: 'RuntimeDefault' },
    supplemental_groups: podSupplementalGroups(pod),
    supplemental_groups_policy: supplementalGroupsPolicy(pod),
  };
  if (podSecurity?.runAsUser !== undefined) context.run_as_user = { value: podSecurity.runAsUser };
  if (podSecurity?.runAsGroup !== undefined) context.run_as_group = { value: podSecurity.runAsGroup };
  if (podSecurity?.seLinuxOptions) context.selinux_options = podSecurity.seLinuxOptions;
  return context;
}

/** As securitycontext.DetermineEffectiveSecurityContext: the container's settings over the pod's. */
export function effectiveSecurityContext(pod: Pod, container: Container): V1SecurityContext {
  const podSecurity = pod.spec?.securityContext ?? {};
  const inherited: V1SecurityContext = {
    runAsUser: podSecurity.runAsUser,
    runAsGroup: podSecurity.runAsGroup,
    runAsNonRoot: podSecurity.runAsNonRoot,
    seLinuxOptions: podSecurity.seLinuxOptions,
    seccompProfile: podSecurity.seccompProfile,
    appArmorProfile: podSecurity.appArmorProfile,
  };
  const own = container.securityContext ?? {};
  const merged: V1SecurityContext = { ...inherited };
  for (const [key, value] of Object.entries(own)) {
    if (value !== undefined && value !== null) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}

/**
 * The container's Linux security context, as determineEffectiveSecurityContext
 * builds it; `imageUser` is who the image runs as (ImageStatus), which runAsNonRoot
 * is checked against and which the runtime is told when runAsUser is unset.
 */
export function containerSecurityContext(pod: Pod, container: Container, rootDir: string, imageUser: ImageUser): LinuxContainerSecurityContext {
  const effective = effectiveSecurityContext(pod, container);
  const runAsUser = securityId(pod, container, effective.runAsUser, 'runAsUser');
  const runAsGroup = securityId(pod, container, effective.runAsGroup, 'runAsGroup');
  verifyRunAsNonRoot(pod, container, effective.runAsNonRoot === true, runAsUser, imageUser);
  const privileged = effective.privileged === true;
  const unmasked = effective.procMount === 'Unmasked' || privileged;
  const context: LinuxContainerSecurityContext = {
    privileged,
    readonly_rootfs: effective.readOnlyRootFilesystem === true,
    namespace_options: namespacesForPod(pod),
    supplemental_groups: podSupplementalGroups(pod),
    supplemental_groups_policy: supplementalGroupsPolicy(pod),
    // allowPrivilegeEscalation: false is what sets no_new_privs; unset leaves it off.
    no_new_privs: effective.allowPrivilegeEscalation === false,
    // The runtime ignores both lists for privileged containers; we leave them empty there.
    masked_paths: unmasked ? [] : [...DEFAULT_MASKED_PATHS],
    readonly_paths: unmasked ? [] : [...DEFAULT_READONLY_PATHS],
    seccomp: seccompProfile(container, effective.seccompProfile, rootDir),
  };
  if (effective.capabilities) {
    // Names go through as written ("NET_ADMIN"); the runtime adds the CAP_ prefix.
    context.capabilities = {
      add_capabilities: [...(effective.capabilities.add ?? [])],
      drop_capabilities: [...(effective.capabilities.drop ?? [])],
    };
  }
  // Without runAsUser the runtime gets the user verified above, not its own reading of the image.
  if (runAsUser !== undefined) context.run_as_user = { value: runAsUser };
  else if (imageUser.uid !== undefined) context.run_as_user = { value: imageUser.uid };
  else context.run_as_username = imageUser.username;
  if (runAsGroup !== undefined) context.run_as_group = { value: runAsGroup };
  if (effective.seLinuxOptions) context.selinux_options = effective.seLinuxOptions;
  Object.assign(context, appArmorProfile(pod, container));
  return context;
}

/** As getSeccompProfile with seccompDefault off: the field's profile, else Unconfined. */
function seccompProfile(container: Container, profile: V1SeccompProfile | undefined, rootDir: string): SecurityProfile {
  if (!profile) return { profile_type: 'Unconfined' };
  switch (profile.type) {
    case 'RuntimeDefault':
      return { profile_type: 'RuntimeDefault' };
    case 'Localhost':
      if (!profile.localhostProfile) {
        throw securityError(container, 'localhostProfile must be set if seccompProfile type is Localhost.');
      }
      // Upstream joins it as it comes; the API server's validateLocalDescendingPath keeps it below the root, which a static pod never meets.
      return {
        profile_type: 'Localhost',
        localhost_ref: joinDescendingPath(seccompProfileRoot(rootDir), 'securityContext.seccompProfile.localhostProfile', profile.localhostProfile),
      };
    default:
      return { profile_type: 'Unconfined' };
  }
}

/** Upstream's validation.IsValidUserID bound: user IDs are 0 to 2^31 - 1. */
const MAX_USER_ID = 2_147_483_647;

/**
 * As verifyRunAsNonRoot: under runAsNonRoot, an explicit runAsUser must not be 0,
 * and without one the image's user must be a uid from 1 to 2^31 - 1. A user the
 * image names only by name cannot be shown not to be root, and is refused too.
 */
function verifyRunAsNonRoot(pod: Pod, container: Container, runAsNonRoot: boolean, runAsUser: number | undefined, imageUser: ImageUser): void {
  if (!runAsNonRoot) return;
  if (runAsUser !== undefined) {
    if (runAsUser === 0) throw securityError(container, "container's runAsUser breaks non-root policy", pod);
    return;
  }
  if (imageUser.uid === undefined) {
    const message = `container has runAsNonRoot and image has non-numeric user (${imageUser.username}), cannot verify user is non-root`;
    throw securityError(container, message, pod);
  }
  if (imageUser.uid === 0) throw securityError(container, 'container has runAsNonRoot and image will run as root', pod);
  if (!Number.isSafeInteger(imageUser.uid) || imageUser.uid < 0 || imageUser.uid > MAX_USER_ID) {
    const message =
      `container has runAsNonRoot and image has an invalid user id (${imageUser.uid}). (Must be 1-(${MAX_USER_ID})): ` +
      `must be between 0 and ${MAX_USER_ID}, inclusive`;
    throw securityError(container, message, pod);
  }
}

/**
 * runAsUser or runAsGroup as the runtime gets it: null is unset, as Go's decoding
 * makes it, and anything but an ID of 0 to 2^31 - 1 (upstream's IsValidUserID and
 * IsValidGroupID) is refused: a static pod's "0" would reach the runtime as root
 * while runAsNonRoot saw no 0.
 */
function securityId(pod: Pod, container: Container, value: unknown, field: 'runAsUser' | 'runAsGroup'): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_USER_ID) return value;
  throw securityError(container, `${field}: Invalid value: ${JSON.stringify(value)}: must be between 0 and ${MAX_USER_ID}, inclusive`, pod);
}

function securityError(container: Container, message: string, pod?: Pod): ShardletError {
  const ref = pod ? ` of pod ${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}` : '';
  return new ShardletError(ErrorCodes.CREATE_CONTAINER_CONFIG, `container ${container.name}${ref}: ${message}`, {
    container: container.name,
  });
}

/**
 * As getAppArmorProfile: the profile the pod asks for (appArmorProfileOf), as the
 * CRI's `apparmor` and the deprecated `apparmor_profile` string older runtimes read;
 * nothing when none is asked for, leaving the runtime's default.
 */
function appArmorProfile(pod: Pod, container: Container): Pick<LinuxContainerSecurityContext, 'apparmor' | 'apparmor_profile'> {
  const profile = appArmorProfileOf(pod, container);
  if (!profile) return {};
  switch (profile.type) {
    case 'RuntimeDefault':
      return { apparmor: { profile_type: 'RuntimeDefault' }, apparmor_profile: APPARMOR_ANNOTATION_RUNTIME_DEFAULT };
    case 'Unconfined':
      return { apparmor: { profile_type: 'Unconfined' }, apparmor_profile: APPARMOR_ANNOTATION_UNCONFINED };
    case 'Localhost': {
      const name = profile.localhostProfile ?? '';
      if (name.trim() === '') throw securityError(container, 'missing localhost apparmor profile name', pod);
      return {
        apparmor: { profile_type: 'Localhost', localhost_ref: name },
        apparmor_profile: APPARMOR_ANNOTATION_LOCALHOST_PREFIX + name,
      };
    }
    default:
      throw securityError(container, `unknown apparmor profile type: ${JSON.stringify(profile.type)}`, pod);
  }
}
