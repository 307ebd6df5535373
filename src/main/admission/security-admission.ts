// The kubelet's security admit handlers, set up once at start-up as upstream's
// NewMainKubelet does: the sysctl allowlist (the safe sysctls of this kernel and
// allowedUnsafeSysctls) and the AppArmor validator (whether this host can enforce
// AppArmor at all).
import { release } from 'node:os';
import { admitAppArmor } from '../../shared/admission/apparmor.js';
import type { AdmitResult } from '../../shared/admission/admit-pod.js';
import { SysctlAllowlist } from '../../shared/admission/sysctl-allowlist.js';
import type { Pod } from '../../shared/types.js';
import { appArmorHostProblem } from './apparmor-host.js';

export class SecurityAdmission {
  private readonly sysctls: SysctlAllowlist;
  private readonly appArmorHost: string | undefined;

  /** `allowedUnsafeSysctls` was checked by the configuration's validation. */
  constructor(allowedUnsafeSysctls: readonly string[], kernelRelease = release(), appArmorHost = appArmorHostProblem()) {
    this.sysctls = SysctlAllowlist.forNode(allowedUnsafeSysctls, kernelRelease);
    this.appArmorHost = appArmorHost;
  }

  /** Upstream's sysctl admit handler, which runs before the predicates: reason SysctlForbidden. */
  admitSysctls(pod: Pod): AdmitResult {
    return this.sysctls.admit(pod);
  }

  /** Upstream's AppArmor admit handler, which runs after the predicates: reason AppArmor. */
  admitAppArmor(pod: Pod): AdmitResult {
    return admitAppArmor(pod, this.appArmorHost);
  }
}
