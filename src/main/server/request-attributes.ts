// What a request to the kubelet API asks for, in the API server's terms, as
// upstream's nodeAuthorizerAttributesGetter builds it for the authorizer: verb from
// the HTTP method, resource `nodes`, the node's name, and a subresource by path.
// With KubeletFineGrainedAuthz (on by default since 1.33) /pods, /runningpods,
// /healthz, /configz, /statusz and /flagz are first checked as their own
// subresource (/flagz as nodes/configz: both show how the kubelet is configured)
// and then, as before the feature, as nodes/proxy: either one allows the request.

export interface RequestAttributes {
  verb: string;
  resource: 'nodes';
  subresource: string;
  /** The node's name. */
  name: string;
  path: string;
}

/**
 * Upstream's mapping of HTTP methods to API verbs (GetRequestAttributes). Any other
 * method, HEAD included, is authorized with the empty verb: a rule granting `get`
 * does not cover it, only `*` does.
 */
const VERB_BY_METHOD: ReadonlyMap<string, string> = new Map([
  ['GET', 'get'],
  ['POST', 'create'],
  ['PUT', 'update'],
  ['PATCH', 'patch'],
  ['DELETE', 'delete'],
]);

/** Paths with one subresource of their own. */
const SINGLE_SUBRESOURCE_PATHS: ReadonlyArray<[string, string]> = [
  ['/stats', 'stats'],
  ['/metrics', 'metrics'],
  ['/logs', 'log'],
  ['/checkpoint', 'checkpoint'],
];

/** Paths checked as a fine-grained subresource first, then as nodes/proxy. */
const FINE_GRAINED_PATHS: ReadonlyArray<[string, string]> = [
  ['/pods', 'pods'],
  ['/runningpods', 'pods'],
  ['/healthz', 'healthz'],
  ['/configz', 'configz'],
  ['/statusz', 'statusz'],
  ['/flagz', 'configz'],
];

/** As upstream's isSubpath: the path itself or anything below it ("/stats" matches "/stats/summary", not "/statsx"). */
export function isSubpath(path: string, parent: string): boolean {
  const trimmed = parent.replace(/\/$/, '');
  return path === trimmed || path.startsWith(`${trimmed}/`);
}

/** The attributes to authorize, in order; the first one allowed lets the request through. */
export function requestAttributes(method: string, path: string, nodeName: string, fineGrained = true): RequestAttributes[] {
  const verb = VERB_BY_METHOD.get(method) ?? '';
  const attributes = (subresource: string): RequestAttributes => ({ verb, resource: 'nodes', subresource, name: nodeName, path });
  const single = SINGLE_SUBRESOURCE_PATHS.find(([prefix]) => isSubpath(path, prefix));
  if (single) return [attributes(single[1])];
  const fine = FINE_GRAINED_PATHS.find(([prefix]) => isSubpath(path, prefix));
  if (fine && fineGrained) return [attributes(fine[1]), attributes('proxy')];
  return [attributes('proxy')];
}
