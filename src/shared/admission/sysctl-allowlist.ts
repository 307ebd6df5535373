// The kubelet's sysctl admission, as upstream's pkg/kubelet/sysctl: a pod may set
// only the safe sysctls (namespaced, and isolated from every other pod) and the
// namespaced ones the operator allowed with allowedUnsafeSysctls (names, or
// prefixes ending in '*'). Anything else is refused at admission with reason
// SysctlForbidden, before a sandbox exists, so it never reaches the runtime; so is a
// net sysctl of a host-network pod and an IPC one of a host-IPC pod, which would
// change the node's own setting.
import type { Pod } from '../types.js';
import type { AdmitResult } from './admit-pod.js';
import { isValidSysctlPattern, normalizeSysctlName, SYSCTL_MAX_LENGTH, SYSCTL_PATTERN_FORMAT, sysctlPatternNamespace, type SysctlNamespace } from './sysctl-names.js';

/** Upstream's sysctl.ForbiddenReason. */
export const REASON_SYSCTL_FORBIDDEN = 'SysctlForbidden';

/** Safe on every kernel a kubelet runs on (upstream's legacy safe list, always allowed). */
const SAFE_SYSCTLS = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
];

/** Safe only from the kernel release that namespaced them (upstream's utilkernel versions). */
const SAFE_SYSCTLS_SINCE_KERNEL: ReadonlyArray<[string, [number, number]]> = [
  ['net.ipv4.ip_local_reserved_ports', [3, 16]],
  ['net.ipv4.tcp_rmem', [4, 15]],
  ['net.ipv4.tcp_wmem', [4, 15]],
];

/** The release's major and minor (os.release(): "6.1.0-18-amd64"), undefined when it does not parse. */
function kernelVersion(release: string): [number, number] | undefined {
  const match = /^(\d+)\.(\d+)/.exec(release);
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

/**
 * As SafeSysctlAllowlist: the always-safe sysctls, and the newer ones the running
 * kernel namespaces; an unreadable release keeps to the always-safe list.
 */
export function safeSysctlAllowlist(kernelRelease: string): string[] {
  const version = kernelVersion(kernelRelease);
  const newer = SAFE_SYSCTLS_SINCE_KERNEL.filter(
    ([, [major, minor]]) => version !== undefined && (version[0] > major || (version[0] === major && version[1] >= minor)),
  );
  return [...SAFE_SYSCTLS, ...newer.map(([name]) => name)];
}

/** A pattern of allowedUnsafeSysctls upstream refuses to start with, and why; undefined when it is usable. */
export function sysctlPatternProblem(pattern: string): string | undefined {
  if (!isValidSysctlPattern(pattern)) {
    return `sysctl ${goQuote(pattern)} must have at most ${SYSCTL_MAX_LENGTH} characters and match regex ${SYSCTL_PATTERN_FORMAT}`;
  }
  const { namespace, nameOrPrefix } = sysctlPatternNamespace(pattern);
  return namespace === '' ? `the sysctls ${goQuote(nameOrPrefix)} are not known to be namespaced` : undefined;
}

/** As upstream's patternAllowlist: exact names and prefixes, each with the namespace that isolates it. */
export class SysctlAllowlist {
  private readonly names = new Map<string, SysctlNamespace>();
  private readonly prefixes = new Map<string, SysctlNamespace>();

  /** As NewAllowlist; throws on a pattern sysctlPatternProblem refuses (start-up validation has named it). */
  constructor(patterns: readonly string[]) {
    for (const pattern of patterns) {
      const problem = sysctlPatternProblem(pattern);
      if (problem) throw new Error(problem);
      const { namespace, nameOrPrefix, prefixed } = sysctlPatternNamespace(pattern);
      (prefixed ? this.prefixes : this.names).set(nameOrPrefix, namespace);
    }
  }

  /** The kubelet's allowlist: the safe sysctls of this kernel, then the operator's allowedUnsafeSysctls. */
  static forNode(allowedUnsafeSysctls: readonly string[], kernelRelease: string): SysctlAllowlist {
    return new SysctlAllowlist([...safeSysctlAllowlist(kernelRelease), ...allowedUnsafeSysctls]);
  }

  /** As patternAllowlist.Admit: the first sysctl of the pod that is not allowed refuses it. */
  admit(pod: Pod): AdmitResult {
    for (const sysctl of pod.spec?.securityContext?.sysctls ?? []) {
      const problem = this.validate(String(sysctl?.name ?? ''), pod.spec?.hostNetwork === true, pod.spec?.hostIPC === true);
      if (problem) return { admit: false, reason: REASON_SYSCTL_FORBIDDEN, message: `forbidden sysctl: ${problem}` };
    }
    return { admit: true };
  }

  /** As validateSysctl: why the sysctl may not be set, undefined when it may. */
  private validate(name: string, hostNetwork: boolean, hostIPC: boolean): string | undefined {
    const sysctl = normalizeSysctlName(name);
    let namespace = this.names.get(sysctl);
    if (namespace === undefined) {
      for (const [prefix, prefixNamespace] of this.prefixes) {
        if (sysctl.startsWith(prefix)) {
          namespace = prefixNamespace;
          break;
        }
      }
    }
    if (namespace === undefined) return `${goQuote(sysctl)} not allowlisted`;
    if ((namespace === 'IPC' && hostIPC) || (namespace === 'Net' && hostNetwork)) {
      return `${goQuote(sysctl)} not allowed with host ${namespace} enabled`;
    }
    return undefined;
  }
}

/** Go's %q for the names in upstream's messages (JSON's quoting agrees for printable text). */
function goQuote(text: string): string {
  return JSON.stringify(text);
}
