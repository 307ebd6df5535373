// The version and discovery documents kubectl reads before anything else
// (/version, /api, /api/v1, /apis, /apis/<group>[/<version>]). kubectl 1.32 asks
// for aggregated discovery first and falls back to these when it gets plain JSON.
import { apiGroups, apiVersionOf, resourcesOf, type ResourceDef } from './resources.js';

export const SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-shardlet-test',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-01-01T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const SUBRESOURCE_VERBS: Record<string, string[]> = {
  status: ['get', 'patch', 'update'],
  approval: ['get', 'patch', 'update'],
  binding: ['create'],
  token: ['create'],
  eviction: ['create'],
  log: ['get'],
  exec: ['create', 'get'],
  attach: ['create', 'get'],
  portforward: ['create', 'get'],
  proxy: ['create', 'delete', 'get', 'patch', 'update'],
};

const SUBRESOURCE_KINDS: Record<string, string> = {
  binding: 'Binding',
  token: 'TokenRequest',
  eviction: 'Eviction',
  exec: 'PodExecOptions',
  attach: 'PodAttachOptions',
  portforward: 'PodPortForwardOptions',
  proxy: 'NodeProxyOptions',
};

/** Subresources whose kind lives in another group (kubectl drain finds Eviction's group/version here). */
const SUBRESOURCE_GROUP_VERSIONS: Record<string, { group: string; version: string }> = {
  token: { group: 'authentication.k8s.io', version: 'v1' },
  eviction: { group: 'policy', version: 'v1' },
};

/** The group, version and kind a subresource takes and returns (Binding, policy/v1 Eviction, …). */
export function subresourceKindOf(def: ResourceDef, sub: string): { group: string; version: string; kind: string } {
  return { group: def.group, version: def.version, ...subresourceGroupVersionOf(sub), kind: SUBRESOURCE_KINDS[sub] ?? def.kind };
}

export function subresourceVerbsOf(sub: string): string[] {
  return SUBRESOURCE_VERBS[sub] ?? ['get'];
}

/** The group and version of a subresource's kind when it differs from its resource's ({} otherwise). */
export function subresourceGroupVersionOf(sub: string): { group?: string; version?: string } {
  return SUBRESOURCE_GROUP_VERSIONS[sub] ?? {};
}

function resourceEntries(def: ResourceDef): object[] {
  const main = {
    name: def.plural,
    singularName: def.singular,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: def.verbs,
    ...(def.shortNames ? { shortNames: def.shortNames } : {}),
    ...(def.categories ? { categories: def.categories } : {}),
  };
  const subs = def.subresources.map((sub) => ({
    name: `${def.plural}/${sub}`,
    singularName: '',
    namespaced: def.namespaced,
    ...subresourceGroupVersionOf(sub),
    kind: SUBRESOURCE_KINDS[sub] ?? def.kind,
    verbs: subresourceVerbsOf(sub),
  }));
  return [main, ...subs];
}

export function apiResourceList(group: string, version: string): object | undefined {
  const defs = resourcesOf(group, version);
  if (defs.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: defs.flatMap(resourceEntries),
  };
}

export function apiVersions(serverAddress: string): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(group: string, version: string): object {
  const gv = { groupVersion: `${group}/${version}`, version };
  return { name: group, versions: [gv], preferredVersion: gv };
}

export function apiGroupList(): object {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: apiGroups().map((g) => apiGroup(g.group, g.version)) };
}

export function apiGroupDocument(group: string): object | undefined {
  const found = apiGroups().find((g) => g.group === group);
  return found && { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(found.group, found.version) };
}

export { apiVersionOf };
