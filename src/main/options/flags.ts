// The kubelet's command line. Flag names, forms and meanings follow upstream's
// kubelet (pflag style: --flag=value, --flag value, boolean --flag or
// --flag=false, -v 4 / --v=4). Only flags actually given appear in the result,
// so that a flag overrides the config file only when the operator set it.
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { labelValueError, qualifiedNameError } from '../../shared/manifest/names.js';
import { parseGoDuration } from './duration.js';
import type { NodeTaint } from './kubelet-options.js';
import { parseTaintSpec } from './taints.js';

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
  help?: boolean;
  version?: boolean;
}

type FlagKey = keyof KubeletFlags;

interface FlagSpec {
  name: string;
  short?: string;
  key: FlagKey;
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

const FLAG_SPECS: FlagSpec[] = [
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
  { ...spec('help', 'help', '', 'Print this help and exit', 'false', parseBool), short: 'h' },
  spec('version', 'version', '', 'Print the version and exit', 'false', parseBool),
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
    try {
      flags[flag.key] = flag.parse(raw);
    } catch (err) {
      throw flagError(`invalid value ${JSON.stringify(raw)} for flag --${flag.name}: ${(err as Error).message}`, flag.name);
    }
  }
  return flags as KubeletFlags;
}

/** The text --help prints: every flag with its default. */
export function helpText(): string {
  const rows = FLAG_SPECS.map((flag) => {
    const names = `${flag.short ? `-${flag.short}, ` : '    '}--${flag.name}${flag.type ? ` ${flag.type}` : ''}`;
    return { names, text: `${flag.help} (default ${flag.defaultText})` };
  });
  const width = Math.max(...rows.map((row) => row.names.length)) + 2;
  const lines = rows.map((row) => `  ${row.names.padEnd(width)}${row.text}`);
  return ['Usage: shardlet [flags]', '', 'A Kubernetes kubelet for dense nodes.', '', 'Flags:', ...lines, ''].join('\n');
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
  return { name, key, type, help, defaultText, parse };
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
    const equals = item.indexOf('=');
    if (equals < 0) throw new Error(`${JSON.stringify(item)} is not key=value`);
    const key = item.slice(0, equals);
    const value = item.slice(equals + 1);
    const reason = qualifiedNameError(key) ?? labelValueError(value);
    if (reason) throw new Error(`label ${JSON.stringify(item)}: ${reason}`);
    labels[key] = value;
  }
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
