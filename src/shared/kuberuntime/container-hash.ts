// The container spec hash stored in the io.kubernetes.container.hash annotation, as
// upstream's kubecontainer.HashContainer: computePodActions compares it with the hash
// of the current spec and restarts a running container whose spec changed.
//
// Which fields count: the whole container spec except `resources` and `resizePolicy`,
// as upstream's HashContainerWithoutResources (1.27–1.30) left resource changes to
// in-place resize instead of a restart. Upstream 1.31+ narrowed the hash to name and
// image (the only fields the API lets change on a running pod); hashing the rest too
// also catches a static pod manifest edited in place under the same UID.
//
// Stability: the hash is over omitEmptyJson (keys sorted, absent and empty values
// dropped, as upstream's json.Marshal with omitempty), so reordering keys or
// writing `env: []` instead of leaving it out does not restart a container.
import { createHash } from 'node:crypto';
import { omitEmptyJson } from '../canonical-json.js';
import type { Container } from '../types.js';

/** Spec fields left out of the hash: changing them must not restart the container. */
const FIELDS_NOT_HASHED: ReadonlySet<string> = new Set(['resources', 'resizePolicy']);

/** Hex digits kept: 32 bits, the width of upstream's fnv32a hash. */
const HASH_HEX_LENGTH = 8;

/** Stable short hex hash of the container spec, for the container hash annotation. */
export function hashContainer(container: Container): string {
  const hashed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(container)) {
    if (!FIELDS_NOT_HASHED.has(key)) hashed[key] = value;
  }
  const canonical = omitEmptyJson(hashed) ?? '{}';
  return createHash('sha256').update(canonical).digest('hex').slice(0, HASH_HEX_LENGTH);
}
