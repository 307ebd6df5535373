// Container environment, as upstream's Kubelet.makeEnvironmentVariables: envFrom
// (ConfigMaps and Secrets, with prefix; invalid names skipped with a warning), then
// env in order: literal values with $(VAR) expansion of the variables defined
// before them, the downward API's fieldRef and resourceFieldRef, and
// configMapKeyRef / secretKeyRef. ConfigMaps and Secrets come from the main thread
// (PodApiData, cluster mode); without it they are refused. Service links
// (enableServiceLinks) are left out: shardlet does not watch Services.
import { cpus, totalmem } from 'node:os';
import { statfsSync } from 'node:fs';
import { ContainerStartError, ErrorCodes, ShardletError } from '../../shared/errors.js';
import { containerLimits, effectiveRequests } from '../../shared/qos.js';
import { parseBytes, parseCpuMillis, type QuantityInput } from '../../shared/quantity.js';
import type { ConfigMapData, PodApiData, SecretData, ShardSettings } from '../../shared/shard-protocol.js';
import type { Container, Pod } from '../../shared/types.js';
import { expand, mappingFor } from './expansion.js';
import type { V1EnvFromSource, V1EnvVar, V1ObjectFieldSelector, V1ResourceFieldSelector } from '@kubernetes/client-node';

/** As validation.IsEnvVarName: the C-identifier-ish names plus '-' and '.', never '.', '..' or '..'-prefixed. */
const ENV_VAR_NAME_PATTERN = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** Resources the downward API exposes per container, as limits.<name> and requests.<name>. */
const DOWNWARD_API_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'];

export interface EnvVar {
  name: string;
  value: string;
}

export interface EnvArgs {
  pod: Pod;
  container: Container;
  /** The sandbox's IPs; empty for host-network pods (the node's IP stands in, as upstream reports it). */
  podIPs: string[];
  settings: ShardSettings;
  /** Cluster mode: the ConfigMaps and Secrets the env refers to (null: not found). */
  apiData?: PodApiData;
  /** Receives upstream's pod warning events (InvalidEnvironmentVariableNames). */
  recordWarning?: (reason: string, message: string) => void;
}

/** The container's variables in definition order; a name defined twice keeps its last value. */
export function makeEnvironmentVariables(args: EnvArgs): EnvVar[] {
  const { container } = args;
  const valuesByName = new Map<string, string>();
  for (const envFrom of container.envFrom ?? []) addEnvFrom(envFrom, args, valuesByName);
  const mapping = mappingFor(valuesByName);
  for (const envVar of container.env ?? []) {
    let value: string | undefined = envVar.value ?? '';
    if (value !== '') {
      value = expand(value, mapping);
    } else if (envVar.valueFrom) {
      value = valueFromSource(envVar, args);
      // An optional reference to a missing object or key leaves the variable unset.
      if (value === undefined) continue;
    }
    valuesByName.set(envVar.name, value);
  }
  return [...valuesByName].map(([name, value]) => ({ name, value }));
}

function valueFromSource(envVar: V1EnvVar, args: EnvArgs): string | undefined {
  const source = envVar.valueFrom ?? {};
  if (source.fieldRef) return podFieldSelectorRuntimeValue(source.fieldRef, args);
  if (source.resourceFieldRef) return containerResourceRuntimeValue(source.resourceFieldRef, args);
  if (source.configMapKeyRef) {
    const { name = '', key, optional } = source.configMapKeyRef;
    const configMap = configMapFor(name, optional === true, args, `env ${envVar.name} valueFrom.configMapKeyRef`);
    if (configMap === null) return undefined;
    if (Object.hasOwn(configMap.data ?? {}, key)) return configMap.data[key];
    if (optional) return undefined;
    throw apiObjectError(args, `couldn't find key ${key} in ConfigMap ${namespaceOf(args)}/${name}`);
  }
  if (source.secretKeyRef) {
    const { name = '', key, optional } = source.secretKeyRef;
    const secret = secretFor(name, optional === true, args, `env ${envVar.name} valueFrom.secretKeyRef`);
    if (secret === null) return undefined;
    if (Object.hasOwn(secret.data ?? {}, key)) return decodeSecretValue(secret.data[key]);
    if (optional) return undefined;
    throw apiObjectError(args, `couldn't find key ${key} in Secret ${namespaceOf(args)}/${name}`);
  }
  return '';
}

/** As makeEnvironmentVariables' EnvFrom loop: every data key, prefixed; invalid names skipped and reported. */
function addEnvFrom(envFrom: V1EnvFromSource, args: EnvArgs, valuesByName: Map<string, string>): void {
  let values: Record<string, string>;
  let kind: string;
  let name: string;
  if (envFrom.configMapRef) {
    name = envFrom.configMapRef.name ?? '';
    const configMap = configMapFor(name, envFrom.configMapRef.optional === true, args, 'envFrom');
    if (configMap === null) return;
    values = configMap.data ?? {};
    kind = 'configMap';
  } else if (envFrom.secretRef) {
    name = envFrom.secretRef.name ?? '';
    const secret = secretFor(name, envFrom.secretRef.optional === true, args, 'envFrom');
    if (secret === null) return;
    values = Object.fromEntries(Object.entries(secret.data ?? {}).map(([key, value]) => [key, decodeSecretValue(value)]));
    kind = 'secret';
  } else {
    return;
  }
  const invalidKeys: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    const variable = (envFrom.prefix ?? '') + key;
    if (!isEnvVarName(variable)) {
      invalidKeys.push(variable);
      continue;
    }
    valuesByName.set(variable, value);
  }
  if (invalidKeys.length > 0) {
    args.recordWarning?.(
      'InvalidEnvironmentVariableNames',
      `Keys [${invalidKeys.sort().join(', ')}] from the EnvFrom ${kind} ${namespaceOf(args)}/${name} were skipped since they are considered invalid environment variable names.`,
    );
  }
}

export function isEnvVarName(name: string): boolean {
  return ENV_VAR_NAME_PATTERN.test(name) && name !== '.' && !name.startsWith('..');
}

/** The ConfigMap, or null when it is missing and optional; a missing required one is `configmap "x" not found`. */
function configMapFor(name: string, optional: boolean, args: EnvArgs, what: string): ConfigMapData | null {
  if (!args.apiData) throw needsApiServer(args, what);
  const configMap = Object.hasOwn(args.apiData.configMaps, name) ? args.apiData.configMaps[name] : null;
  if (configMap === null && !optional) throw apiObjectError(args, `configmap "${name}" not found`);
  return configMap;
}

function secretFor(name: string, optional: boolean, args: EnvArgs, what: string): SecretData | null {
  if (!args.apiData) throw needsApiServer(args, what);
  const secret = Object.hasOwn(args.apiData.secrets, name) ? args.apiData.secrets[name] : null;
  if (secret === null && !optional) throw apiObjectError(args, `secret "${name}" not found`);
  return secret;
}

/** Secret values are base64 on the wire; the container sees the bytes as a string, as Go's string([]byte). */
function decodeSecretValue(value: string): string {
  return Buffer.from(value, 'base64').toString('utf8');
}

function namespaceOf(args: EnvArgs): string {
  return args.pod.metadata?.namespace ?? '';
}

/** Upstream's message as is: it becomes the container's waiting message under CreateContainerConfigError. */
function apiObjectError(args: EnvArgs, message: string): ShardletError {
  const pod = `${namespaceOf(args)}/${args.pod.metadata?.name ?? ''}`;
  return new ContainerStartError(ErrorCodes.CREATE_CONTAINER_CONFIG, message, 'CreateContainerConfigError', args.container.name ?? '', undefined, {
    pod,
    cause: message,
  });
}

function needsApiServer(args: EnvArgs, what: string): ShardletError {
  return configError(
    args,
    `${what} needs the API server, which shardlet does not read for container environments yet`,
  );
}

function configError(args: EnvArgs, message: string): ShardletError {
  const pod = `${args.pod.metadata?.namespace ?? ''}/${args.pod.metadata?.name ?? ''}`;
  return new ShardletError(ErrorCodes.CREATE_CONTAINER_CONFIG, `container ${args.container.name} of pod ${pod}: ${message}`, {
    pod,
    container: args.container.name,
    cause: message,
  });
}

/** The pod's IPs as env and /etc/hosts see them: the node's IP for host-network pods. */
export function effectivePodIPs(pod: Pod, podIPs: string[], settings: ShardSettings): string[] {
  if (podIPs.length > 0) return podIPs;
  return pod.spec?.hostNetwork && settings.hostIP ? [settings.hostIP] : [];
}

/** As Kubelet.podFieldSelectorRuntimeValue plus fieldpath.ExtractFieldPathAsString. */
export function podFieldSelectorRuntimeValue(selector: V1ObjectFieldSelector, args: EnvArgs): string {
  const { pod, settings } = args;
  const podIPs = effectivePodIPs(pod, args.podIPs, settings);
  const path = selector.fieldPath;
  switch (path) {
    case 'spec.nodeName':
      return pod.spec?.nodeName || settings.nodeName;
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'status.hostIP':
    case 'status.hostIPs':
      return settings.hostIP;
    case 'status.podIP':
      return podIPs[0] ?? '';
    case 'status.podIPs':
      return podIPs.join(',');
    case 'metadata.name':
      return pod.metadata?.name ?? '';
    case 'metadata.namespace':
      return pod.metadata?.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata?.uid ?? '';
    case 'metadata.labels':
      return formatMap(pod.metadata?.labels ?? {});
    case 'metadata.annotations':
      return formatMap(pod.metadata?.annotations ?? {});
  }
  const subscript = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(path);
  if (subscript) {
    const map = (subscript[1] === 'labels' ? pod.metadata?.labels : pod.metadata?.annotations) ?? {};
    return map[subscript[2]] ?? '';
  }
  throw configError(args, `unsupported fieldPath: ${path}`);
}

/** As fieldpath.FormatMap: sorted key="value" lines. */
function formatMap(map: Record<string, string>): string {
  return Object.keys(map)
    .sort()
    .map((key) => `${key}=${JSON.stringify(map[key])}`)
    .join('\n');
}

/**
 * As containerResourceRuntimeValue: a limit that is not set reads as the node's
 * capacity (upstream: allocatable), as defaultPodLimitsForDownwardAPI does.
 */
export function containerResourceRuntimeValue(selector: V1ResourceFieldSelector, args: EnvArgs): string {
  let container = args.container;
  if (selector.containerName) {
    const named = [...(args.pod.spec?.containers ?? []), ...(args.pod.spec?.initContainers ?? [])].find(
      (candidate) => candidate.name === selector.containerName,
    );
    if (!named) throw configError(args, `resourceFieldRef names no container ${selector.containerName}`);
    container = named;
  }
  const [kind, resource] = selector.resource.split('.', 2);
  if ((kind !== 'limits' && kind !== 'requests') || !DOWNWARD_API_RESOURCES.includes(resource)) {
    throw configError(args, `unsupported container resource: ${selector.resource}`);
  }
  const quantity =
    kind === 'limits' ? nodeDefaultedLimit(container, resource, args.settings) : (effectiveRequests(container)[resource] ?? 0);
  // A zero (or absent) divisor means 1, as ExtractContainerResourceValue reads it.
  const divisor = (selector.divisor ?? 0) as QuantityInput;
  if (resource === 'cpu') {
    const divisorMillis = parseCpuMillis(divisor) || 1000;
    return String(Math.ceil(parseCpuMillis(quantity) / divisorMillis));
  }
  const divisorUnits = parseBytes(divisor) || 1;
  return String(Math.ceil(parseBytes(quantity) / divisorUnits));
}

function nodeDefaultedLimit(container: Container, resource: string, settings: ShardSettings): QuantityInput {
  const limit = containerLimits(container)[resource];
  if (limit !== undefined) return limit;
  if (resource === 'cpu') return cpus().length;
  if (resource === 'memory') return totalmem();
  return nodeEphemeralStorageBytes(settings.rootDir);
}

function nodeEphemeralStorageBytes(rootDir: string): number {
  try {
    const stats = statfsSync(rootDir);
    return stats.blocks * stats.bsize;
  } catch {
    return 0;
  }
}
