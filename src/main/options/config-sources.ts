// Where settings come from besides the --config file: --config-dir drop-ins
// (merged as upstream's mergeKubeletConfigurations: *.conf only, lexical order,
// each decoded over the previous result, so objects and maps merge key by key
// and lists are replaced), the upstream flags that set config fields, and the
// list of settings given that shardlet does not act on yet.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import type { KubeletFlags } from './flags.js';
import { isPlainObject } from './kubelet-config-fields.js';
import { UPSTREAM_FLAGS } from './upstream-flags.js';

/** Drop-in files of --config-dir, in the order they apply. */
export async function listConfigDir(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    throw new ShardletError(ErrorCodes.CONFIG_INVALID, `${dir}: cannot read the --config-dir directory: ${(err as Error).message}`, { path: dir });
  }
  return names.filter((name) => name.endsWith('.conf')).sort().map((name) => join(dir, name));
}

/** `over` decoded on top of `base` as Go's json.Unmarshal into an existing struct does. */
export function mergeFields(base: Readonly<Record<string, unknown>>, over: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    merged[key] = isPlainObject(value) && isPlainObject(merged[key]) ? mergeFields(merged[key] as Record<string, unknown>, value) : value;
  }
  return merged;
}

/** Sets a dotted field path ("authentication.webhook.enabled"), creating objects on the way. */
export function setFieldPath(fields: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let target = fields;
  for (const part of parts.slice(0, -1)) {
    target[part] = isPlainObject(target[part]) ? { ...(target[part] as Record<string, unknown>) } : {};
    target = target[part] as Record<string, unknown>;
  }
  target[parts.at(-1)!] = value;
}

/** Upstream flags given that set a config field: [field path, value, flag name]. */
export function upstreamFlagFields(flags: KubeletFlags): Array<[string, unknown, string]> {
  const given = flags.upstream ?? {};
  return UPSTREAM_FLAGS.filter((flag) => flag.field !== '' && given[flag.name] !== undefined).map((flag) => [flag.field, given[flag.name], flag.name]);
}

/**
 * KubeletConfiguration fields shardlet reads and acts on. Everything else an
 * operator sets is accepted and named in the one start-up warning.
 */
const ACTED_ON_FIELDS = new Set([
  'apiVersion', 'kind', 'containerRuntimeEndpoint', 'imageServiceEndpoint', 'staticPodPath', 'staticPodURL', 'staticPodURLHeader',
  'fileCheckFrequency', 'httpCheckFrequency', 'syncFrequency', 'runtimeRequestTimeout', 'serializeImagePulls', 'maxParallelImagePulls',
  'maxPods', 'podsPerCore', 'podPidsLimit', 'clusterDNS', 'clusterDomain', 'resolvConf', 'systemReserved', 'kubeReserved', 'evictionHard',
  'kubeAPIQPS', 'kubeAPIBurst', 'eventRecordQPS', 'eventBurst', 'registerNode', 'registerWithTaints', 'providerID', 'podCIDR',
  'nodeStatusUpdateFrequency', 'nodeStatusReportFrequency', 'nodeLeaseDurationSeconds', 'readOnlyPort', 'podLogsDir', 'logging.verbosity',
  'rotateCertificates', 'cgroupsPerQOS', 'cgroupDriver', 'cgroupRoot', 'enforceNodeAllocatable',
  'imageGCHighThresholdPercent', 'imageGCLowThresholdPercent', 'imageMinimumGCAge', 'imageMaximumGCAge',
  'evictionSoft', 'evictionSoftGracePeriod', 'evictionMinimumReclaim', 'evictionPressureTransitionPeriod', 'evictionMaxPodGracePeriod',
  'containerLogMaxSize', 'containerLogMaxFiles', 'containerLogMaxWorkers', 'containerLogMonitorInterval',
  // Graceful node shutdown: acted on where systemd-logind is on the system bus; elsewhere start-up says it is unavailable.
  'shutdownGracePeriod', 'shutdownGracePeriodCriticalPods', 'shutdownGracePeriodByPodPriority',
  // The kubelet API server (:10250) and healthz.
  'enableServer', 'address', 'port', 'tlsCertFile', 'tlsPrivateKeyFile', 'tlsMinVersion', 'tlsCipherSuites', 'serverTLSBootstrap',
  'authentication', 'authorization', 'enableDebuggingHandlers', 'healthzPort', 'healthzBindAddress',
  // The sysctl admission's allowlist.
  'allowedUnsafeSysctls',
  // How often /stats/summary's pod volumes are measured.
  'volumeStatsAggPeriod',
]);

/** Upstream flags outside the config that shardlet acts on (its own flags.ts fields are all acted on). */
const ACTED_ON_FLAGS = new Set([
  'config-dir', 'cert-dir', 'bootstrap-kubeconfig',
  // The container garbage collector's policy (upstream's GCPolicy).
  'minimum-container-ttl-duration', 'maximum-dead-containers-per-container', 'maximum-dead-containers',
]);

/** Accepted, but named as not acted on although their top-level field is (none today). */
const NOT_YET_FLAGS = new Set<string>();
const NOT_YET_FIELDS = new Set<string>();

/** Settings given (file fields as field paths, flags as --name) that shardlet does not act on yet. */
export function settingsNotActedOn(explicitFields: Readonly<Record<string, unknown>>, flags: KubeletFlags): string[] {
  const fromFile = leafPaths(explicitFields).filter((path) => NOT_YET_FIELDS.has(path) || !isActedOn(path));
  const flagFields = new Map(UPSTREAM_FLAGS.map((flag) => [flag.name, flag.field]));
  const fromFlags = Object.keys(flags.upstream ?? {})
    .filter((name) => {
      if (NOT_YET_FLAGS.has(name)) return true;
      const field = flagFields.get(name) ?? '';
      return field === '' ? !ACTED_ON_FLAGS.has(name) : NOT_YET_FIELDS.has(field) || !isActedOn(field);
    })
    .map((name) => `--${name}`);
  return [...new Set([...fromFile, ...fromFlags])];
}

function isActedOn(path: string): boolean {
  return ACTED_ON_FIELDS.has(path) || ACTED_ON_FIELDS.has(path.split('.')[0]!);
}

/** Top-level fields, and the leaves of `logging` (only its verbosity is read). */
function leafPaths(fields: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(fields).flatMap(([key, value]) =>
    key === 'logging' && isPlainObject(value) ? Object.keys(value).map((leaf) => `logging.${leaf}`) : [key]);
}
