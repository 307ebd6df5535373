// The resources this server serves, with what discovery reports about them.
// Names, kinds, short names and verbs are upstream's.

export interface ResourceDef {
  group: string; // '' for core
  version: string;
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  verbs: string[];
  subresources: string[];
  categories?: string[];
}

const CRUD = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

export const RESOURCES: ResourceDef[] = [
  { group: '', version: 'v1', plural: 'pods', singular: 'pod', kind: 'Pod', namespaced: true, shortNames: ['po'], verbs: CRUD, subresources: ['status', 'binding', 'eviction', 'log', 'exec', 'attach', 'portforward'], categories: ['all'] },
  { group: '', version: 'v1', plural: 'nodes', singular: 'node', kind: 'Node', namespaced: false, shortNames: ['no'], verbs: CRUD, subresources: ['status', 'proxy'] },
  { group: '', version: 'v1', plural: 'namespaces', singular: 'namespace', kind: 'Namespace', namespaced: false, shortNames: ['ns'], verbs: CRUD, subresources: ['status'] },
  { group: '', version: 'v1', plural: 'configmaps', singular: 'configmap', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'], verbs: CRUD, subresources: [] },
  { group: '', version: 'v1', plural: 'secrets', singular: 'secret', kind: 'Secret', namespaced: true, verbs: CRUD, subresources: [] },
  { group: '', version: 'v1', plural: 'serviceaccounts', singular: 'serviceaccount', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'], verbs: CRUD, subresources: ['token'] },
  { group: '', version: 'v1', plural: 'events', singular: 'event', kind: 'Event', namespaced: true, shortNames: ['ev'], verbs: CRUD, subresources: [] },
  { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', singular: 'lease', kind: 'Lease', namespaced: true, verbs: CRUD, subresources: [] },
  { group: 'certificates.k8s.io', version: 'v1', plural: 'certificatesigningrequests', singular: 'certificatesigningrequest', kind: 'CertificateSigningRequest', namespaced: false, shortNames: ['csr'], verbs: CRUD, subresources: ['approval', 'status'] },
  { group: 'events.k8s.io', version: 'v1', plural: 'events', singular: 'event', kind: 'Event', namespaced: true, shortNames: ['ev'], verbs: CRUD, subresources: [] },
  { group: '', version: 'v1', plural: 'persistentvolumeclaims', singular: 'persistentvolumeclaim', kind: 'PersistentVolumeClaim', namespaced: true, shortNames: ['pvc'], verbs: CRUD, subresources: ['status'] },
  { group: '', version: 'v1', plural: 'persistentvolumes', singular: 'persistentvolume', kind: 'PersistentVolume', namespaced: false, shortNames: ['pv'], verbs: CRUD, subresources: ['status'] },
  // Stored only: no controller makes their pods.
  { group: 'apps', version: 'v1', plural: 'deployments', singular: 'deployment', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], verbs: CRUD, subresources: ['status'], categories: ['all'] },
  { group: 'resource.k8s.io', version: 'v1', plural: 'resourceclaims', singular: 'resourceclaim', kind: 'ResourceClaim', namespaced: true, verbs: CRUD, subresources: ['status'] },
  { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterrolebindings', singular: 'clusterrolebinding', kind: 'ClusterRoleBinding', namespaced: false, verbs: CRUD, subresources: [] },
  { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', singular: 'clusterrole', kind: 'ClusterRole', namespaced: false, verbs: CRUD, subresources: [] },
  { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings', singular: 'rolebinding', kind: 'RoleBinding', namespaced: true, verbs: CRUD, subresources: [] },
  { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', singular: 'role', kind: 'Role', namespaced: true, verbs: CRUD, subresources: [] },
  // Reviews are created and answered, never stored.
  { group: 'authentication.k8s.io', version: 'v1', plural: 'tokenreviews', singular: 'tokenreview', kind: 'TokenReview', namespaced: false, verbs: ['create'], subresources: [] },
  { group: 'authorization.k8s.io', version: 'v1', plural: 'selfsubjectaccessreviews', singular: 'selfsubjectaccessreview', kind: 'SelfSubjectAccessReview', namespaced: false, verbs: ['create'], subresources: [] },
  { group: 'authorization.k8s.io', version: 'v1', plural: 'selfsubjectrulesreviews', singular: 'selfsubjectrulesreview', kind: 'SelfSubjectRulesReview', namespaced: false, verbs: ['create'], subresources: [] },
  { group: 'authorization.k8s.io', version: 'v1', plural: 'subjectaccessreviews', singular: 'subjectaccessreview', kind: 'SubjectAccessReview', namespaced: false, verbs: ['create'], subresources: [] },
];

/** The review kinds: answered on create, never stored. */
export const REVIEW_RESOURCES = new Set(['tokenreviews.authentication.k8s.io', 'subjectaccessreviews.authorization.k8s.io', 'selfsubjectaccessreviews.authorization.k8s.io', 'selfsubjectrulesreviews.authorization.k8s.io']);

/** Storage key of a resource: `pods`, `leases.coordination.k8s.io`. */
export function resourceKey(def: Pick<ResourceDef, 'group' | 'plural'>): string {
  return def.group ? `${def.plural}.${def.group}` : def.plural;
}

export function apiVersionOf(def: ResourceDef): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

export function findResource(group: string, version: string, plural: string): ResourceDef | undefined {
  return RESOURCES.find((r) => r.group === group && r.version === version && r.plural === plural);
}

export function resourcesOf(group: string, version: string): ResourceDef[] {
  return RESOURCES.filter((r) => r.group === group && r.version === version);
}

/** Every non-core group/version, in discovery order. */
export function apiGroups(): Array<{ group: string; version: string }> {
  const seen = new Map<string, string>();
  for (const r of RESOURCES) if (r.group && !seen.has(r.group)) seen.set(r.group, r.version);
  return [...seen].map(([group, version]) => ({ group, version }));
}
