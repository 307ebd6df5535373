// Maps a URL path to a resource request, as the apiserver's RequestInfoResolver:
// /api/v1[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]] and the same
// under /apis/<group>/<version>.
import type { ResourceRequest } from './context.js';
import { findResource, resourceKey } from './resources.js';

export interface GroupVersion {
  group: string;
  version: string;
  rest: string[];
}

/** Splits /api/v1/... and /apis/<group>/<version>/... into the group/version and the rest. */
export function splitApiPath(pathname: string): GroupVersion | undefined {
  const parts = pathname.split('/').filter((p) => p.length > 0).map(decodeURIComponent);
  if (parts[0] === 'api' && parts.length >= 2) return { group: '', version: parts[1], rest: parts.slice(2) };
  if (parts[0] === 'apis' && parts.length >= 3) return { group: parts[1], version: parts[2], rest: parts.slice(3) };
  return undefined;
}

export function parseResourcePath(gv: GroupVersion, query: URLSearchParams): ResourceRequest | undefined {
  const { group, version, rest } = gv;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const def = findResource(group, version, rest[2]);
    if (def?.namespaced) {
      if (rest.length > 5) return undefined;
      return { def, key: resourceKey(def), namespace: rest[1], name: rest[3], subresource: rest[4], query };
    }
  }
  const def = findResource(group, version, rest[0] ?? '');
  if (!def || rest.length > 3) return undefined;
  return { def, key: resourceKey(def), name: rest[1], subresource: rest[2], query };
}
