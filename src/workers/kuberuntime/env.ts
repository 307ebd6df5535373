// Container environment, as upstream's Kubelet.makeEnvironmentVariables for the
// sources that need no API server: literal values with $(VAR) expansion of the
// variables defined before them, the downward API's fieldRef and resourceFieldRef.
// configMapKeyRef, secretKeyRef and envFrom need API reads and are refused for now;
// service links (enableServiceLinks) are left out for the same reason.
import { cpus, totalmem } from 'node:os';
import { statfsSync } from 'node:fs';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { containerLimits, effectiveRequests } from '../../shared/qos.js';
import { parseBytes, parseCpuMillis, type QuantityInput } from '../../shared/quantity.js';
import type { ShardSettings } from '../../shared/shard-protocol.js';
import type { Container, Pod } from '../../shared/types.js';
import { expand, mappingFor } from './expansion.js';
import type { V1EnvVar, V1ObjectFieldSelector, V1ResourceFieldSelector } from '@kubernetes/client-node';

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
}

/** The container's variables in definition order; a name defined twice keeps its last value. */
export function makeEnvironmentVariables(args: EnvArgs): EnvVar[] {
  const { container } = args;
  if ((container.envFrom ?? []).length > 0) {
    throw needsApiServer(args, 'envFrom');
  }
  const valuesByName = new Map<string, string>();
  const mapping = mappingFor(valuesByName);
  for (const envVar of container.env ?? []) {
    let value = envVar.value ?? '';
    if (value !== '') {
      value = expand(value, mapping);
    } else if (envVar.valueFrom) {
      value = valueFromSource(envVar, args);
    }
    valuesByName.set(envVar.name, value);
  }
  return [...valuesByName].map(([name, value]) => ({ name, value }));
}

function valueFromSource(envVar: V1EnvVar, args: EnvArgs): string {
  const source = envVar.valueFrom ?? {};
  if (source.fieldRef) return podFieldSelectorRuntimeValue(source.fieldRef, args);
  if (source.resourceFieldRef) return containerResourceRuntimeValue(source.resourceFieldRef, args);
  if (source.configMapKeyRef) throw needsApiServer(args, `env ${envVar.name} valueFrom.configMapKeyRef`);
  if (source.secretKeyRef) throw needsApiServer(args, `env ${envVar.name} valueFrom.secretKeyRef`);
  return '';
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
