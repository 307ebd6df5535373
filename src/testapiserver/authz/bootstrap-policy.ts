// The RBAC objects kube-apiserver reconciles at start (bootstrappolicy's
// ClusterRoles and ClusterRoleBindings, the part of them that concerns a node
// and the people who run one), the bindings TLS bootstrapping needs (as the
// kubelet TLS bootstrapping guide and kubeadm create them, here for the whole
// system:bootstrappers group), and the node rules the Node authorizer applies
// to the resources it does not subdivide (bootstrappolicy.NodeRules, 1.34 with
// its default feature gates).
import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';
import type { PolicyRule } from './policy-rule.js';
import { CLUSTER_ROLE_BINDINGS, CLUSTER_ROLES, RBAC_API_VERSION, RBAC_GROUP } from './rbac-resources.js';

const READ = ['get', 'list', 'watch'];
const READ_WRITE = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const AUTOUPDATE_ANNOTATIONS = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };
const AGGREGATE_TO = (role: 'admin' | 'edit' | 'view') => `rbac.authorization.k8s.io/aggregate-to-${role}`;

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ verbs, apiGroups, resources });
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

export const SYSTEM_MASTERS = 'system:masters';
export const SYSTEM_NODES = 'system:nodes';
export const SYSTEM_AUTHENTICATED = 'system:authenticated';
export const SYSTEM_UNAUTHENTICATED = 'system:unauthenticated';
export const SYSTEM_BOOTSTRAPPERS = 'system:bootstrappers';

/** What every node may do on the resources the Node authorizer does not subdivide (NodeRules). */
export const NODE_RULES: PolicyRule[] = [
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
  rule(READ, [''], ['services']),
  rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
  rule(['update', 'patch'], [''], ['nodes/status']),
  rule(['update', 'patch'], [''], ['nodes']),
  rule(['create', 'update', 'patch'], [''], ['events']),
  rule(READ, [''], ['pods']),
  rule(['create', 'delete'], [''], ['pods']),
  rule(['update', 'patch'], [''], ['pods/status']),
  rule(['create'], [''], ['pods/eviction']),
  rule(READ, [''], ['secrets', 'configmaps']),
  rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['get'], [''], ['endpoints']),
  rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
  rule(['get', 'create', 'update', 'patch', 'delete'], ['coordination.k8s.io'], ['leases']),
  rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(['get'], [''], ['serviceaccounts']),
  rule(['get', 'update', 'patch'], [''], ['persistentvolumeclaims/status']),
  rule(['get', 'watch', 'list'], ['storage.k8s.io'], ['csidrivers']),
  rule(['get', 'create', 'update', 'patch', 'delete'], ['storage.k8s.io'], ['csinodes']),
  rule(READ, ['node.k8s.io'], ['runtimeclasses']),
  rule(['get'], ['resource.k8s.io'], ['resourceclaims']),
  rule(READ_WRITE, ['resource.k8s.io'], ['resourceslices']),
];

interface RoleSpec {
  name: string;
  rules?: PolicyRule[];
  labels?: Record<string, string>;
  aggregateFrom?: string;
}

const ROLES: RoleSpec[] = [
  { name: 'cluster-admin', rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])] },
  { name: 'system:discovery', rules: [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*'])] },
  { name: 'system:basic-user', rules: [rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'])] },
  { name: 'system:public-info-viewer', rules: [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])] },
  { name: 'admin', labels: {}, aggregateFrom: AGGREGATE_TO('admin') },
  { name: 'edit', labels: { [AGGREGATE_TO('admin')]: 'true' }, aggregateFrom: AGGREGATE_TO('edit') },
  { name: 'view', labels: { [AGGREGATE_TO('edit')]: 'true' }, aggregateFrom: AGGREGATE_TO('view') },
  {
    name: 'system:aggregate-to-admin',
    labels: { [AGGREGATE_TO('admin')]: 'true' },
    rules: [
      rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
      rule(READ_WRITE, [RBAC_GROUP], ['roles', 'rolebindings']),
    ],
  },
  {
    name: 'system:aggregate-to-edit',
    labels: { [AGGREGATE_TO('edit')]: 'true' },
    rules: [
      rule(READ, [''], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
      rule(['impersonate'], [''], ['serviceaccounts']),
      rule(WRITE, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      rule(['create'], [''], ['pods/eviction']),
      rule(WRITE, [''], ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
      rule(['create'], [''], ['serviceaccounts/token']),
      rule(WRITE, ['apps'], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
      rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(WRITE, ['batch'], ['jobs', 'cronjobs']),
      rule(WRITE, ['policy'], ['poddisruptionbudgets']),
      rule(WRITE, ['networking.k8s.io'], ['networkpolicies', 'ingresses']),
      rule(WRITE, ['coordination.k8s.io'], ['leases']),
    ],
  },
  {
    name: 'system:aggregate-to-view',
    labels: { [AGGREGATE_TO('view')]: 'true' },
    rules: [
      rule(READ, [''], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
      rule(READ, [''], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
      rule(READ, [''], ['namespaces']),
      rule(READ, ['discovery.k8s.io'], ['endpointslices']),
      rule(READ, ['apps'], ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
      rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(READ, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
      rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(READ, ['networking.k8s.io'], ['networkpolicies', 'ingresses', 'ingresses/status']),
      rule(READ, ['coordination.k8s.io'], ['leases']),
    ],
  },
  // Kept as upstream keeps it, bound to nobody: nodes are authorized by the Node authorizer.
  { name: 'system:node', rules: NODE_RULES },
  { name: 'system:node-bootstrapper', rules: [rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests'])] },
  { name: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', rules: [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/nodeclient'])] },
  { name: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', rules: [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient'])] },
  {
    name: 'system:kubelet-api-admin',
    rules: [
      rule(['get', 'list', 'watch'], [''], ['nodes']),
      rule(['proxy'], [''], ['nodes']),
      rule(['*'], [''], ['nodes/log', 'nodes/metrics', 'nodes/proxy', 'nodes/stats', 'nodes/configz', 'nodes/healthz', 'nodes/pods']),
    ],
  },
  { name: 'system:auth-delegator', rules: [rule(['create'], ['authentication.k8s.io'], ['tokenreviews']), rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])] },
];

interface BindingSpec {
  name: string;
  role: string;
  groups: string[];
}

const BINDINGS: BindingSpec[] = [
  { name: 'cluster-admin', role: 'cluster-admin', groups: [SYSTEM_MASTERS] },
  { name: 'system:discovery', role: 'system:discovery', groups: [SYSTEM_AUTHENTICATED] },
  { name: 'system:basic-user', role: 'system:basic-user', groups: [SYSTEM_AUTHENTICATED] },
  { name: 'system:public-info-viewer', role: 'system:public-info-viewer', groups: [SYSTEM_AUTHENTICATED, SYSTEM_UNAUTHENTICATED] },
  { name: 'system:node', role: 'system:node', groups: [] },
  // TLS bootstrapping (the kubelet-tls-bootstrapping guide's bindings).
  { name: 'create-csrs-for-bootstrapping', role: 'system:node-bootstrapper', groups: [SYSTEM_BOOTSTRAPPERS] },
  { name: 'auto-approve-csrs-for-group', role: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', groups: [SYSTEM_BOOTSTRAPPERS] },
  { name: 'auto-approve-renewals-for-nodes', role: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', groups: [SYSTEM_NODES] },
];

/** Every role here is one of upstream's defaults, labelled and annotated as they are. */
function clusterRoleOf(spec: RoleSpec): KubeObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRole',
    metadata: { name: spec.name, labels: { ...spec.labels, ...BOOTSTRAP_LABELS }, annotations: { ...AUTOUPDATE_ANNOTATIONS } },
    ...(spec.aggregateFrom ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [spec.aggregateFrom]: 'true' } }] }, rules: [] } : { rules: spec.rules ?? [] }),
  };
}

/** Upstream's default bindings are named after their role; the TLS bootstrapping ones are not upstream's. */
function clusterRoleBindingOf(spec: BindingSpec): KubeObject {
  const upstreamDefault = spec.name === spec.role;
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: { name: spec.name, labels: upstreamDefault ? { ...BOOTSTRAP_LABELS } : {}, annotations: upstreamDefault ? { ...AUTOUPDATE_ANNOTATIONS } : {} },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: spec.role },
    subjects: spec.groups.map((name) => ({ apiGroup: RBAC_GROUP, kind: 'Group', name })),
  };
}

/** Creates the default roles and bindings that are missing (a state directory may hold older ones: they stay). */
export function seedBootstrapPolicy(store: Store): void {
  for (const spec of ROLES) if (!store.get(CLUSTER_ROLES, undefined, spec.name)) store.create(CLUSTER_ROLES, clusterRoleOf(spec));
  for (const spec of BINDINGS) {
    if (!store.get(CLUSTER_ROLE_BINDINGS, undefined, spec.name)) store.create(CLUSTER_ROLE_BINDINGS, clusterRoleBindingOf(spec));
  }
}
