// Value checks on the defaulted configuration, as upstream's
// ValidateKubeletConfiguration (pkg/kubelet/apis/config/validation) does for the
// fields shardlet reads or that are cheap to check. The first problem is reported,
// named by where the value came from (a file field or a flag).
import { parseGoDuration } from './duration.js';
import { isIP } from 'node:net';
import { isValidQuantity, parseBytes } from '../../shared/quantity.js';
import { featureGatesError } from './feature-gates.js';
import { taintError } from './taints.js';
import { sysctlPatternProblem } from '../../shared/admission/sysctl-allowlist.js';

/** Where a field's value came from, for the error message: `kubelet.yaml: field "maxPods"` or `flag --max-pods`. */
export type FieldOrigin = (field: string) => { code: string; where: string };

export interface ConfigProblem {
  field: string;
  reason: string;
}

type Fields = Readonly<Record<string, unknown>>;
type Check = (fields: Fields) => ConfigProblem | undefined;

const TOPOLOGY_MANAGER_POLICIES = ['none', 'best-effort', 'restricted', 'single-numa-node'];
const TOPOLOGY_MANAGER_SCOPES = ['container', 'pod'];
const CGROUP_DRIVERS = ['cgroupfs', 'systemd'];

/**
 * Frequencies and timeouts: a zero value, from the file or a flag, was replaced by
 * its default, so only negatives are left to refuse. Upstream's validation has no
 * rule for these; a negative period cannot work, so both ways in refuse it.
 */
const POSITIVE_DURATIONS = [
  'syncFrequency',
  'fileCheckFrequency',
  'httpCheckFrequency',
  'nodeStatusUpdateFrequency',
  'nodeStatusReportFrequency',
  'runtimeRequestTimeout',
];

const NON_NEGATIVE_INTS = [
  'maxPods',
  'podsPerCore',
  'kubeAPIQPS',
  'kubeAPIBurst',
  'eventRecordQPS',
  'eventBurst',
  'registryPullQPS',
  'registryBurst',
  'maxOpenFiles',
  'evictionMaxPodGracePeriod',
];

const CHECKS: Check[] = [
  ...POSITIVE_DURATIONS.map((field) => when(field, (ms) => (ms as number) <= 0, 'must be a positive duration (0 means the default)')),
  // The duration rules of upstream's ValidateKubeletConfiguration, for the fields only the file sets.
  when('imageMinimumGCAge', (ms) => (ms as number) < 0, 'must not be negative'),
  when('imageMaximumGCAge', (ms) => (ms as number) < 0, 'must not be negative'),
  (fields) =>
    (fields.imageMaximumGCAge as number | undefined ?? 0) > 0 && (fields.imageMaximumGCAge as number) <= (fields.imageMinimumGCAge as number)
      ? { field: 'imageMaximumGCAge', reason: 'must be greater than imageMinimumGCAge' }
      : undefined,
  ...['shutdownGracePeriod', 'shutdownGracePeriodCriticalPods'].map((field) =>
    when(field, (ms) => (ms as number) < 0 || ((ms as number) > 0 && (ms as number) < 1_000), 'must be either zero or otherwise >= 1s'),
  ),
  (fields) =>
    (fields.shutdownGracePeriodCriticalPods as number | undefined ?? 0) > (fields.shutdownGracePeriod as number | undefined ?? 0)
      ? { field: 'shutdownGracePeriodCriticalPods', reason: 'must be <= shutdownGracePeriod' }
      : undefined,
  checkShutdownGracePeriodByPodPriority,
  when('containerLogMonitorInterval', (ms) => (ms as number) < 3_000, 'must be at least 3s'),
  // The container log manager's checks (upstream's validation and NewContainerLogManager).
  when('containerLogMaxSize', (size) => !isValidQuantity(size as string) || parseBytes(size as string) <= 0, 'must be a positive resource quantity, e.g. 10Mi'),
  when('containerLogMaxFiles', (files) => (files as number) < 2, 'must be equal to or greater than 2'),
  when('containerLogMaxWorkers', (workers) => (workers as number) < 1, 'must be equal to or greater than 1'),
  ...NON_NEGATIVE_INTS.map((field) => range(field, 0, Number.MAX_SAFE_INTEGER)),
  when('nodeLeaseDurationSeconds', (value) => (value as number) <= 0, 'must be greater than 0'),
  range('port', 1, 65_535),
  range('readOnlyPort', 0, 65_535),
  range('healthzPort', 0, 65_535),
  range('oomScoreAdj', -1_000, 1_000),
  range('imageGCHighThresholdPercent', 0, 100),
  range('imageGCLowThresholdPercent', 0, 100),
  range('iptablesMasqueradeBit', 0, 31),
  range('iptablesDropBit', 0, 31),
  range('nodeStatusMaxImages', -1, Number.MAX_SAFE_INTEGER),
  range('maxParallelImagePulls', 1, Number.MAX_SAFE_INTEGER),
  (fields) =>
    fields.serializeImagePulls === true && (fields.maxParallelImagePulls as number | undefined ?? 1) > 1
      ? { field: 'maxParallelImagePulls', reason: 'cannot be larger than 1 unless serializeImagePulls is false' }
      : undefined,
  (fields) =>
    (fields.imageGCLowThresholdPercent as number) >= (fields.imageGCHighThresholdPercent as number)
      ? { field: 'imageGCLowThresholdPercent', reason: 'must be less than imageGCHighThresholdPercent' }
      : undefined,
  (fields) =>
    fields.systemCgroups && !fields.cgroupRoot ? { field: 'systemCgroups', reason: 'requires cgroupRoot to be set' } : undefined,
  when('runOnce', (value) => value === true, 'runOnce mode has been deprecated and must not be set'),
  oneOf('topologyManagerPolicy', TOPOLOGY_MANAGER_POLICIES),
  oneOf('topologyManagerScope', TOPOLOGY_MANAGER_SCOPES),
  oneOf('cgroupDriver', CGROUP_DRIVERS),
  checkEnforceNodeAllocatable,
  checkSoftEvictionGrace,
  checkClusterDNS,
  ...['evictionHard', 'evictionSoft', 'evictionMinimumReclaim'].map((field) => (fields: Fields) => checkEvictionMap(fields, field)),
  (fields) => {
    const reason = featureGatesError((fields.featureGates as Record<string, unknown> | undefined) ?? {});
    return reason ? { field: 'featureGates', reason } : undefined;
  },
  checkTaints,
  checkLogging,
  checkAllowedUnsafeSysctls,
];

/** The first problem with the defaulted fields, or undefined. */
export function findConfigProblem(fields: Fields): ConfigProblem | undefined {
  for (const check of CHECKS) {
    const problem = check(fields);
    if (problem) return problem;
  }
  return undefined;
}

function when(field: string, bad: (value: unknown) => boolean, reason: string): Check {
  return (fields) => (fields[field] !== undefined && bad(fields[field]) ? { field, reason } : undefined);
}

function range(field: string, min: number, max: number): Check {
  const reason = max === Number.MAX_SAFE_INTEGER ? `must be an integer >= ${min}` : `must be an integer from ${min} to ${max}`;
  return when(field, (value) => (value as number) < min || (value as number) > max, reason);
}

function oneOf(field: string, allowed: string[]): Check {
  return when(field, (value) => !allowed.includes(value as string), `must be one of: ${allowed.map((v) => JSON.stringify(v)).join(', ')}`);
}

/** Upstream's rules for shutdownGracePeriodByPodPriority: not with the two plain periods, and only with its gate. */
function checkShutdownGracePeriodByPodPriority(fields: Fields): ConfigProblem | undefined {
  const byPriority = (fields.shutdownGracePeriodByPodPriority as unknown[] | undefined) ?? [];
  if (byPriority.length === 0) return undefined;
  const field = 'shutdownGracePeriodByPodPriority';
  if ((fields.shutdownGracePeriod as number | undefined ?? 0) > 0 || (fields.shutdownGracePeriodCriticalPods as number | undefined ?? 0) > 0) {
    return { field, reason: 'Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time' };
  }
  const gates = (fields.featureGates as Record<string, unknown> | undefined) ?? {};
  if (gates.GracefulNodeShutdownBasedOnPodPriority === false) {
    return { field, reason: 'Specifying shutdownGracePeriodByPodPriority requires feature gate GracefulNodeShutdownBasedOnPodPriority' };
  }
  return undefined;
}

function checkClusterDNS(fields: Fields): ConfigProblem | undefined {
  const servers = (fields.clusterDNS as string[] | undefined) ?? [];
  const bad = servers.find((server) => isIP(server) === 0);
  return bad === undefined ? undefined : { field: 'clusterDNS', reason: `${JSON.stringify(bad)} is not an IP address` };
}

/** logging is component-base's LoggingConfiguration; of it we read verbosity, an unsigned integer upstream. */
function checkLogging(fields: Fields): ConfigProblem | undefined {
  const logging = fields.logging;
  if (logging === undefined) return undefined;
  if (typeof logging !== 'object' || logging === null || Array.isArray(logging)) return { field: 'logging', reason: 'must be an object' };
  const verbosity = (logging as Record<string, unknown>).verbosity;
  if (verbosity !== undefined && verbosity !== null && !(Number.isSafeInteger(verbosity) && (verbosity as number) >= 0)) {
    return { field: 'logging.verbosity', reason: 'must be an integer >= 0' };
  }
  return undefined;
}

/** Upstream's NewAllowlist refuses to start the kubelet on a pattern it cannot use. */
function checkAllowedUnsafeSysctls(fields: Fields): ConfigProblem | undefined {
  const patterns = (fields.allowedUnsafeSysctls as string[] | undefined) ?? [];
  for (const [index, pattern] of patterns.entries()) {
    const reason = sysctlPatternProblem(pattern);
    if (reason) return { field: `allowedUnsafeSysctls[${index}]`, reason };
  }
  return undefined;
}

function checkTaints(fields: Fields): ConfigProblem | undefined {
  const taints = (fields.registerWithTaints as Array<Record<string, unknown>> | undefined) ?? [];
  for (const [index, taint] of taints.entries()) {
    const reason = taint.timeAdded !== undefined ? 'timeAdded must not be set' : taintError(taint);
    if (reason) return { field: `registerWithTaints[${index}]`, reason };
  }
  return undefined;
}

/** Eviction signals of pkg/kubelet/eviction/api (Linux), as upstream's ParseThresholdConfig accepts. */
const EVICTION_SIGNALS = new Set([
  'memory.available', 'allocatableMemory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree',
  'containerfs.available', 'containerfs.inodesFree', 'pid.available',
]);
/** A resource.Quantity or a percentage, as upstream's parseThresholdStatement takes. */
const QUANTITY_OR_PERCENT = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+|[KMGTPE]i|[numkMGTPE])?|\d+(?:\.\d+)?%)$/;

function checkEvictionMap(fields: Fields, field: string): ConfigProblem | undefined {
  const thresholds = (fields[field] as Record<string, string> | undefined) ?? {};
  for (const [signal, value] of Object.entries(thresholds)) {
    if (!EVICTION_SIGNALS.has(signal)) return { field: `${field}.${signal}`, reason: `unsupported eviction signal ${JSON.stringify(signal)}` };
    if (!QUANTITY_OR_PERCENT.test(value.trim())) {
      return { field: `${field}.${signal}`, reason: `invalid threshold ${JSON.stringify(value)}: must be a quantity or a percentage` };
    }
    if (value.trim().startsWith('-')) return { field: `${field}.${signal}`, reason: `eviction threshold ${signal} must be positive: ${value}` };
  }
  return undefined;
}

const NODE_ALLOCATABLE_LEVELS = ['none', 'pods', 'system-reserved', 'kube-reserved', 'system-reserved-compressible', 'kube-reserved-compressible'];

/** As upstream's ValidateKubeletConfiguration: known levels, "none" alone, and only with cgroupsPerQOS. */
function checkEnforceNodeAllocatable(fields: Fields): ConfigProblem | undefined {
  const levels = (fields.enforceNodeAllocatable as string[] | undefined) ?? [];
  const unknown = levels.find((level) => !NODE_ALLOCATABLE_LEVELS.includes(level));
  if (unknown !== undefined) return { field: 'enforceNodeAllocatable', reason: `invalid option ${JSON.stringify(unknown)}, valid options are ${NODE_ALLOCATABLE_LEVELS.join(', ')}` };
  if (levels.includes('none') && levels.length > 1) return { field: 'enforceNodeAllocatable', reason: 'invalid combination, "none" cannot be combined with other options' };
  const enforced = levels.filter((level) => level !== 'none');
  if (enforced.length > 0 && fields.cgroupsPerQOS === false) {
    return { field: 'enforceNodeAllocatable', reason: 'is not supported unless cgroupsPerQOS (--cgroups-per-qos) is turned on' };
  }
  return undefined;
}

/** As upstream's ParseThresholdConfig: every soft threshold needs a grace period, and each grace period a valid duration. */
function checkSoftEvictionGrace(fields: Fields): ConfigProblem | undefined {
  const soft = (fields.evictionSoft as Record<string, string> | undefined) ?? {};
  const grace = (fields.evictionSoftGracePeriod as Record<string, string> | undefined) ?? {};
  for (const [signal, text] of Object.entries(grace)) {
    const ms = parseGoDuration(text.trim());
    if (ms === undefined || ms < 0) return { field: `evictionSoftGracePeriod.${signal}`, reason: `invalid duration ${JSON.stringify(text)}` };
  }
  for (const signal of Object.keys(soft)) {
    if (grace[signal] === undefined) return { field: `evictionSoft.${signal}`, reason: `grace period must be specified for the soft eviction threshold ${signal}` };
  }
  return undefined;
}
