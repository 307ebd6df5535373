// Sysctl names: which kernel namespace isolates a sysctl, the two spellings of a
// name, and what a pattern of allowedUnsafeSysctls may look like, as upstream's
// component-helpers node/util/sysctl (NormalizeName, GetNamespace) and
// IsValidSysctlPattern.

/** The kernel namespaces a sysctl can be isolated by; '' when it is not known to be namespaced. */
export type SysctlNamespace = 'IPC' | 'Net' | '';

/** Upstream's SysctlMaxLength. */
export const SYSCTL_MAX_LENGTH = 253;

// Upstream's SysctlSegmentFmt, and the last segment of a pattern, which may end in '*'.
const SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const PATTERN_LAST_SEGMENT = '([a-z0-9][-_a-z0-9]*)?[a-z0-9*]';
/** Upstream's SysctlContainSlashPatternFmt, quoted in the start-up error. */
export const SYSCTL_PATTERN_FORMAT = `(${SEGMENT}[\\./])*${PATTERN_LAST_SEGMENT}`;
const SYSCTL_PATTERN = new RegExp(`^${SYSCTL_PATTERN_FORMAT}$`);

// Names the IPC namespace isolates, the old `kernel.shm` and `kernel.msg` prefixes included.
const IPC_NAMES = new Set([
  'kernel.sem',
  'kernel.shmall',
  'kernel.shmmax',
  'kernel.shmmni',
  'kernel.shm_rmid_forced',
  'kernel.shm',
  'kernel.msgmax',
  'kernel.msgmnb',
  'kernel.msgmni',
  'kernel.msg',
]);

// Whole subtrees: every `net.` sysctl lives in the network namespace, `fs.mqueue.` in IPC.
const NAMESPACED_PREFIXES: ReadonlyArray<[string, SysctlNamespace]> = [
  ['net.', 'Net'],
  ['fs.mqueue.', 'IPC'],
];

/**
 * As NormalizeName: `net/ipv4/conf/eno2.100/rp_filter` becomes
 * `net.ipv4.conf.eno2/100.rp_filter`. A name whose first separator is a slash uses
 * slashes between segments, so dots and slashes swap; any other name is kept.
 */
export function normalizeSysctlName(name: string): string {
  const firstSeparator = name.search(/[./]/);
  if (firstSeparator === -1 || name[firstSeparator] === '.') return name;
  return name.replace(/[./]/g, (separator) => (separator === '.' ? '/' : '.'));
}

/** As namespaceOf: the namespace that isolates a (normalized) sysctl or prefix. */
export function sysctlNamespaceOf(name: string): SysctlNamespace {
  if (IPC_NAMES.has(name)) return 'IPC';
  for (const [prefix, namespace] of NAMESPACED_PREFIXES) if (name.startsWith(prefix)) return namespace;
  return '';
}

/** As GetNamespace: the namespace, the name or the prefix before its first '*', and whether it was a pattern. */
export function sysctlPatternNamespace(pattern: string): { namespace: SysctlNamespace; nameOrPrefix: string; prefixed: boolean } {
  const normalized = normalizeSysctlName(pattern);
  const star = normalized.indexOf('*');
  const nameOrPrefix = star === -1 ? normalized : normalized.slice(0, star);
  return { namespace: sysctlNamespaceOf(nameOrPrefix), nameOrPrefix, prefixed: star !== -1 };
}

/** As IsValidSysctlPattern: at most 253 characters, lowercase segments, '*' only at the end. */
export function isValidSysctlPattern(pattern: string): boolean {
  return pattern.length <= SYSCTL_MAX_LENGTH && SYSCTL_PATTERN.test(pattern);
}
