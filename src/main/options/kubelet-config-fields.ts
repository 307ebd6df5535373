// Every field of upstream's KubeletConfiguration (kubelet.config.k8s.io/v1beta1,
// staging/src/k8s.io/kubelet/config/v1beta1/types.go) with its JSON type, so an
// operator's existing kubelet.yaml loads as it is, while a misspelt or unknown
// field, or a value of the wrong type, is rejected with the field's path. Most of
// these fields are accepted and ignored; kubelet-config.ts reads the ones we use.
import { quote } from '../../shared/manifest/bounded-decode.js';
import { parseGoDuration } from './duration.js';

export type FieldType =
  | 'string'
  | 'bool'
  | 'int'
  | 'number'
  | 'duration'
  | 'stringList'
  | 'intList'
  /** map[string]string; quantities may be written unquoted (cpu: 1), so numbers are taken as strings. */
  | 'stringMap'
  | 'boolMap'
  /** map[string][]string (staticPodURLHeader). */
  | 'stringListMap'
  /** Any JSON value; for nested component-base types whose shape we do not check. */
  | 'any'
  | { object: FieldSchema }
  | { listOf: FieldSchema };

export type FieldSchema = Readonly<Record<string, FieldType>>;

const TAINT: FieldSchema = { key: 'string', value: 'string', effect: 'string', timeAdded: 'any' };

export const KUBELET_CONFIGURATION_FIELDS: FieldSchema = {
  apiVersion: 'string',
  kind: 'string',
  enableServer: 'bool',
  staticPodPath: 'string',
  podLogsDir: 'string',
  syncFrequency: 'duration',
  fileCheckFrequency: 'duration',
  httpCheckFrequency: 'duration',
  staticPodURL: 'string',
  staticPodURLHeader: 'stringListMap',
  address: 'string',
  port: 'int',
  readOnlyPort: 'int',
  tlsCertFile: 'string',
  tlsPrivateKeyFile: 'string',
  tlsCipherSuites: 'stringList',
  tlsCurvePreferences: 'intList',
  tlsMinVersion: 'string',
  rotateCertificates: 'bool',
  serverTLSBootstrap: 'bool',
  authentication: {
    object: {
      x509: { object: { clientCAFile: 'string' } },
      webhook: { object: { enabled: 'bool', cacheTTL: 'duration' } },
      anonymous: { object: { enabled: 'bool' } },
    },
  },
  authorization: {
    object: {
      mode: 'string',
      webhook: { object: { cacheAuthorizedTTL: 'duration', cacheUnauthorizedTTL: 'duration' } },
    },
  },
  registryPullQPS: 'int',
  registryBurst: 'int',
  imagePullCredentialsVerificationPolicy: 'string',
  preloadedImagesVerificationAllowlist: 'stringList',
  eventRecordQPS: 'int',
  eventBurst: 'int',
  enableDebuggingHandlers: 'bool',
  enableContentionProfiling: 'bool',
  healthzPort: 'int',
  healthzBindAddress: 'string',
  oomScoreAdj: 'int',
  clusterDomain: 'string',
  clusterDNS: 'stringList',
  streamingConnectionIdleTimeout: 'duration',
  nodeStatusUpdateFrequency: 'duration',
  nodeStatusReportFrequency: 'duration',
  nodeLeaseDurationSeconds: 'int',
  imageMinimumGCAge: 'duration',
  imageMaximumGCAge: 'duration',
  imageGCHighThresholdPercent: 'int',
  imageGCLowThresholdPercent: 'int',
  volumeStatsAggPeriod: 'duration',
  kubeletCgroups: 'string',
  systemCgroups: 'string',
  cgroupRoot: 'string',
  cgroupsPerQOS: 'bool',
  cgroupDriver: 'string',
  cpuManagerPolicy: 'string',
  singleProcessOOMKill: 'bool',
  cpuManagerPolicyOptions: 'stringMap',
  cpuManagerReconcilePeriod: 'duration',
  draManagerReconcilePeriod: 'duration',
  memoryManagerPolicy: 'string',
  topologyManagerPolicy: 'string',
  topologyManagerScope: 'string',
  topologyManagerPolicyOptions: 'stringMap',
  qosReserved: 'stringMap',
  runtimeRequestTimeout: 'duration',
  hairpinMode: 'string',
  maxPods: 'int',
  podCIDR: 'string',
  podPidsLimit: 'int',
  resolvConf: 'string',
  runOnce: 'bool',
  cpuCFSQuota: 'bool',
  cpuCFSQuotaPeriod: 'duration',
  nodeStatusMaxImages: 'int',
  maxOpenFiles: 'int',
  contentType: 'string',
  kubeAPIQPS: 'int',
  kubeAPIBurst: 'int',
  serializeImagePulls: 'bool',
  maxParallelImagePulls: 'int',
  evictionHard: 'stringMap',
  evictionSoft: 'stringMap',
  evictionSoftGracePeriod: 'stringMap',
  evictionPressureTransitionPeriod: 'duration',
  evictionMaxPodGracePeriod: 'int',
  evictionMinimumReclaim: 'stringMap',
  mergeDefaultEvictionSettings: 'bool',
  podsPerCore: 'int',
  enableControllerAttachDetach: 'bool',
  protectKernelDefaults: 'bool',
  makeIPTablesUtilChains: 'bool',
  iptablesMasqueradeBit: 'int',
  iptablesDropBit: 'int',
  featureGates: 'boolMap',
  failSwapOn: 'bool',
  memorySwap: { object: { swapBehavior: 'string' } },
  containerLogMaxSize: 'string',
  containerLogMaxFiles: 'int',
  containerLogMaxWorkers: 'int',
  containerLogMonitorInterval: 'duration',
  configMapAndSecretChangeDetectionStrategy: 'string',
  systemReserved: 'stringMap',
  kubeReserved: 'stringMap',
  reservedSystemCPUs: 'string',
  showHiddenMetricsForVersion: 'string',
  systemReservedCgroup: 'string',
  kubeReservedCgroup: 'string',
  enforceNodeAllocatable: 'stringList',
  allowedUnsafeSysctls: 'stringList',
  volumePluginDir: 'string',
  providerID: 'string',
  kernelMemcgNotification: 'bool',
  logging: {
    object: { format: 'string', flushFrequency: 'any', verbosity: 'int', vmodule: 'any', options: 'any' },
  },
  enableSystemLogHandler: 'bool',
  enableSystemLogQuery: 'bool',
  shutdownGracePeriod: 'duration',
  shutdownGracePeriodCriticalPods: 'duration',
  shutdownGracePeriodByPodPriority: { listOf: { priority: 'int', shutdownGracePeriodSeconds: 'int' } },
  crashLoopBackOff: { object: { maxContainerRestartPeriod: 'duration' } },
  reservedMemory: { listOf: { numaNode: 'int', limits: 'stringMap' } },
  enableProfilingHandler: 'bool',
  enableDebugFlagsHandler: 'bool',
  seccompDefault: 'bool',
  memoryThrottlingFactor: 'number',
  memoryReservationPolicy: 'string',
  registerWithTaints: { listOf: TAINT },
  registerNode: 'bool',
  tracing: { object: { endpoint: 'string', samplingRatePerMillion: 'int' } },
  localStorageCapacityIsolation: 'bool',
  containerRuntimeEndpoint: 'string',
  imageServiceEndpoint: 'string',
  failCgroupV1: 'bool',
  userNamespaces: { object: { idsPerPod: 'int' } },
  podHousekeepingPeriod: 'duration',
};

/** A structural problem at a field path ("authentication.x509.clientCAFile"). */
export class FieldError extends Error {
  constructor(
    readonly fieldPath: string,
    reason: string,
  ) {
    super(reason);
  }
}

/**
 * Checks `value` against `schema` and returns a copy with nulls dropped (YAML
 * `key:` with no value means unset, as Go's JSON decoding of null) and durations
 * converted to milliseconds. Throws FieldError on the first unknown field or
 * wrong type.
 */
export function checkFields(value: unknown, schema: FieldSchema, path = '', unknownFields?: string[]): Record<string, unknown> {
  if (!isPlainObject(value)) throw new FieldError(path || '(root)', `must be an object, got ${describe(value)}`);
  const checked: Record<string, unknown> = {};
  for (const [key, fieldValue] of Object.entries(value)) {
    const fieldPath = path ? `${path}.${key}` : key;
    const type = schema[key];
    // Lenient decoding (upstream's second pass) drops an unknown field and reports it.
    if (type === undefined && unknownFields) {
      unknownFields.push(fieldPath);
      continue;
    }
    if (type === undefined) throw new FieldError(fieldPath, 'unknown field');
    if (fieldValue === null || fieldValue === undefined) continue;
    checked[key] = checkValue(fieldValue, type, fieldPath, unknownFields);
  }
  return checked;
}

function checkValue(value: unknown, type: FieldType, path: string, unknownFields?: string[]): unknown {
  if (typeof type === 'object') {
    if ('object' in type) return checkFields(value, type.object, path, unknownFields);
    if (!Array.isArray(value)) throw new FieldError(path, `must be a list, got ${describe(value)}`);
    return value.map((item, index) => checkFields(item, type.listOf, `${path}[${index}]`, unknownFields));
  }
  switch (type) {
    case 'any':
      return value;
    case 'string':
      return expect(typeof value === 'string', value, path, 'a string');
    case 'bool':
      return expect(typeof value === 'boolean', value, path, 'true or false');
    case 'int':
      return expect(Number.isSafeInteger(value), value, path, 'an integer');
    case 'number':
      return expect(typeof value === 'number' && Number.isFinite(value), value, path, 'a number');
    case 'duration':
      return checkDuration(value, path);
    case 'stringList':
    case 'intList':
      return checkList(value, type === 'stringList' ? 'string' : 'int', path);
    case 'stringMap':
    case 'boolMap':
    case 'stringListMap':
      return checkMap(value, type, path);
  }
}

function checkDuration(value: unknown, path: string): number {
  const ms = typeof value === 'string' ? parseGoDuration(value) : undefined;
  if (ms === undefined) throw new FieldError(path, `must be a duration such as "20s", "1m30s" or "100ms", got ${describe(value)}`);
  return ms;
}

function checkList(value: unknown, itemType: 'string' | 'int', path: string): unknown[] {
  if (!Array.isArray(value)) throw new FieldError(path, `must be a list, got ${describe(value)}`);
  return value.map((item, index) => checkValue(item, itemType, `${path}[${index}]`));
}

function checkMap(value: unknown, type: 'stringMap' | 'boolMap' | 'stringListMap', path: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw new FieldError(path, `must be a map, got ${describe(value)}`);
  const checked: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const itemPath = `${path}.${key}`;
    if (type === 'boolMap') checked[key] = checkValue(item, 'bool', itemPath);
    else if (type === 'stringListMap') checked[key] = checkList(item, 'string', itemPath);
    else if (typeof item === 'number' && Number.isFinite(item)) checked[key] = String(item);
    else checked[key] = checkValue(item, 'string', itemPath);
  }
  return checked;
}

function expect(ok: boolean, value: unknown, path: string, what: string): unknown {
  if (!ok) throw new FieldError(path, `must be ${what}, got ${describe(value)}`);
  return value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (isPlainObject(value)) return 'an object';
  return quote(value);
}
