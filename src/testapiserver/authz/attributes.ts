// What an authorizer decides on: the requester and upstream's RequestInfo
// (apiserver's RequestInfoFactory.NewRequestInfo), read from the method and URL
// alone, before the request is routed. /api/v1/... and /apis/<group>/<version>/...
// with a resource are resource requests; everything else (/version, /healthz,
// discovery documents, /openapi) is a non-resource request whose verb is the
// lower-cased method. A list or watch with a `metadata.name=<n>` field selector is
// a request for that name, which is how a node may list/watch one Secret.
import { parseFieldSelector, type Requirement } from '../selectors.js';
import type { ClientIdentity } from '../tls.js';

export interface AuthorizationAttributes {
  user: ClientIdentity;
  verb: string;
  resourceRequest: boolean;
  /** The URL path, for non-resource requests. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** The parsed field selector of a list, watch or deletecollection (what AuthorizeWithSelectors passes on). */
  fieldSelector: Requirement[];
}

/** Namespaces' own subresources: /api/v1/namespaces/<ns>/status is the namespace's status, not a resource "status". */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);
/** apimachinery's path.IsValidPathSegmentName: a name a URL path could carry. */
const INVALID_PATH_SEGMENT = /^\.\.?$|[/%]/;

function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function verbOfMethod(method: string): string {
  switch (method) {
    case 'POST': return 'create';
    case 'GET':
    case 'HEAD': return 'get';
    case 'PUT': return 'update';
    case 'PATCH': return 'patch';
    case 'DELETE': return 'delete';
    default: return '';
  }
}

function isWatch(query: URLSearchParams): boolean {
  const watch = query.get('watch');
  return watch !== null && !['false', '0', ''].includes(watch.toLowerCase());
}

function fieldSelectorOf(query: URLSearchParams): Requirement[] {
  try {
    return parseFieldSelector(query.get('fieldSelector'));
  } catch {
    return [];
  }
}

/** The value a selector pins a field to (fields.Selector.RequiresExactMatch). */
export function exactMatch(selector: Requirement[], field: string): string | undefined {
  return selector.find((r) => r.key === field && r.op === 'eq')?.values[0];
}

/** An attribute set for a non-resource path (also what a SubjectAccessReview's nonResourceAttributes become). */
export function nonResourceAttributes(user: ClientIdentity, verb: string, path: string): AuthorizationAttributes {
  return { user, verb, resourceRequest: false, path, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '', fieldSelector: [] };
}

export function requestAttributesOf(method: string, url: URL, user: ClientIdentity): AuthorizationAttributes {
  const path = url.pathname;
  const parts = path.split('/').filter((p) => p.length > 0).map(decodedSegment);
  const nonResource = nonResourceAttributes(user, method.toLowerCase(), path);
  const grouped = parts[0] === 'apis';
  if ((parts[0] !== 'api' && !grouped) || parts.length < (grouped ? 4 : 3)) return nonResource;
  const apiGroup = grouped ? parts[1] : '';
  const apiVersion = grouped ? parts[2] : parts[1];
  let rest = parts.slice(grouped ? 3 : 2);
  let verb = verbOfMethod(method);
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) rest = rest.slice(2);
  }
  const [resource = '', name = '', subresource = ''] = rest;
  const attributes: AuthorizationAttributes = {
    user, verb, resourceRequest: true, path, apiGroup, apiVersion, namespace, resource, subresource, name, fieldSelector: [],
  };
  if (!name && (verb === 'get' || verb === 'delete')) {
    verb = verb === 'delete' ? 'deletecollection' : isWatch(url.searchParams) ? 'watch' : 'list';
    attributes.verb = verb;
    attributes.fieldSelector = fieldSelectorOf(url.searchParams);
    const pinned = verb === 'deletecollection' ? undefined : exactMatch(attributes.fieldSelector, 'metadata.name');
    if (pinned && !INVALID_PATH_SEGMENT.test(pinned)) attributes.name = pinned;
  }
  return attributes;
}
