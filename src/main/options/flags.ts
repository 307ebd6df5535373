// The kubelet's command line. Flag names, forms and meanings follow upstream's
// kubelet (pflag style: --flag=value, --flag value, boolean --flag or
// --flag=false, -v 4 / --v=4). Only flags actually given appear in the result,
// so that a flag overrides the config file only when the operator set it.
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { labelValueError, qualifiedNameError } from '../../shared/manifest/names.js';
import { parseGoDuration } from './duration.js';
import { parseFeatureGates } from './feature-gates.js';
import type { NodeTaint } from './kubelet-options.js';
import { parseTaintSpec } from './taints.js';
import { CONFIG_FLAG_DEPRECATION, UPSTREAM_FLAGS, type FlagGroup, type UpstreamFlag } from './upstream-flags.js';
import { nodeLabelsError } from './node-labels.js';
import { parseRuntimeCreationLimit, type RuntimeCreationLimit } from '../../shared/runtime-creation/creation-limit-setting.js';

export const DEFAULT_CONTAINER_RUNTIME_ENDPOINT = 'unix:///run/containerd/containerd.sock';
export const DEFAULT_ROOT_DIR = '/var/lib/kubelet';
export const DEFAULT_READ_ONLY_PORT = 10255;
export const MAX_WORKERS_BY_DEFAULT = 8;
/** Shard threads per core at most: each holds its own V8 heap and CRI channel, so more only costs memory. */
export const MAX_WORKERS_PER_CORE = 4;
/** Shard threads at most on any machine (1,000 threads reached 14.6 GB RSS and aborted). */
export const MAX_WORKERS = 256;
export const MAX_VERBOSITY = 10;

/** Flags the operator gave; every field is absent unless its flag was on the command line. */
export interface KubeletFlags {
  config?: string;
  kubeconfig?: string;
  containerRuntimeEndpoint?: string;
  imageServiceEndpoint?: string;
  hostnameOverride?: string;
  nodeIPs?: string[];
  podManifestPath?: string;
  manifestURL?: string;
  manifestURLHeader?: Record<string, string[]>;
  maxPods?: number;
  workers?: number;
  rootDir?: string;
  runtimeRequestTimeoutMs?: number;
  serializeImagePulls?: boolean;
  maxParallelImagePulls?: number;
  syncFrequencyMs?: number;
  fileCheckFrequencyMs?: number;
  httpCheckFrequencyMs?: number;
  podPidsLimit?: number;
  clusterDNS?: string[];
  clusterDomain?: string;
  resolvConf?: string;
  readOnlyPort?: number;
  registerNode?: boolean;
  nodeLabels?: Record<string, string>;
  registerWithTaints?: NodeTaint[];
  verbosity?: number;
  faultInjection?: boolean;
  /** shardlet's own: the period of image garbage collection (upstream's fixed ImageGCPeriod). */
  imageGCPeriodMs?: number;
  /** shardlet's own: the eviction manager's period (upstream's fixed evictionMonitoringPeriod). */
  evictionMonitoringPeriodMs?: number;
  /** shardlet's own: the period of the node-wide container garbage collection (upstream's fixed ContainerGCPeriod). */
  containerGCPeriodMs?: number;
  /** shardlet's own: where the logind drop-in for graceful node shutdown goes (upstream's fixed /etc/systemd/logind.conf.d). */
  logindConfDir?: string;
  /** shardlet's own: the period of the PLEG's full relist (upstream's fixed 1s relist period). */
  plegRelistPeriodMs?: number;
  /** shardlet's own: the runtime contention guard on sandbox and container creations in flight. */
  runtimeCreationLimit?: RuntimeCreationLimit;
  help?: boolean;
  version?: boolean;
  /** Upstream flags flags.ts has no field for, by flag name (see upstream-flags.ts). */
  upstream?: Record<string, unknown>;
  /** Deprecated flags given, with upstream's deprecation text, in command-line order. */
  deprecations?: Array<{ flag: string; message: string }>;
}

type FlagKey = Exclude<keyof KubeletFlags, 'upstream' | 'deprecations'>;

interface FlagSpec {
  name: string;
  short?: string;
  /** The KubeletFlags field; undefined stores the value in `upstream` under the flag name. */
  key?: FlagKey;
  group: FlagGroup;
  deprecated?: string;
  /** Placeholder shown in help; '' for booleans. */
  type: string;
  help: string;
  defaultText: string;
  /** Converts the raw text; throws a plain Error whose message says what is wrong. */
  parse: (raw: string) => unknown;
}

/** The largest --workers accepted: 4 per core, at most 256. */
export function maxWorkers(): number {
  return Math.min(MAX_WORKERS_PER_CORE * availableParallelism(), MAX_WORKERS);
}

/** Upstream-free default: one shard per spare core, at most 8, at least 1. */
export function defaultWorkers(): number {
  return Math.max(1, Math.min(availableParallelism() - 1, MAX_WORKERS_BY_DEFAULT));
}

const OWN_FLAG_SPECS: FlagSpec[] = [
  str('config', 'config', 'Path of the KubeletConfiguration file (kubelet.config.k8s.io/v1beta1); flags override it', '""'),
  str('kubeconfig', 'kubeconfig', 'Path of a kubeconfig for the API server; without it the kubelet runs standalone (static pods only)', '""'),
  str('container-runtime-endpoint', 'containerRuntimeEndpoint', 'CRI runtime endpoint', DEFAULT_CONTAINER_RUNTIME_ENDPOINT),
  str('image-service-endpoint', 'imageServiceEndpoint', 'CRI image service endpoint; the runtime endpoint when empty', '""'),
  str('hostname-override', 'hostnameOverride', 'Node name to use instead of the host name (lowercased)', 'the host name'),
  spec('node-ip', 'nodeIPs', 'ips', 'IP address(es) of the node, comma-separated (at most one per family)', 'detected', parseNodeIPs),
  str('pod-manifest-path', 'podManifestPath', 'Directory of static pod manifests, or one manifest file (staticPodPath)', '""'),
  str('manifest-url', 'manifestURL', 'URL serving a Pod or PodList of static pods (staticPodURL)', '""'),
  spec('manifest-url-header', 'manifestURLHeader', 'headers', "HTTP headers for --manifest-url, e.g. 'a:hello,b:again,a:world'", 'none', parseHeaders),
  spec('max-pods', 'maxPods', 'int', 'Number of pods that can run on this node (maxPods)', '110', intAtLeast(0)),
  spec('workers', 'workers', 'int', 'Shard worker threads running pod syncs; 0 runs them on the main thread', `min(os.availableParallelism() - 1, ${MAX_WORKERS_BY_DEFAULT}), at least 1 (here ${defaultWorkers()}); at most ${MAX_WORKERS_PER_CORE} per core and ${MAX_WORKERS} (here ${maxWorkers()})`, parseWorkers),
  str('root-dir', 'rootDir', 'Directory for kubelet files (pod directories)', DEFAULT_ROOT_DIR),
  spec('runtime-request-timeout', 'runtimeRequestTimeoutMs', 'duration', 'Timeout of every CRI call except pulls, logs, exec and attach; 0 means the default', '2m0s', parseDuration),
  spec('serialize-image-pulls', 'serializeImagePulls', '', 'Pull one image at a time, node-wide', 'true, false when maxParallelImagePulls > 1', parseBool),
  spec('max-parallel-image-pulls', 'maxParallelImagePulls', 'int', 'Most image pulls in flight, node-wide; needs --serialize-image-pulls=false to exceed 1', 'no limit', intAtLeast(1)),
  spec('sync-frequency', 'syncFrequencyMs', 'duration', 'Max period between syncs of each running pod; 0 means the default', '1m0s', parseDuration),
  spec('file-check-frequency', 'fileCheckFrequencyMs', 'duration', 'Period of the full rescan of --pod-manifest-path; 0 means the default', '20s', parseDuration),
  spec('http-check-frequency', 'httpCheckFrequencyMs', 'duration', 'Period of polls of --manifest-url; 0 means the default', '20s', parseDuration),
  spec('pod-pids-limit', 'podPidsLimit', 'int', 'Most processes in one pod; -1 for no pod-level limit', '-1', intAtLeast(-1)),
  spec('cluster-dns', 'clusterDNS', 'ips', 'Cluster DNS server IPs, comma-separated', 'none', parseIPList),
  str('cluster-domain', 'clusterDomain', 'Cluster DNS domain added to container search paths', '""'),
  str('resolv-conf', 'resolvConf', 'Resolver file used as the base of container DNS config', '/etc/resolv.conf'),
  spec('read-only-port', 'readOnlyPort', 'int', 'Port of the read-only status server on 127.0.0.1; 0 disables it', String(DEFAULT_READ_ONLY_PORT), parsePort),
  spec('register-node', 'registerNode', '', 'Register the node with the API server', 'true', parseBool),
  spec('node-labels', 'nodeLabels', 'labels', "Labels for node registration, e.g. 'a=b,node-role.kubernetes.io/worker='", 'none', parseLabels),
  spec('register-with-taints', 'registerWithTaints', 'taints', "Taints for node registration, e.g. 'key=value:NoSchedule,key2:NoExecute'", 'none', parseTaints),
  { ...spec('v', 'verbosity', 'int', `Log verbosity, 0-${MAX_VERBOSITY}`, '0', intBetween(0, MAX_VERBOSITY)), short: 'v' },
  spec('fault-injection', 'faultInjection', '', 'Testing only: allow tests to end a shard thread on purpose', 'false', parseBool),
  spec('eviction-monitoring-period', 'evictionMonitoringPeriodMs', 'duration', "Period of the eviction manager (upstream's fixed 10s)", '10s', parseDuration),
  spec('image-gc-period', 'imageGCPeriodMs', 'duration', "Period of image garbage collection (upstream's fixed ImageGCPeriod)", '5m0s', parseDuration),
  spec('container-gc-period', 'containerGCPeriodMs', 'duration', "Period of node-wide dead container garbage collection (upstream's fixed ContainerGCPeriod)", '1m0s', parseDuration),
  str('logind-conf-dir', 'logindConfDir', "Directory where graceful node shutdown writes logind's 99-kubelet.conf drop-in (upstream's fixed path)", '/etc/systemd/logind.conf.d'),
  spec('pleg-relist-period', 'plegRelistPeriodMs', 'duration', "Period of the PLEG's full relist (upstream's fixed 1s); with the runtime's container events it is only the safety net", '1s', parseDuration),
  spec('runtime-creation-limit', 'runtimeCreationLimit', 'string', 'Sandbox and container creations in flight at once, node-wide: adaptive (follows the runtime\'s latency, 2 to 64), a fixed number, or off (no limit, as upstream)', 'adaptive', parseRuntimeCreationLimit),
  { ...spec('help', 'help', '', 'Print this help and exit', 'false', parseBool), short: 'h' },
  spec('version', 'version', '', 'Print the version and exit', 'false', parseBool),
];

/** Own flags that upstream registers in AddKubeletConfigFlags, hence deprecated in favour of --config. */
const CONFIG_FILE_FLAGS = new Set([
  'container-runtime-endpoint', 'image-service-endpoint', 'pod-manifest-path', 'manifest-url', 'manifest-url-header', 'max-pods',
  'runtime-request-timeout', 'serialize-image-pulls', 'max-parallel-image-pulls', 'sync-frequency', 'file-check-frequency',
  'http-check-frequency', 'cluster-dns', 'cluster-domain', 'resolv-conf', 'read-only-port', 'register-node', 'register-with-taints',
]);
const GROUP_OF_OWN_FLAG: Readonly<Record<string, FlagGroup>> = {
  v: 'logging', help: 'generic', version: 'generic', workers: 'shardlet', 'fault-injection': 'shardlet', 'pod-pids-limit': 'shardlet',
  'image-gc-period': 'shardlet', 'container-gc-period': 'shardlet', 'eviction-monitoring-period': 'shardlet', 'logind-conf-dir': 'shardlet',
  'pleg-relist-period': 'shardlet', 'runtime-creation-limit': 'shardlet',
};

const FLAG_SPECS: FlagSpec[] = [
  ...OWN_FLAG_SPECS.map((flag): FlagSpec =>
    CONFIG_FILE_FLAGS.has(flag.name)
      ? { ...flag, group: 'config', deprecated: CONFIG_FLAG_DEPRECATION }
      : { ...flag, group: GROUP_OF_OWN_FLAG[flag.name] ?? 'kubelet' }),
  ...UPSTREAM_FLAGS.map(upstreamSpec),
];

/** Help section titles, in upstream's order of registration; shardlet's own flags last. */
const GROUP_TITLES: ReadonlyArray<[FlagGroup, string]> = [
  ['generic', 'Generic flags'],
  ['kubelet', 'Kubelet flags'],
  ['config', 'KubeletConfiguration flags (deprecated: set them in the --config file)'],
  ['logging', 'Logging flags'],
  ['shardlet', 'shardlet flags (not in upstream)'],
];

const SPEC_BY_NAME = new Map(FLAG_SPECS.map((flag) => [flag.name, flag]));
const SPEC_BY_SHORT = new Map(FLAG_SPECS.filter((flag) => flag.short).map((flag) => [flag.short!, flag]));

/** Parses argv (without node and script); throws ShardletError(FLAG_INVALID) naming the flag. */
export function parseFlags(argv: readonly string[]): KubeletFlags {
  const flags: Record<string, unknown> = {};
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    const { flag, inline } = lookupFlag(arg);
    let raw = inline;
    if (raw === undefined) {
      if (flag.type === '') raw = 'true';
      else if (index + 1 < argv.length) raw = argv[++index]!;
      else throw flagError(`flag needs an argument: --${flag.name}`, flag.name);
    }
    let value: unknown;
    try {
      value = flag.parse(raw);
    } catch (err) {
      throw flagError(`invalid value ${JSON.stringify(raw)} for flag --${flag.name}: ${(err as Error).message}`, flag.name);
    }
    if (flag.key) flags[flag.key] = value;
    else ((flags.upstream ??= {}) as Record<string, unknown>)[flag.name] = value;
    if (flag.deprecated) recordDeprecation(flags, flag);
  }
  return flags as KubeletFlags;
}

/** pflag prints a deprecated flag's notice each time it is set; we keep one per flag. */
function recordDeprecation(flags: Record<string, unknown>, flag: FlagSpec): void {
  const deprecations = (flags.deprecations ??= []) as Array<{ flag: string; message: string }>;
  if (deprecations.some((entry) => entry.flag === flag.name)) return;
  deprecations.push({ flag: flag.name, message: `Flag --${flag.name} has been deprecated, ${flag.deprecated}` });
}

function upstreamSpec(flag: UpstreamFlag): FlagSpec {
  const parse = upstreamParser(flag.type);
  const type = flag.type === 'eviction' || flag.type === 'map' ? 'mapStringString' : flag.type === 'bool' ? '' : flag.type;
  return {
    name: flag.name,
    group: flag.group,
    type: flag.name === 'feature-gates' ? 'mapStringBool' : type,
    help: flag.help,
    defaultText: '',
    parse: flag.name === 'feature-gates' ? parseFeatureGates : parse,
    ...(flag.deprecated ? { deprecated: flag.deprecated } : {}),
  };
}

/** The parser of an upstream flag type (a function, so FLAG_SPECS can use it while the module loads). */
function upstreamParser(type: UpstreamFlag['type']): (raw: string) => unknown {
  switch (type) {
    case 'string':
      return (raw) => raw;
    case 'bool':
      return parseBool;
    case 'int':
      return intBetween(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    case 'float':
      return parseFloatFlag;
    case 'duration':
      return parseDuration;
    case 'strings':
      return splitList;
    case 'map':
      return parseKeyValues;
    case 'eviction':
      return parseEvictionThresholds;
  }
}

function parseFloatFlag(raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw new Error('must be a number');
  return value;
}

/** pflag's mapStringString ("k=v,k2=v2"), as --system-reserved and --feature-gates-like flags take. */
function parseKeyValues(raw: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const item of splitList(raw)) {
    const equals = item.indexOf('=');
    if (equals <= 0) throw new Error(`${JSON.stringify(item)} is not key=value`);
    values[item.slice(0, equals).trim()] = item.slice(equals + 1).trim();
  }
  return values;
}

/** Upstream's eviction flag form: "memory.available<100Mi,nodefs.available<10%". */
function parseEvictionThresholds(raw: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const item of splitList(raw)) {
    const less = item.indexOf('<');
    if (less <= 0) throw new Error(`${JSON.stringify(item)} is not signal<quantity`);
    values[item.slice(0, less).trim()] = item.slice(less + 1).trim();
  }
  return values;
}

/** The text --help prints: flags in upstream's groups, alphabetical within each, deprecated ones marked as upstream does. */
export function helpText(): string {
  const rows = FLAG_SPECS.map((flag) => {
    const names = `${flag.short ? `-${flag.short}, ` : '    '}--${flag.name}${flag.type ? ` ${flag.type}` : ''}`;
    const defaultText = flag.defaultText ? ` (default ${flag.defaultText})` : '';
    const deprecated = flag.deprecated ? ` (DEPRECATED: ${flag.deprecated})` : '';
    return { group: flag.group, name: flag.name, names, text: `${flag.help}${defaultText}${deprecated}` };
  });
  const width = Math.max(...rows.map((row) => row.names.length)) + 2;
  const sections = GROUP_TITLES.flatMap(([group, title]) => [
    '',
    `${title}:`,
    ...rows.filter((row) => row.group === group).sort((a, b) => a.name.localeCompare(b.name)).map((row) => `  ${row.names.padEnd(width)}${row.text}`),
  ]);
  return ['Usage: shardlet [flags]', '', 'A Kubernetes kubelet for dense nodes.', ...sections, ''].join('\n');
}

function lookupFlag(arg: string): { flag: FlagSpec; inline?: string } {
  if (!arg.startsWith('-') || arg === '-' || arg === '--') {
    throw flagError(`unexpected argument ${JSON.stringify(arg)}: shardlet takes flags only`, arg);
  }
  const long = arg.startsWith('--');
  const body = arg.slice(long ? 2 : 1);
  const equals = body.indexOf('=');
  const name = equals < 0 ? body : body.slice(0, equals);
  const inline = equals < 0 ? undefined : body.slice(equals + 1);
  if (long) {
    const flag = SPEC_BY_NAME.get(name);
    if (!flag) throw flagError(`unknown flag: --${name}`, name);
    return { flag, inline };
  }
  // pflag shorthand: "-v 4", "-v=4" or "-v4".
  const flag = SPEC_BY_SHORT.get(name) ?? SPEC_BY_SHORT.get(body[0] ?? '');
  if (!flag) throw flagError(`unknown shorthand flag: -${name}`, name);
  if (name === flag.short || flag.type === '') return { flag, inline };
  return { flag, inline: body.slice(1) };
}

function flagError(message: string, flagName: string): ShardletError {
  return new ShardletError(ErrorCodes.FLAG_INVALID, message, { flag: flagName });
}

function spec(name: string, key: FlagKey, type: string, help: string, defaultText: string, parse: (raw: string) => unknown): FlagSpec {
  return { name, key, group: 'kubelet', type, help, defaultText, parse };
}

function str(name: string, key: FlagKey, help: string, defaultText: string): FlagSpec {
  return spec(name, key, 'string', help, defaultText, (raw) => raw);
}

function parseBool(raw: string): boolean {
  // strconv.ParseBool's spellings.
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(raw)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(raw)) return false;
  throw new Error('must be true or false');
}

function intBetween(min: number, max: number): (raw: string) => number {
  return (raw) => {
    const value = /^[-+]?\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new Error(max === Number.MAX_SAFE_INTEGER ? `must be an integer >= ${min}` : `must be an integer from ${min} to ${max}`);
    }
    return value;
  };
}

function intAtLeast(min: number): (raw: string) => number {
  return intBetween(min, Number.MAX_SAFE_INTEGER);
}

function parseWorkers(raw: string): number {
  const max = maxWorkers();
  const workers = intAtLeast(0)(raw);
  if (workers > max) {
    throw new Error(`must be an integer from 0 to ${max} (${MAX_WORKERS_PER_CORE} per core on ${availableParallelism()} cores, at most ${MAX_WORKERS})`);
  }
  return workers;
}

function parsePort(raw: string): number {
  return intBetween(0, 65_535)(raw);
}

function parseDuration(raw: string): number {
  const ms = parseGoDuration(raw);
  if (ms === undefined) throw new Error('must be a duration such as 20s, 1m30s or 100ms');
  return ms;
}

function splitList(raw: string): string[] {
  return raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

function parseIPList(raw: string): string[] {
  const ips = splitList(raw);
  for (const ip of ips) if (isIP(ip) === 0) throw new Error(`${JSON.stringify(ip)} is not an IP address`);
  return ips;
}

function parseNodeIPs(raw: string): string[] {
  const ips = parseIPList(raw);
  if (ips.length > 2 || (ips.length === 2 && isIP(ips[0]!) === isIP(ips[1]!))) {
    throw new Error('at most one IPv4 and one IPv6 address');
  }
  return ips;
}

function parseLabels(raw: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const item of splitList(raw)) {
    // As upstream's ConfigurationMap: a key without "=" gets an empty value (OpenShift passes
    // --node-labels=node-role.kubernetes.io/worker).
    const equals = item.indexOf('=');
    const key = equals < 0 ? item : item.slice(0, equals);
    const value = equals < 0 ? '' : item.slice(equals + 1);
    const reason = qualifiedNameError(key) ?? labelValueError(value);
    if (reason) throw new Error(`label ${JSON.stringify(item)}: ${reason}`);
    labels[key] = value;
  }
  const refused = nodeLabelsError(labels);
  if (refused) throw new Error(refused);
  return labels;
}

function parseTaints(raw: string): NodeTaint[] {
  return splitList(raw).map(parseTaintSpec);
}

function parseHeaders(raw: string): Record<string, string[]> {
  const headers: Record<string, string[]> = {};
  for (const item of splitList(raw)) {
    const colon = item.indexOf(':');
    if (colon <= 0) throw new Error(`${JSON.stringify(item)} is not name:value`);
    const name = item.slice(0, colon).trim();
    (headers[name] ??= []).push(item.slice(colon + 1).trim());
  }
  return headers;
}
