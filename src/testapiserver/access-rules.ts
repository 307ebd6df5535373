// The grants tests make with `allow({ users | groups, verbs, resources,
// subresources })`, as real RBAC objects: each grant is a ClusterRole and a
// ClusterRoleBinding (named test-access-rule-<n>), so the one authorizer chain
// that answers every request and SubjectAccessReview decides them too, and
// `kubectl get clusterrolebindings` shows them.
import { CLUSTER_ROLE_BINDINGS, CLUSTER_ROLES, RBAC_API_VERSION, RBAC_GROUP } from './authz/rbac-resources.js';
import type { PolicyRule } from './authz/policy-rule.js';
import { SYSTEM_AUTHENTICATED, SYSTEM_UNAUTHENTICATED } from './authz/bootstrap-policy.js';
import { RESOURCES } from './resources.js';
import type { Store } from './store.js';

/** One grant. Omitted or '*' fields match anything. */
export interface AccessRule {
  users?: string[];
  groups?: string[];
  verbs?: string[];
  /** e.g. 'nodes'. */
  resources?: string[];
  /** e.g. ['proxy', 'stats'], '' for the resource itself. */
  subresources?: string[];
}

const ANY = '*';
/** The kubelet API's subresources of nodes (what a kubelet's webhook authorizer asks about). */
const KUBELET_SUBRESOURCES = ['proxy', 'stats', 'metrics', 'log', 'spec', 'pods', 'healthz', 'configz', 'checkpoint'];

/** Every subresource a resource has here; RBAC has no `nodes/*`, so "any subresource" is each of them. */
function subresourcesOf(resource: string): string[] {
  const served = RESOURCES.filter((def) => def.plural === resource).flatMap((def) => def.subresources);
  return [...new Set([...served, ...(resource === 'nodes' ? KUBELET_SUBRESOURCES : [])])];
}

/** The rule's resources in RBAC's form: `nodes/stats`, `nodes` for '', the resource and each subresource for any. */
function rbacResources(rule: AccessRule): string[] {
  const resources = rule.resources ?? [ANY];
  const subresources = rule.subresources;
  const any = subresources === undefined || subresources.includes(ANY);
  return resources.flatMap((r) => {
    if (r === ANY) return any ? [ANY] : (subresources ?? []).map((s) => (s === '' ? ANY : `*/${s}`));
    if (any) return [r, ...subresourcesOf(r).map((s) => `${r}/${s}`)];
    return (subresources ?? []).map((s) => (s === '' ? r : `${r}/${s}`));
  });
}

function subjectsOf(rule: AccessRule): Array<{ kind: string; apiGroup: string; name: string }> {
  const users = (rule.users ?? []).map((name) => ({ kind: 'User', apiGroup: RBAC_GROUP, name }));
  const groups = (rule.groups ?? []).map((name) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name }));
  if (rule.users === undefined && rule.groups === undefined) {
    return [SYSTEM_AUTHENTICATED, SYSTEM_UNAUTHENTICATED].map((name) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name }));
  }
  return [...users, ...groups];
}

export class AccessRules {
  private granted = 0;

  constructor(private readonly store: Store) {}

  /** Adds a grant; returns a function that takes it back. */
  allow(rule: AccessRule): () => void {
    let name = `test-access-rule-${++this.granted}`;
    // A state directory may hold the grants of an earlier process.
    while (this.store.get(CLUSTER_ROLES, undefined, name) || this.store.get(CLUSTER_ROLE_BINDINGS, undefined, name)) name = `test-access-rule-${++this.granted}`;
    const policy: PolicyRule = { verbs: rule.verbs ?? [ANY], apiGroups: [ANY], resources: rbacResources(rule) };
    this.store.create(CLUSTER_ROLES, { apiVersion: RBAC_API_VERSION, kind: 'ClusterRole', metadata: { name }, rules: [policy] });
    this.store.create(CLUSTER_ROLE_BINDINGS, {
      apiVersion: RBAC_API_VERSION,
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
      subjects: subjectsOf(rule),
    });
    return () => {
      for (const ref of [CLUSTER_ROLE_BINDINGS, CLUSTER_ROLES]) if (this.store.get(ref, undefined, name)) this.store.remove(ref, undefined, name);
    };
  }
}
