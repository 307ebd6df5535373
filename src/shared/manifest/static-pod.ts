// Static pod defaults, as upstream's applyDefaults (pkg/kubelet/config/common.go):
// the API defaults first (the decoder applies them upstream), then a UID hashed
// from the pod and where it came from, the node-suffixed name, the default
// namespace, spec.nodeName, the config.hash / config.source annotations, the
// NoExecute toleration for file pods, and phase Pending.
import { createHash } from 'node:crypto';
import { sortedKeysJson } from '../canonical-json.js';
import { ErrorCodes, ShardletError } from '../errors.js';
import { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from '../labels.js';
import { FILE_SOURCE, HTTP_SOURCE, type Pod } from '../types.js';
import { dns1123SubdomainError } from './names.js';
import { setPodApiDefaults } from './pod-defaults.js';

export const DEFAULT_NAMESPACE = 'default';

export interface StaticPodOrigin {
  source: typeof FILE_SOURCE | typeof HTTP_SOURCE;
  /** The manifest file's path, or the manifest URL. */
  location: string;
  nodeName: string;
}

/** Returns a defaulted copy of `pod`; throws ShardletError(MANIFEST_INVALID) if the final name is invalid. */
export function applyStaticPodDefaults(pod: Pod, origin: StaticPodOrigin): Pod {
  const defaulted = structuredClone(pod);
  setPodApiDefaults(defaulted);
  const metadata = (defaulted.metadata ??= {});
  if (!metadata.uid) metadata.uid = staticPodUid(defaulted, origin);
  metadata.name = generatePodName(metadata.name ?? '', origin.nodeName);
  const nameError = dns1123SubdomainError(metadata.name);
  if (nameError) {
    throw new ShardletError(ErrorCodes.MANIFEST_INVALID, `${origin.location}: invalid pod: metadata.name: Invalid value: ${JSON.stringify(metadata.name)}: ${nameError}`, {
      origin: origin.location,
    });
  }
  if (!metadata.namespace) metadata.namespace = DEFAULT_NAMESPACE;
  defaulted.spec!.nodeName = origin.nodeName;
  // The generated UID is the hash of the manifest; upstream exposes it as config.hash.
  metadata.annotations = { ...metadata.annotations, [CONFIG_HASH_ANNOTATION]: metadata.uid, [CONFIG_SOURCE_ANNOTATION]: origin.source };
  // Only file pods get the toleration upstream: they must survive node problems (NoExecute taints).
  if (origin.source === FILE_SOURCE) addOrUpdateToleration(defaulted, { operator: 'Exists', effect: 'NoExecute' });
  defaulted.status = { ...defaulted.status, phase: 'Pending' };
  return defaulted;
}

/** Upstream's generatePodName: "<name>-<lowercased node name>", unique among nodes. */
export function generatePodName(name: string, nodeName: string): string {
  return `${name}-${nodeName.toLowerCase()}`;
}

/**
 * As upstream's applyDefaults: a hash of the decoded pod, then of "host:<node>" and
 * "file:<path>" for a file, or "url:<url>" for a URL (newer upstream writes the
 * source after the pod because hashing the object resets the hasher). Upstream
 * hashes Go's encoding of the pod; we hash its sortedKeysJson (sorted keys, every value kept), so
 * the UID is stable across reads and changes whenever the content changes. md5
 * as upstream used (recent upstream moved to FNV-128a, also 32 hex digits).
 */
export function staticPodUid(pod: Pod, origin: StaticPodOrigin): string {
  const hasher = createHash('md5');
  hasher.update(sortedKeysJson(pod));
  if (origin.source === FILE_SOURCE) {
    hasher.update(`host:${origin.nodeName}`);
    hasher.update(`file:${origin.location}`);
  } else {
    hasher.update(`url:${origin.location}`);
  }
  return hasher.digest('hex');
}

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** As upstream's AddOrUpdateTolerationInPod: replace an equal toleration, else append. */
function addOrUpdateToleration(pod: Pod, toleration: Toleration): void {
  const tolerations = (pod.spec!.tolerations ??= []) as Toleration[];
  const same = (other: Toleration) =>
    (other.key ?? '') === (toleration.key ?? '') &&
    (other.operator ?? 'Equal') === (toleration.operator ?? 'Equal') &&
    (other.value ?? '') === (toleration.value ?? '') &&
    (other.effect ?? '') === (toleration.effect ?? '');
  const index = tolerations.findIndex(same);
  if (index >= 0) tolerations[index] = toleration;
  else tolerations.push(toleration);
}
