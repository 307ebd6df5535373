// upstream's rejectPodAdmissionBasedOnSupplementalGroupsPolicy (lifecycle/predicate.go):
// with the SupplementalGroupsPolicy gate beta or GA (GA and locked since 1.35), a pod
// asking for supplementalGroupsPolicy Strict is refused on a node whose runtime does
// not say it supports the policy (CRI Status features.supplemental_groups_policy,
// which upstream reports as the node's status.features), rather than run with the
// runtime's silent Merge.
import type { Pod } from '../types.js';

/** admit-pod.ts's AdmitResult, spelt out here: admit-pod imports this file. */
type AdmitResult = { admit: true } | { admit: false; reason: string; message: string };

export const REASON_SUPPLEMENTAL_GROUPS_POLICY_NOT_SUPPORTED = 'SupplementalGroupsPolicyNotSupported';
export const SUPPLEMENTAL_GROUPS_POLICY_NOT_SUPPORTED_MESSAGE = 'SupplementalGroupsPolicy=Strict is not supported in this node';

export function admitSupplementalGroupsPolicy(pod: Pod, runtimeSupportsPolicy: boolean): AdmitResult {
  const policy = pod.spec?.securityContext?.supplementalGroupsPolicy;
  if (policy === 'Strict' && !runtimeSupportsPolicy) {
    return { admit: false, reason: REASON_SUPPLEMENTAL_GROUPS_POLICY_NOT_SUPPORTED, message: SUPPLEMENTAL_GROUPS_POLICY_NOT_SUPPORTED_MESSAGE };
  }
  return { admit: true };
}
