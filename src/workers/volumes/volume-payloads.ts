// The files of the API-backed volumes, computed from the pod and the API objects
// the main thread fetched (PodApiData), as upstream's configmap.MakePayload,
// secret.MakePayload, downwardapi.CollectData and projectedVolumeMounter.collectData.
// Pure: nothing here touches the disk. A failure throws VolumePayloadError with
// upstream's message, which the caller wraps as "MountVolume.SetUp failed ...".
import type {
  V1ConfigMapProjection,
  V1ConfigMapVolumeSource,
  V1DownwardAPIVolumeFile,
  V1KeyToPath,
  V1ProjectedVolumeSource,
  V1SecretProjection,
  V1SecretVolumeSource,
  V1ServiceAccountTokenProjection,
} from '@kubernetes/client-node';
import { ShardletError } from '../../shared/errors.js';
import {
  serviceAccountTokenKey,
  type ConfigMapData,
  type PodApiData,
  type SecretData,
  type ShardSettings,
} from '../../shared/shard-protocol.js';
import type { Pod } from '../../shared/types.js';
import { containerResourceRuntimeValue, podFieldSelectorRuntimeValue, type EnvArgs } from '../kuberuntime/env.js';
import type { FileProjection, Payload } from './atomic-writer.js';

/** The API's defaults for defaultMode (ConfigMap/Secret/DownwardAPI/ProjectedVolumeSourceDefaultMode). */
export const CONFIG_MAP_DEFAULT_MODE = 0o644;
export const SECRET_DEFAULT_MODE = 0o644;
export const DOWNWARD_API_DEFAULT_MODE = 0o644;
export const PROJECTED_DEFAULT_MODE = 0o644;
/** The API's default for a projected serviceAccountToken's expirationSeconds. */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;

/** A volume's content cannot be produced; the message is upstream's. */
export class VolumePayloadError extends Error {
  override name = 'VolumePayloadError';
}

/** The object by name; null when the API server does not have it (or it was not fetched). */
function lookup<T>(objects: Record<string, T | null>, name: string): T | null {
  return Object.hasOwn(objects, name) ? objects[name] : null;
}

/** As the configmap manager's NotFound: `configmap "x" not found`. */
export function configMapNotFound(name: string): string {
  return `configmap "${name}" not found`;
}

export function secretNotFound(name: string): string {
  return `secret "${name}" not found`;
}

function decodeBase64(value: string): Buffer {
  return Buffer.from(value, 'base64');
}

/** As configmap.MakePayload: every key (data and binaryData) or the items' keys at their paths. */
export function configMapPayload(
  configMap: ConfigMapData,
  items: V1KeyToPath[] | undefined,
  defaultMode: number,
  optional: boolean,
): Payload {
  const contentOf = (key: string): Buffer | undefined => {
    if (Object.hasOwn(configMap.data ?? {}, key)) return Buffer.from(configMap.data[key], 'utf8');
    if (Object.hasOwn(configMap.binaryData ?? {}, key)) return decodeBase64(configMap.binaryData[key]);
    return undefined;
  };
  if (!items || items.length === 0) {
    const keys = [...Object.keys(configMap.data ?? {}), ...Object.keys(configMap.binaryData ?? {})];
    return Object.fromEntries(keys.map((key) => [key, { data: contentOf(key) as Buffer, mode: defaultMode }]));
  }
  return itemsPayload(items, contentOf, defaultMode, optional, (key) => `configmap references non-existent config key: ${key}`);
}

/** As secret.MakePayload: the (base64-decoded) data, every key or the items' keys at their paths. */
export function secretPayload(secret: SecretData, items: V1KeyToPath[] | undefined, defaultMode: number, optional: boolean): Payload {
  const contentOf = (key: string): Buffer | undefined =>
    Object.hasOwn(secret.data ?? {}, key) ? decodeBase64(secret.data[key]) : undefined;
  if (!items || items.length === 0) {
    return Object.fromEntries(Object.keys(secret.data ?? {}).map((key) => [key, { data: contentOf(key) as Buffer, mode: defaultMode }]));
  }
  return itemsPayload(items, contentOf, defaultMode, optional, (key) => `references non-existent secret key: ${key}`);
}

function itemsPayload(
  items: V1KeyToPath[],
  contentOf: (key: string) => Buffer | undefined,
  defaultMode: number,
  optional: boolean,
  missingKeyMessage: (key: string) => string,
): Payload {
  const payload: Payload = {};
  for (const item of items) {
    const data = contentOf(item.key);
    if (data === undefined) {
      if (optional) continue;
      throw new VolumePayloadError(missingKeyMessage(item.key));
    }
    payload[item.path] = { data, mode: item.mode ?? defaultMode };
  }
  return payload;
}

/** A configMap volume's payload; an absent ConfigMap is an empty one when optional, else an error. */
export function configMapVolumePayload(source: V1ConfigMapVolumeSource | V1ConfigMapProjection, apiData: PodApiData, defaultMode: number): Payload {
  const name = source.name ?? '';
  const optional = source.optional === true;
  const configMap = lookup(apiData.configMaps, name);
  if (configMap === null) {
    if (optional) return {};
    throw new VolumePayloadError(configMapNotFound(name));
  }
  return configMapPayload(configMap, source.items, defaultMode, optional);
}

export function secretVolumePayload(source: V1SecretVolumeSource | V1SecretProjection, apiData: PodApiData, defaultMode: number): Payload {
  const name = (source as V1SecretVolumeSource).secretName ?? (source as V1SecretProjection).name ?? '';
  const optional = source.optional === true;
  const secret = lookup(apiData.secrets, name);
  if (secret === null) {
    if (optional) return {};
    throw new VolumePayloadError(secretNotFound(name));
  }
  return secretPayload(secret, source.items, defaultMode, optional);
}

/**
 * As downwardapi.CollectData: each item's fieldRef or resourceFieldRef value; every
 * failing item is reported together, as upstream aggregates them.
 */
export function downwardApiPayload(pod: Pod, settings: ShardSettings, items: V1DownwardAPIVolumeFile[], defaultMode: number): Payload {
  const payload: Payload = {};
  const errors: string[] = [];
  const args: EnvArgs = { pod, container: pod.spec?.containers?.[0] ?? { name: '' }, podIPs: [], settings };
  for (const item of items) {
    try {
      let value = '';
      if (item.fieldRef) value = podFieldSelectorRuntimeValue(item.fieldRef, args);
      else if (item.resourceFieldRef) value = containerResourceRuntimeValue(item.resourceFieldRef, args);
      payload[item.path] = { data: Buffer.from(value, 'utf8'), mode: item.mode ?? defaultMode };
    } catch (err) {
      errors.push(causeOf(err));
    }
  }
  if (errors.length > 0) throw new VolumePayloadError(aggregate(errors));
  return payload;
}

/** The env helpers' errors carry the bare cause; volumes report that, not the container's context. */
function causeOf(err: unknown): string {
  if (err instanceof ShardletError && typeof err.details.cause === 'string') return err.details.cause;
  return (err as Error).message;
}

/** As utilerrors.NewAggregate(...).Error(): one message alone, several as "[a, b]" (duplicates once). */
export function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/** The token the main thread requested for a projected serviceAccountToken source, or why there is none. */
function tokenPayload(pod: Pod, source: V1ServiceAccountTokenProjection, apiData: PodApiData, mode: number): FileProjection {
  const expirationSeconds = source.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
  const token = lookup(apiData.serviceAccountTokens, serviceAccountTokenKey(source.audience ?? '', expirationSeconds));
  if (token === null) {
    const serviceAccount = `${pod.metadata?.namespace ?? ''}/${pod.spec?.serviceAccountName || 'default'}`;
    throw new VolumePayloadError(`failed to fetch token: no token for service account ${serviceAccount} (audience "${source.audience ?? ''}", expirationSeconds ${expirationSeconds})`);
  }
  return { data: Buffer.from(token.token, 'utf8'), mode };
}

/**
 * As projectedVolumeMounter.collectData: the sources merged in order (a later
 * source's path wins); the sources that fail are reported together.
 */
export function projectedPayload(pod: Pod, settings: ShardSettings, source: V1ProjectedVolumeSource, apiData: PodApiData): Payload {
  const defaultMode = source.defaultMode ?? PROJECTED_DEFAULT_MODE;
  const payload: Payload = {};
  const errors: string[] = [];
  for (const projection of source.sources ?? []) {
    try {
      if (projection.configMap) Object.assign(payload, configMapVolumePayload(projection.configMap, apiData, defaultMode));
      else if (projection.secret) Object.assign(payload, secretVolumePayload(projection.secret, apiData, defaultMode));
      else if (projection.downwardAPI) {
        Object.assign(payload, downwardApiPayload(pod, settings, projection.downwardAPI.items ?? [], defaultMode));
      } else if (projection.serviceAccountToken) {
        payload[projection.serviceAccountToken.path] = tokenPayload(pod, projection.serviceAccountToken, apiData, defaultMode);
      } else if (projection.clusterTrustBundle) {
        errors.push('clusterTrustBundle projections are not supported by shardlet');
      }
    } catch (err) {
      errors.push(causeOf(err));
    }
  }
  if (errors.length > 0) throw new VolumePayloadError(aggregate(errors));
  return payload;
}
