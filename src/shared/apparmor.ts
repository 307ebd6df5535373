// A container's AppArmor profile, as upstream's pkg/security/apparmor: the
// container's securityContext.appArmorProfile, else the deprecated annotation
// `container.apparmor.security.beta.kubernetes.io/<container>` (static pods may
// still carry it), else the pod's securityContext.appArmorProfile. Both threads read
// it: admission (whether the pod needs AppArmor) and the shard (the CRI profile).
import type { V1AppArmorProfile } from '@kubernetes/client-node';
import type { Container, Pod } from './types.js';

export const APPARMOR_TYPE_RUNTIME_DEFAULT = 'RuntimeDefault';
export const APPARMOR_TYPE_UNCONFINED = 'Unconfined';
export const APPARMOR_TYPE_LOCALHOST = 'Localhost';

/** The deprecated per-container annotation and its values (v1.DeprecatedAppArmorBeta…). */
export const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';
export const APPARMOR_ANNOTATION_RUNTIME_DEFAULT = 'runtime/default';
export const APPARMOR_ANNOTATION_UNCONFINED = 'unconfined';
export const APPARMOR_ANNOTATION_LOCALHOST_PREFIX = 'localhost/';

/** As getProfileFromPodAnnotations: the annotation as a profile; an unknown value counts as none. */
function profileFromAnnotation(pod: Pod, containerName: string): V1AppArmorProfile | undefined {
  const value = pod.metadata?.annotations?.[APPARMOR_ANNOTATION_PREFIX + containerName];
  if (value === undefined) return undefined;
  if (value === APPARMOR_ANNOTATION_RUNTIME_DEFAULT) return { type: APPARMOR_TYPE_RUNTIME_DEFAULT };
  if (value === APPARMOR_ANNOTATION_UNCONFINED) return { type: APPARMOR_TYPE_UNCONFINED };
  if (value.startsWith(APPARMOR_ANNOTATION_LOCALHOST_PREFIX)) {
    return { type: APPARMOR_TYPE_LOCALHOST, localhostProfile: value.slice(APPARMOR_ANNOTATION_LOCALHOST_PREFIX.length) };
  }
  return undefined;
}

/** As apparmor.GetProfile: the profile the container runs under, undefined when none is asked for. */
export function appArmorProfileOf(pod: Pod, container: Pick<Container, 'name' | 'securityContext'>): V1AppArmorProfile | undefined {
  return (
    container.securityContext?.appArmorProfile ?? profileFromAnnotation(pod, container.name) ?? pod.spec?.securityContext?.appArmorProfile ?? undefined
  );
}

/** Init, app and ephemeral containers, as podutil.AllContainers. */
function allContainers(pod: Pod): Array<Pick<Container, 'name' | 'securityContext'>> {
  const spec = pod.spec;
  return [...(spec?.initContainers ?? []), ...(spec?.containers ?? []), ...(spec?.ephemeralContainers ?? [])];
}

/** As apparmor's isRequired: some profile other than Unconfined is asked for, by field or annotation. */
export function isAppArmorRequired(pod: Pod): boolean {
  const podProfile = pod.spec?.securityContext?.appArmorProfile;
  if (podProfile && podProfile.type !== APPARMOR_TYPE_UNCONFINED) return true;
  const confined = (profile: V1AppArmorProfile | undefined): boolean => profile !== undefined && profile.type !== APPARMOR_TYPE_UNCONFINED;
  if (allContainers(pod).some((container) => confined(container.securityContext?.appArmorProfile))) return true;
  return Object.entries(pod.metadata?.annotations ?? {}).some(
    ([key, value]) => key.startsWith(APPARMOR_ANNOTATION_PREFIX) && value !== APPARMOR_ANNOTATION_UNCONFINED,
  );
}

/**
 * As apparmor's validator.Validate: why the pod cannot run here, undefined when it
 * can. `hostProblem` is why this host cannot enforce AppArmor (undefined when it
 * can), found once at start-up as upstream's ValidateHost.
 */
export function appArmorProblem(pod: Pod, hostProblem: string | undefined): string | undefined {
  if (!isAppArmorRequired(pod)) return undefined;
  if (hostProblem !== undefined) return hostProblem;
  for (const container of allContainers(pod)) {
    const profile = appArmorProfileOf(pod, container);
    if (profile?.type === APPARMOR_TYPE_LOCALHOST && (profile.localhostProfile ?? '').trim() === '') {
      return `invalid empty AppArmor profile name: ${JSON.stringify(profile)}`;
    }
  }
  return undefined;
}
