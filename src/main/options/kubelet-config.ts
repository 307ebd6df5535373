// Loads a KubeletConfiguration file (kubelet.config.k8s.io/v1beta1), applies
// upstream's v1beta1 defaults (pkg/kubelet/apis/config/v1beta1/defaults.go), lays
// the command-line flags over it (flags win, as upstream's
// kubeletConfigFlagPrecedence), validates the result and resolves it into the one
// KubeletOptions object the kubelet reads.
import { DEFAULT_RUNTIME_CREATION_LIMIT } from '../../shared/runtime-creation/creation-limit-setting.js';
import { parseGoDuration } from './duration.js';
import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { DecodeError, decodeSingleDocument, quote } from '../../shared/manifest/bounded-decode.js';
import { dns1123SubdomainError } from '../../shared/manifest/names.js';
import { DEFAULT_CONTAINER_RUNTIME_ENDPOINT, DEFAULT_READ_ONLY_PORT, DEFAULT_ROOT_DIR, defaultWorkers, MAX_VERBOSITY, type KubeletFlags } from './flags.js';
import { containerGcSettings } from './container-gc-settings.js';
import { listConfigDir, mergeFields, setFieldPath, settingsNotActedOn, upstreamFlagFields } from './config-sources.js';
import { checkFields, FieldError, isPlainObject, KUBELET_CONFIGURATION_FIELDS } from './kubelet-config-fields.js';
import { findConfigProblem, type ConfigProblem } from './kubelet-config-validation.js';
import { parseBytes } from '../../shared/quantity.js';
import type { ContainerLogOptions, KubeletOptions, KubeletServerOptions, NodeShutdownOptions, NodeTaint, ShutdownGracePeriodByPodPriority } from './kubelet-options.js';
import { findServerConfigProblem } from './kubelet-server-validation.js';
import { openShiftOnlyNodeLabels } from './node-labels.js';
import { featureGateWarnings } from './feature-gates.js';

export const KUBELET_CONFIG_API_VERSION = 'kubelet.config.k8s.io/v1beta1';
export const KUBELET_CONFIG_KIND = 'KubeletConfiguration';

const SYNC_FREQUENCY_MS = 60_000;
const FILE_CHECK_FREQUENCY_MS = 20_000;
const HTTP_CHECK_FREQUENCY_MS = 20_000;
const NODE_STATUS_UPDATE_FREQUENCY_MS = 10_000;
const NODE_STATUS_REPORT_FREQUENCY_MS = 300_000;
const RUNTIME_REQUEST_TIMEOUT_MS = 120_000;
const IMAGE_MINIMUM_GC_AGE_MS = 120_000;
/** authentication.webhook.cacheTTL, authorization.webhook.cacheAuthorizedTTL and cacheUnauthorizedTTL defaults. */
const WEBHOOK_TOKEN_CACHE_TTL_MS = 120_000;
const WEBHOOK_AUTHORIZED_CACHE_TTL_MS = 300_000;
const WEBHOOK_UNAUTHORIZED_CACHE_TTL_MS = 30_000;

/** Upstream's default volumeStatsAggPeriod. */
const DEFAULT_VOLUME_STATS_AGG_PERIOD_MS = 60_000;

/** Upstream defaults for fields whose Go type is not a pointer: a zero value ("", 0, "0s") also means unset. */
const ZERO_MEANS_DEFAULT: Readonly<Record<string, unknown>> = {
  syncFrequency: SYNC_FREQUENCY_MS,
  // kubeadm writes "0s"; upstream's defaulting makes it a minute, so only a negative period turns volume stats off.
  volumeStatsAggPeriod: DEFAULT_VOLUME_STATS_AGG_PERIOD_MS,
  fileCheckFrequency: FILE_CHECK_FREQUENCY_MS,
  httpCheckFrequency: HTTP_CHECK_FREQUENCY_MS,
  address: '0.0.0.0',
  port: 10_250,
  registryBurst: 10,
  eventBurst: 100,
  healthzBindAddress: '127.0.0.1',
  nodeStatusUpdateFrequency: NODE_STATUS_UPDATE_FREQUENCY_MS,
  nodeLeaseDurationSeconds: 40,
  imageMinimumGCAge: IMAGE_MINIMUM_GC_AGE_MS,
  cgroupDriver: 'cgroupfs',
  topologyManagerPolicy: 'none',
  topologyManagerScope: 'container',
  runtimeRequestTimeout: RUNTIME_REQUEST_TIMEOUT_MS,
  maxPods: 110,
  maxOpenFiles: 1_000_000,
  kubeAPIBurst: 100,
  containerLogMaxSize: '10Mi',
  containerRuntimeEndpoint: DEFAULT_CONTAINER_RUNTIME_ENDPOINT,
  podLogsDir: '/var/log/pods',
};

/** Duration fields a flag can set. */
const DURATION_FIELDS = new Set(['syncFrequency', 'fileCheckFrequency', 'httpCheckFrequency', 'runtimeRequestTimeout']);

/** Upstream defaults for pointer fields: only an absent value takes the default, an explicit 0 or "" stays. */
const NIL_MEANS_DEFAULT: Readonly<Record<string, unknown>> = {
  enableServer: true,
  registryPullQPS: 5,
  eventRecordQPS: 50,
  healthzPort: 10_248,
  oomScoreAdj: -999,
  imageGCHighThresholdPercent: 85,
  imageGCLowThresholdPercent: 80,
  cgroupsPerQOS: true,
  resolvConf: '/etc/resolv.conf',
  nodeStatusMaxImages: 50,
  kubeAPIQPS: 50,
  failSwapOn: true,
  registerNode: true,
  containerLogMaxFiles: 5,
  iptablesMasqueradeBit: 14,
  iptablesDropBit: 15,
  // DefaultEvictionHard of pkg/kubelet/eviction (Linux), taken when the file omits evictionHard.
  evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%', 'imagefs.available': '15%', 'imagefs.inodesFree': '5%' },
  evictionPressureTransitionPeriod: 300_000,
  streamingConnectionIdleTimeout: 14_400_000,
  cpuManagerPolicy: 'none',
  cpuManagerReconcilePeriod: 10_000,
  memoryManagerPolicy: 'None',
  hairpinMode: 'promiscuous-bridge',
  cpuCFSQuota: true,
  cpuCFSQuotaPeriod: 100,
  contentType: 'application/vnd.kubernetes.protobuf',
  enforceNodeAllocatable: ['pods'],
  volumePluginDir: '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/',
  enableControllerAttachDetach: true,
  makeIPTablesUtilChains: true,
  containerLogMaxWorkers: 1,
  containerLogMonitorInterval: 10_000,
  configMapAndSecretChangeDetectionStrategy: 'Watch',
  enableDebuggingHandlers: true,
  localStorageCapacityIsolation: true,
  memoryThrottlingFactor: 0.9,
  enableSystemLogHandler: true,
  enableProfilingHandler: true,
  enableDebugFlagsHandler: true,
  seccompDefault: false,
  rotateCertificates: false,
  serverTLSBootstrap: false,
};

/**
 * Upstream's applyLegacyDefaults: with no --config the command line keeps its old
 * defaults (read-only port 10255, anonymous auth on, no webhook authn/authz).
 */
const LEGACY_DEFAULTS_WITHOUT_CONFIG: Readonly<Record<string, unknown>> = {
  readOnlyPort: DEFAULT_READ_ONLY_PORT,
  authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
  authorization: { mode: 'AlwaysAllow' },
};

/** Flags that set a KubeletConfiguration field, with the field they set. */
const FLAG_FIELDS: ReadonlyArray<[keyof KubeletFlags, string, string]> = [
  ['containerRuntimeEndpoint', 'containerRuntimeEndpoint', 'container-runtime-endpoint'],
  ['imageServiceEndpoint', 'imageServiceEndpoint', 'image-service-endpoint'],
  ['podManifestPath', 'staticPodPath', 'pod-manifest-path'],
  ['manifestURL', 'staticPodURL', 'manifest-url'],
  ['manifestURLHeader', 'staticPodURLHeader', 'manifest-url-header'],
  ['maxPods', 'maxPods', 'max-pods'],
  ['runtimeRequestTimeoutMs', 'runtimeRequestTimeout', 'runtime-request-timeout'],
  ['serializeImagePulls', 'serializeImagePulls', 'serialize-image-pulls'],
  ['maxParallelImagePulls', 'maxParallelImagePulls', 'max-parallel-image-pulls'],
  ['syncFrequencyMs', 'syncFrequency', 'sync-frequency'],
  ['fileCheckFrequencyMs', 'fileCheckFrequency', 'file-check-frequency'],
  ['httpCheckFrequencyMs', 'httpCheckFrequency', 'http-check-frequency'],
  ['podPidsLimit', 'podPidsLimit', 'pod-pids-limit'],
  ['clusterDNS', 'clusterDNS', 'cluster-dns'],
  ['clusterDomain', 'clusterDomain', 'cluster-domain'],
  ['resolvConf', 'resolvConf', 'resolv-conf'],
  ['readOnlyPort', 'readOnlyPort', 'read-only-port'],
  ['registerNode', 'registerNode', 'register-node'],
  ['registerWithTaints', 'registerWithTaints', 'register-with-taints'],
];

/** A structurally valid config file: only the fields it sets, durations in ms. */
export interface KubeletConfigFile {
  path: string;
  fields: Readonly<Record<string, unknown>>;
  /** Lenient-decoding warnings: the unknown fields the strict pass refused, as upstream logs them. */
  warnings?: string[];
  /** Only --config-dir drop-ins, no --config file: they merge over the legacy flag defaults, as upstream. */
  dropInsOnly?: boolean;
}

/** Things outside the config that resolution reads; tests swap them. */
export interface ResolveEnv {
  hostname: () => string;
}

const DEFAULT_ENV: ResolveEnv = { hostname };

export async function loadKubeletConfig(path: string): Promise<KubeletConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ShardletError(ErrorCodes.CONFIG_INVALID, `${path}: cannot read the config file: ${(err as Error).message}`, { path });
  }
  return parseKubeletConfig(text, path);
}

/** Parses YAML or JSON text; throws ShardletError(CONFIG_INVALID) naming the file and the field path. */
export function parseKubeletConfig(text: string, path: string): KubeletConfigFile {
  const document = parseSingleDocument(text, path);
  const fail = (field: string, reason: string) =>
    new ShardletError(ErrorCodes.CONFIG_INVALID, `${path}: field "${field}": ${reason}`, { path, field });
  if (!isPlainObject(document)) throw new ShardletError(ErrorCodes.CONFIG_INVALID, `${path}: must hold a ${KUBELET_CONFIG_KIND} object`, { path });
  if (document.apiVersion !== KUBELET_CONFIG_API_VERSION) throw fail('apiVersion', `must be ${JSON.stringify(KUBELET_CONFIG_API_VERSION)}, got ${quote(document.apiVersion ?? '')}`);
  if (document.kind !== KUBELET_CONFIG_KIND) throw fail('kind', `must be ${JSON.stringify(KUBELET_CONFIG_KIND)}, got ${quote(document.kind ?? '')}`);
  // As upstream's DecodeKubeletConfiguration: strict first; when only unknown fields fail it,
  // decode leniently (dropping them) and warn, so kind's `metadata` loads.
  const unknownFields: string[] = [];
  try {
    const fields = checkFields(document, KUBELET_CONFIGURATION_FIELDS, '', unknownFields);
    if (unknownFields.length === 0) return { path, fields };
    const strictError = unknownFields.map((field) => `unknown field ${JSON.stringify(field)}`).join(', ');
    return { path, fields, warnings: [`${path}: using lenient decoding as strict decoding failed: strict decoding error: ${strictError}`] };
  } catch (err) {
    if (err instanceof FieldError) throw fail(err.fieldPath, err.message);
    throw err;
  }
}

/** The file's fields with upstream's v1beta1 defaults filled in (durations in ms). */
export function applyConfigDefaults(explicit: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...explicit };
  for (const [field, value] of Object.entries(ZERO_MEANS_DEFAULT)) {
    if (fields[field] === undefined || fields[field] === 0 || fields[field] === '') fields[field] = value;
  }
  for (const [field, value] of Object.entries(NIL_MEANS_DEFAULT)) fields[field] ??= value;
  // nodeStatusReportFrequency follows an explicitly set nodeStatusUpdateFrequency, for backward compatibility.
  if (!fields.nodeStatusReportFrequency) {
    fields.nodeStatusReportFrequency = explicit.nodeStatusUpdateFrequency || NODE_STATUS_REPORT_FREQUENCY_MS;
  }
  // nil or negative means "node allocatable limit only".
  if (fields.podPidsLimit === undefined || (fields.podPidsLimit as number) < 0) fields.podPidsLimit = -1;
  fields.serializeImagePulls ??= defaultSerializeImagePulls(fields.maxParallelImagePulls as number | undefined);
  return fields;
}

/** Upstream: serial pulls unless maxParallelImagePulls asks for two or more, so users need not set both. */
function defaultSerializeImagePulls(maxParallelImagePulls: number | undefined): boolean {
  return maxParallelImagePulls === undefined || maxParallelImagePulls < 2;
}

/** Loads --config and the --config-dir drop-ins (if given) and merges the flags over them. */
export async function resolveKubeletOptions(flags: KubeletFlags, env: ResolveEnv = DEFAULT_ENV): Promise<KubeletOptions> {
  const options = await loadAndMerge(flags, env);
  await checkServingFiles(options);
  return options;
}

/**
 * Upstream loads tlsCertFile and tlsPrivateKeyFile at start-up and fails when they
 * cannot be read: checked here, before anything starts, naming the field.
 */
async function checkServingFiles(options: KubeletOptions): Promise<void> {
  for (const [field, flag, path] of [['tlsCertFile', 'tls-cert-file', options.tlsCertFile], ['tlsPrivateKeyFile', 'tls-private-key-file', options.tlsPrivateKeyFile]] as const) {
    if (path === '') continue;
    try {
      await access(path, constants.R_OK);
    } catch (err) {
      throw new ShardletError(ErrorCodes.CONFIG_INVALID, `${field} (--${flag}) ${path}: cannot read the serving certificate file: ${(err as Error).message}`, { field, path });
    }
  }
}

async function loadAndMerge(flags: KubeletFlags, env: ResolveEnv): Promise<KubeletOptions> {
  const file = flags.config ? await loadKubeletConfig(flags.config) : undefined;
  const configDir = flags.upstream?.['config-dir'] as string | undefined;
  if (!configDir) return mergeFlags(file, flags, env);
  const dropIns = await Promise.all((await listConfigDir(configDir)).map(loadKubeletConfig));
  // Drop-ins merge over the --config file in lexical order; errors still name the file a field came from last.
  const merged = dropIns.reduce<KubeletConfigFile>(
    (base, dropIn) => ({
      ...base,
      path: `${base.path ? `${base.path}, ` : ''}${dropIn.path}`,
      fields: mergeFields(base.fields, dropIn.fields),
      warnings: [...(base.warnings ?? []), ...(dropIn.warnings ?? [])],
    }),
    file ?? { path: '', fields: {}, dropInsOnly: true },
  );
  return mergeFlags(merged, flags, env);
}

/** Flags win over the file; the merged result is validated, naming the file field or flag a bad value came from. */
export function mergeFlags(config: KubeletConfigFile | undefined, flags: KubeletFlags, env: ResolveEnv = DEFAULT_ENV): KubeletOptions {
  const fileFields = config?.fields ?? {};
  const legacy = !config || config.dropInsOnly === true;
  const fields = applyConfigDefaults(legacy ? mergeFields(LEGACY_DEFAULTS_WITHOUT_CONFIG, fileFields) : fileFields);
  const flagByField = new Map<string, string>();
  for (const [field, value, flagName] of upstreamFlagFields(flags)) {
    // --feature-gates merges over the file's gates key by key (upstream's kubeletConfigFlagPrecedence).
    const flagValue = field === 'featureGates' ? { ...(fields.featureGates as Record<string, boolean> | undefined), ...(value as Record<string, boolean>) } : value;
    setFieldPath(fields, field, zeroDurationFlag(field, flagValue) ? ZERO_MEANS_DEFAULT[field] : flagValue);
    flagByField.set(field.split('.')[0]!, flagName);
  }
  for (const [flagKey, field, flagName] of FLAG_FIELDS) {
    if (flags[flagKey] === undefined) continue;
    fields[field] = zeroDurationFlag(field, flags[flagKey]) ? ZERO_MEANS_DEFAULT[field] : flags[flagKey];
    flagByField.set(field, flagName);
  }
  if (fileFields.serializeImagePulls === undefined && flags.serializeImagePulls === undefined) {
    fields.serializeImagePulls = defaultSerializeImagePulls(fields.maxParallelImagePulls as number | undefined);
  }
  const problem = findConfigProblem(fields) ?? findServerConfigProblem(fields);
  if (problem) throw problemError(problem, config, flagByField);
  return buildOptions(fields, flags, config, env);
}

/**
 * A duration flag of 0 means what 0 means in the file: the default. Upstream's
 * file decoding cannot tell 0s from unset (kubeadm writes `syncFrequency: 0s`),
 * and its validation has no rule for these periods, so one rule for both ways in
 * is "0 is the default, a negative value is refused".
 */
function zeroDurationFlag(field: string, value: unknown): boolean {
  return value === 0 && DURATION_FIELDS.has(field) && ZERO_MEANS_DEFAULT[field] !== undefined;
}

function problemError(problem: ConfigProblem, config: KubeletConfigFile | undefined, flagByField: Map<string, string>): ShardletError {
  const topField = problem.field.replace(/[[.].*$/, '');
  const flagName = flagByField.get(topField);
  if (flagName) {
    return new ShardletError(ErrorCodes.FLAG_INVALID, `invalid value for flag --${flagName}: ${problem.reason}`, { flag: flagName });
  }
  const where = config ? `${config.path}: ` : '';
  return new ShardletError(ErrorCodes.CONFIG_INVALID, `${where}field "${problem.field}": ${problem.reason}`, {
    path: config?.path,
    field: problem.field,
  });
}

function buildOptions(fields: Record<string, unknown>, flags: KubeletFlags, config: KubeletConfigFile | undefined, env: ResolveEnv): KubeletOptions {
  const runtimeEndpoint = fields.containerRuntimeEndpoint as string;
  const nodeIPs = flags.nodeIPs ?? [];
  const rootDir = flags.rootDir ?? DEFAULT_ROOT_DIR;
  const explicit = { ...(config?.fields ?? {}) };
  for (const [field] of upstreamFlagFields(flags)) explicit[field.split('.')[0]!] ??= true;
  return {
    configDir: (flags.upstream?.['config-dir'] as string | undefined) ?? '',
    bootstrapKubeconfig: (flags.upstream?.['bootstrap-kubeconfig'] as string | undefined) ?? '',
    // Upstream's --cert-dir default: <root-dir>/pki.
    certDir: (flags.upstream?.['cert-dir'] as string | undefined) || `${rootDir}/pki`,
    rotateCertificates: fields.rotateCertificates as boolean,
    serverTLSBootstrap: fields.serverTLSBootstrap as boolean,
    tlsCertFile: (fields.tlsCertFile as string | undefined) ?? '',
    tlsPrivateKeyFile: (fields.tlsPrivateKeyFile as string | undefined) ?? '',
    startupNotices: {
      deprecations: (flags.deprecations ?? []).map((entry) => entry.message),
      decodeWarnings: config?.warnings ?? [],
      notActedOn: settingsNotActedOn(explicit, flags),
      clusterWarnings: nodeLabelWarnings(flags.nodeLabels ?? {}),
      featureGateWarnings: featureGateWarnings((fields.featureGates as Record<string, boolean> | undefined) ?? {}),
    },
    rootDir,
    configFile: config?.path ?? '',
    kubeconfig: flags.kubeconfig ?? '',
    nodeName: resolveNodeName(flags.hostnameOverride, env),
    nodeIP: nodeIPs[0] ?? '',
    nodeIPs,
    runtimeEndpoint,
    imageEndpoint: (fields.imageServiceEndpoint as string | undefined) || runtimeEndpoint,
    podLogsDir: fields.podLogsDir as string,
    volumeStatsAggPeriodMs: fields.volumeStatsAggPeriod as number,
    workers: flags.workers ?? defaultWorkers(),
    verbosity: flags.verbosity ?? fileVerbosity(fields),
    // v1beta1's default is 0 (off) when a --config file omits it; without one, the legacy 10255.
    readOnlyPort: (fields.readOnlyPort as number | undefined) ?? 0,
    faultInjection: flags.faultInjection ?? false,
    plegRelistPeriodMs: flags.plegRelistPeriodMs || undefined,
    runtimeCreationLimit: flags.runtimeCreationLimit ?? DEFAULT_RUNTIME_CREATION_LIMIT,
    staticPodPath: (fields.staticPodPath as string | undefined) ?? '',
    staticPodURL: (fields.staticPodURL as string | undefined) ?? '',
    staticPodURLHeader: (fields.staticPodURLHeader as Record<string, string[]> | undefined) ?? {},
    fileCheckFrequencyMs: fields.fileCheckFrequency as number,
    httpCheckFrequencyMs: fields.httpCheckFrequency as number,
    syncFrequencyMs: fields.syncFrequency as number,
    runtimeRequestTimeoutMs: fields.runtimeRequestTimeout as number,
    streamingConnectionIdleTimeoutMs: fields.streamingConnectionIdleTimeout as number,
    serializeImagePulls: fields.serializeImagePulls as boolean,
    maxParallelImagePulls: fields.maxParallelImagePulls as number | undefined,
    registryPullQPS: fields.registryPullQPS as number,
    registryBurst: fields.registryBurst as number,
    imageGC: imageGcSettings(fields, flags),
    containerGC: containerGcSettings(flags),
    eviction: evictionSettings(fields, flags),
    ...podSettings(fields),
    ...nodeSettings(fields, flags),
    kubeletServer: serverSettings(fields),
    containerLogs: containerLogSettings(fields),
    nodeShutdown: nodeShutdownSettings(fields, flags),
  };
}

/** Upstream's logindConfigDirectory, where the kubelet's InhibitDelayMaxSec drop-in goes. */
export const DEFAULT_LOGIND_CONF_DIR = '/etc/systemd/logind.conf.d';

/** Graceful node shutdown; both gates are on by default, as upstream. */
function nodeShutdownSettings(fields: Record<string, unknown>, flags: KubeletFlags): NodeShutdownOptions {
  const gates = (fields.featureGates as Record<string, boolean> | undefined) ?? {};
  return {
    enabled: gates.GracefulNodeShutdown !== false,
    byPodPriorityEnabled: gates.GracefulNodeShutdownBasedOnPodPriority !== false,
    gracePeriodMs: (fields.shutdownGracePeriod as number | undefined) ?? 0,
    criticalPodsGracePeriodMs: (fields.shutdownGracePeriodCriticalPods as number | undefined) ?? 0,
    byPodPriority: (fields.shutdownGracePeriodByPodPriority as ShutdownGracePeriodByPodPriority[] | undefined) ?? [],
    logindConfDir: flags.logindConfDir || DEFAULT_LOGIND_CONF_DIR,
  };
}

/** The log rotation policy; containerLogMaxSize was checked to be a quantity by validation. */
function containerLogSettings(fields: Record<string, unknown>): ContainerLogOptions {
  return {
    maxSizeBytes: parseBytes(fields.containerLogMaxSize as string),
    maxFiles: fields.containerLogMaxFiles as number,
    maxWorkers: fields.containerLogMaxWorkers as number,
    monitorIntervalMs: fields.containerLogMonitorInterval as number,
  };
}

/** Upstream's ImageGCPeriod: how often unused images are looked for. */
const IMAGE_GC_PERIOD_MS = 5 * 60_000;

function imageGcSettings(fields: Record<string, unknown>, flags: KubeletFlags): KubeletOptions['imageGC'] {
  const gates = (fields.featureGates as Record<string, boolean> | undefined) ?? {};
  return {
    highThresholdPercent: fields.imageGCHighThresholdPercent as number,
    lowThresholdPercent: fields.imageGCLowThresholdPercent as number,
    minAgeMs: fields.imageMinimumGCAge as number,
    // ImageMaximumGCAge is beta and on by default since 1.30.
    maxAgeMs: gates.ImageMaximumGCAge === false ? 0 : ((fields.imageMaximumGCAge as number | undefined) ?? 0),
    periodMs: flags.imageGCPeriodMs || IMAGE_GC_PERIOD_MS,
  };
}

/** Upstream's evictionMonitoringPeriod. */
const EVICTION_MONITORING_PERIOD_MS = 10_000;

function evictionSettings(fields: Record<string, unknown>, flags: KubeletFlags): KubeletOptions['eviction'] {
  const grace = (fields.evictionSoftGracePeriod as Record<string, string> | undefined) ?? {};
  return {
    soft: (fields.evictionSoft as Record<string, string> | undefined) ?? {},
    // Validation has checked every value parses.
    softGracePeriodMs: Object.fromEntries(Object.entries(grace).map(([signal, text]) => [signal, parseGoDuration(text.trim()) ?? 0])),
    minimumReclaim: (fields.evictionMinimumReclaim as Record<string, string> | undefined) ?? {},
    pressureTransitionPeriodMs: fields.evictionPressureTransitionPeriod as number,
    maxPodGracePeriodSeconds: (fields.evictionMaxPodGracePeriod as number | undefined) ?? 0,
    monitoringPeriodMs: flags.evictionMonitoringPeriodMs || EVICTION_MONITORING_PERIOD_MS,
  };
}

/** The :10250 server's settings, with upstream's v1beta1 defaults for the nested authentication and authorization fields. */
function serverSettings(fields: Record<string, unknown>): KubeletServerOptions {
  const nested = (path: string): unknown => path.split('.').reduce<unknown>((value, key) => (isPlainObject(value) ? value[key] : undefined), fields);
  // 0s means unset for these TTLs (metav1.Duration, not a pointer), as upstream's defaulting.
  const ttlMs = (path: string, defaultMs: number): number => (nested(path) as number | undefined) || defaultMs;
  const clientCAFile = (nested('authentication.x509.clientCAFile') as string | undefined) ?? '';
  const authentication = {
    x509: clientCAFile ? { clientCAFile } : {},
    webhook: { enabled: (nested('authentication.webhook.enabled') as boolean | undefined) ?? true, cacheTTL: ttlMs('authentication.webhook.cacheTTL', WEBHOOK_TOKEN_CACHE_TTL_MS) },
    anonymous: { enabled: (nested('authentication.anonymous.enabled') as boolean | undefined) ?? false },
  };
  const authorization = {
    mode: (nested('authorization.mode') as string | undefined) || 'Webhook',
    webhook: {
      cacheAuthorizedTTL: ttlMs('authorization.webhook.cacheAuthorizedTTL', WEBHOOK_AUTHORIZED_CACHE_TTL_MS),
      cacheUnauthorizedTTL: ttlMs('authorization.webhook.cacheUnauthorizedTTL', WEBHOOK_UNAUTHORIZED_CACHE_TTL_MS),
    },
  };
  return {
    enableServer: fields.enableServer as boolean,
    address: fields.address as string,
    port: fields.port as number,
    tlsMinVersion: (fields.tlsMinVersion as string | undefined) ?? '',
    tlsCipherSuites: (fields.tlsCipherSuites as string[] | undefined) ?? [],
    clientCAFile,
    anonymousAuth: authentication.anonymous.enabled,
    webhookAuthentication: authentication.webhook.enabled,
    webhookAuthenticationCacheTtlMs: authentication.webhook.cacheTTL,
    authorizationMode: authorization.mode,
    webhookAuthorizedCacheTtlMs: authorization.webhook.cacheAuthorizedTTL,
    webhookUnauthorizedCacheTtlMs: authorization.webhook.cacheUnauthorizedTTL,
    enableDebuggingHandlers: fields.enableDebuggingHandlers as boolean,
    fineGrainedAuthz: (fields.featureGates as Record<string, boolean> | undefined)?.KubeletFineGrainedAuthz ?? true,
    healthzBindAddress: fields.healthzBindAddress as string,
    healthzPort: fields.healthzPort as number,
    resolvedConfig: { ...structuredClone(fields), authentication, authorization },
  };
}

function podSettings(fields: Record<string, unknown>) {
  return {
    maxPods: fields.maxPods as number,
    podsPerCore: (fields.podsPerCore as number | undefined) ?? 0,
    podPidsLimit: fields.podPidsLimit as number,
    clusterDNS: (fields.clusterDNS as string[] | undefined) ?? [],
    clusterDomain: (fields.clusterDomain as string | undefined) ?? '',
    resolvConf: fields.resolvConf as string,
    cgroupDriver: fields.cgroupDriver as string,
    cgroupRoot: (fields.cgroupRoot as string | undefined) ?? '',
    cgroupsPerQOS: fields.cgroupsPerQOS as boolean,
    enforceNodeAllocatable: ((fields.enforceNodeAllocatable as string[] | undefined) ?? []).filter((level) => level !== 'none'),
    systemReserved: (fields.systemReserved as Record<string, string> | undefined) ?? {},
    kubeReserved: (fields.kubeReserved as Record<string, string> | undefined) ?? {},
    evictionHard: (fields.evictionHard as Record<string, string> | undefined) ?? {},
    featureGates: (fields.featureGates as Record<string, boolean> | undefined) ?? {},
    allowedUnsafeSysctls: (fields.allowedUnsafeSysctls as string[] | undefined) ?? [],
  };
}

function nodeSettings(fields: Record<string, unknown>, flags: KubeletFlags) {
  const taints = (fields.registerWithTaints as NodeTaint[] | undefined) ?? [];
  return {
    kubeAPIQPS: fields.kubeAPIQPS as number,
    kubeAPIBurst: fields.kubeAPIBurst as number,
    eventRecordQPS: fields.eventRecordQPS as number,
    eventBurst: fields.eventBurst as number,
    registerNode: fields.registerNode as boolean,
    nodeLabels: flags.nodeLabels ?? {},
    registerWithTaints: taints.map(({ key, value, effect }) => (value === undefined ? { key, effect } : { key, value, effect })),
    providerID: (fields.providerID as string | undefined) ?? '',
    podCIDR: (fields.podCIDR as string | undefined) ?? '',
    nodeStatusUpdateFrequencyMs: fields.nodeStatusUpdateFrequency as number,
    nodeStatusReportFrequencyMs: fields.nodeStatusReportFrequency as number,
    nodeStatusMaxImages: fields.nodeStatusMaxImages as number,
    nodeLeaseDurationSeconds: fields.nodeLeaseDurationSeconds as number,
  };
}

/** As upstream's nodeutil.GetHostname: the override or the host name, trimmed and lowercased. */
function resolveNodeName(override: string | undefined, env: ResolveEnv): string {
  const nodeName = (override ?? env.hostname()).trim().toLowerCase();
  const reason = nodeName === '' ? 'must not be empty' : dns1123SubdomainError(nodeName);
  if (reason) {
    const source = override === undefined ? `host name ${JSON.stringify(nodeName)}` : `--hostname-override ${JSON.stringify(nodeName)}`;
    throw new ShardletError(ErrorCodes.FLAG_INVALID, `node name from ${source} ${reason}; set --hostname-override`, { flag: 'hostname-override' });
  }
  return nodeName;
}

/** logging.verbosity from the file, used when -v is not given. */
function fileVerbosity(fields: Record<string, unknown>): number {
  const verbosity = (fields.logging as { verbosity?: number } | undefined)?.verbosity ?? 0;
  return Math.min(Math.max(verbosity, 0), MAX_VERBOSITY);
}

/** The one document of the file, decoded with the manifest parser's limits (nesting, aliases, binary). */
function parseSingleDocument(text: string, path: string): unknown {
  try {
    return decodeSingleDocument(text, KUBELET_CONFIG_KIND);
  } catch (err) {
    if (err instanceof DecodeError) throw new ShardletError(ErrorCodes.CONFIG_INVALID, `${path}: ${err.message}`, { path });
    throw err;
  }
}

/** One warning for --node-labels that only OpenShift's NodeRestriction lets a node set on itself. */
function nodeLabelWarnings(labels: Record<string, string>): string[] {
  const openShiftOnly = openShiftOnlyNodeLabels(labels);
  if (openShiftOnly.length === 0) return [];
  return [
    `--node-labels ${openShiftOnly.join(', ')}: OpenShift's NodeRestriction lets a node set these on itself; an upstream API server refuses them and the node will not register`,
  ];
}
