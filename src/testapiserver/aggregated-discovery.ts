// Aggregated discovery (apidiscovery.k8s.io/v2 APIGroupDiscoveryList), what
// kube-apiserver answers at /api and /apis when the Accept header asks for it,
// as kubectl 1.32 does first: every group, version and resource in one document,
// so the client need not fetch each group version's APIResourceList. The
// response's Content-Type names the conversion, which is how client-go tells it
// from the legacy APIVersions / APIGroupList.
import { apiGroups, resourcesOf, type ResourceDef } from './resources.js';
import { subresourceGroupVersionOf, subresourceKindOf, subresourceVerbsOf } from './discovery.js';

export const AGGREGATED_DISCOVERY_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

function resourceDiscovery(def: ResourceDef): object {
  return {
    resource: def.plural,
    // Group and version stay empty for the resource's own group version, as upstream writes them.
    responseKind: { group: '', version: '', kind: def.kind },
    scope: def.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: def.singular,
    verbs: def.verbs,
    ...(def.shortNames ? { shortNames: def.shortNames } : {}),
    ...(def.categories ? { categories: def.categories } : {}),
    ...(def.subresources.length
      ? {
          subresources: def.subresources.map((sub) => ({
            subresource: sub,
            responseKind: { group: '', version: '', ...subresourceGroupVersionOf(sub), kind: subresourceKindOf(def, sub).kind },
            verbs: subresourceVerbsOf(sub),
          })),
        }
      : {}),
  };
}

function groupDiscovery(group: string, version: string): object {
  return {
    metadata: { ...(group ? { name: group } : {}), creationTimestamp: null },
    versions: [{ version, resources: resourcesOf(group, version).map(resourceDiscovery), freshness: 'Current' }],
  };
}

/** /api's document (the core group) or /apis's (every other group). */
export function aggregatedDiscovery(path: '/api' | '/apis'): object {
  const items = path === '/api' ? [groupDiscovery('', 'v1')] : apiGroups().map(({ group, version }) => groupDiscovery(group, version));
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}
