// The API objects a pod refers to, as upstream's podutil.VisitPodConfigmapNames and
// VisitPodSecretNames (volumes, projected sources, env, envFrom of every kind of
// container, imagePullSecrets), plus the projected serviceAccountToken sources the
// token manager serves. Pure: no I/O.
import type { V1Container, V1EphemeralContainer } from '@kubernetes/client-node';
import { serviceAccountTokenKey } from '../../../shared/shard-protocol.js';
import type { Pod } from '../../../shared/types.js';

/** The API server's defaulting of ServiceAccountTokenProjection.expirationSeconds. */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
/** A pod without spec.serviceAccountName runs as this one (the ServiceAccount admission plugin's default). */
export const DEFAULT_SERVICE_ACCOUNT_NAME = 'default';

export interface TokenReference {
  serviceAccountName: string;
  /** '' means the API server's default audience. */
  audience: string;
  expirationSeconds: number;
}

export interface ReferencedObjects {
  configMaps: Set<string>;
  secrets: Set<string>;
  /** One per distinct serviceAccountTokenKey(audience, expirationSeconds). */
  tokens: TokenReference[];
}

type AnyContainer = V1Container | V1EphemeralContainer;

function visitContainer(container: AnyContainer, refs: ReferencedObjects): void {
  for (const env of container.env ?? []) {
    const configMapName = env.valueFrom?.configMapKeyRef?.name;
    if (configMapName) refs.configMaps.add(configMapName);
    const secretName = env.valueFrom?.secretKeyRef?.name;
    if (secretName) refs.secrets.add(secretName);
  }
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef?.name) refs.configMaps.add(source.configMapRef.name);
    if (source.secretRef?.name) refs.secrets.add(source.secretRef.name);
  }
}

function visitVolumes(pod: Pod, refs: ReferencedObjects, serviceAccountName: string): void {
  const tokenKeys = new Set<string>();
  for (const volume of pod.spec?.volumes ?? []) {
    if (volume.configMap?.name) refs.configMaps.add(volume.configMap.name);
    if (volume.secret?.secretName) refs.secrets.add(volume.secret.secretName);
    for (const source of volume.projected?.sources ?? []) {
      if (source.configMap?.name) refs.configMaps.add(source.configMap.name);
      if (source.secret?.name) refs.secrets.add(source.secret.name);
      const token = source.serviceAccountToken;
      if (!token) continue;
      const audience = token.audience ?? '';
      const expirationSeconds = token.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
      const key = serviceAccountTokenKey(audience, expirationSeconds);
      if (tokenKeys.has(key)) continue;
      tokenKeys.add(key);
      refs.tokens.push({ serviceAccountName, audience, expirationSeconds });
    }
  }
}

/** Every ConfigMap, Secret and service account token the pod needs from the API server. */
export function referencedObjects(pod: Pod): ReferencedObjects {
  const refs: ReferencedObjects = { configMaps: new Set(), secrets: new Set(), tokens: [] };
  const spec = pod.spec;
  if (!spec) return refs;
  const serviceAccountName = spec.serviceAccountName || spec.serviceAccount || DEFAULT_SERVICE_ACCOUNT_NAME;
  visitVolumes(pod, refs, serviceAccountName);
  const containers: AnyContainer[] = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
  for (const container of containers) visitContainer(container, refs);
  for (const pullSecret of spec.imagePullSecrets ?? []) {
    if (pullSecret.name) refs.secrets.add(pullSecret.name);
  }
  return refs;
}
