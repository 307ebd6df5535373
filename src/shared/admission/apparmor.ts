// The kubelet's AppArmor admission, as upstream's appArmorAdmitHandler: a new pod
// that asks for an AppArmor profile this node cannot enforce (AppArmor off in the
// kernel, or a Localhost profile without a name) is refused with reason AppArmor,
// rather than started unconfined or left to fail in the runtime.
import { appArmorProblem } from '../apparmor.js';
import type { Pod } from '../types.js';
import type { AdmitResult } from './admit-pod.js';

/** Upstream's lifecycle.AppArmorNotAdmittedReason. */
export const REASON_APPARMOR = 'AppArmor';

/** `hostProblem`: why the host cannot enforce AppArmor, undefined when it can (see appArmorProblem). */
export function admitAppArmor(pod: Pod, hostProblem: string | undefined): AdmitResult {
  // A pod already running or finished is not checked again (a static pod is Pending until it runs).
  const phase = pod.status?.phase;
  if (phase !== undefined && phase !== 'Pending') return { admit: true };
  const problem = appArmorProblem(pod, hostProblem);
  return problem === undefined ? { admit: true } : { admit: false, reason: REASON_APPARMOR, message: `Cannot enforce AppArmor: ${problem}` };
}
