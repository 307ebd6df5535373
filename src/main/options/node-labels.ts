// Which --node-labels a kubelet may set on its own Node, as upstream's
// ValidateKubeletFlags with kubeletapis.IsKubeletLabel (pkg/kubelet/apis): a label in
// the kubernetes.io or k8s.io namespaces must be one of the well-known labels the
// kubelet sets anyway, or sit under kubelet.kubernetes.io or node.kubernetes.io,
// because the NodeRestriction admission plugin refuses any other from a node and
// the node would never register. OpenShift's kubelet and its NodeRestriction also
// allow the node-role.kubernetes.io roles (well_known_openshift_labels.go), and
// OpenShift's unit files pass them: those are accepted with one start-up warning,
// since a cluster other than OpenShift refuses them.

const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

/** OpenShift's openshiftNodeLabels: roles its kubelet may set on itself. */
export const OPENSHIFT_NODE_ROLE_LABELS = new Set([
  'node-role.kubernetes.io/control-plane',
  'node-role.kubernetes.io/master',
  'node-role.kubernetes.io/worker',
  'node-role.kubernetes.io/etcd',
]);

/** The DNS prefix of a label key ('' when it has none). */
function labelNamespace(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

function inNamespace(namespace: string, suffix: string): boolean {
  return namespace === suffix || namespace.endsWith(`.${suffix}`);
}

/** Upstream's isKubernetesLabel: the label is in a namespace the Kubernetes project owns. */
function isKubernetesLabel(key: string): boolean {
  const namespace = labelNamespace(key);
  return inNamespace(namespace, 'kubernetes.io') || inNamespace(namespace, 'k8s.io');
}

/** Upstream's IsKubeletLabel: a label NodeRestriction lets a node set on itself. */
export function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.has(key)) return true;
  const namespace = labelNamespace(key);
  return KUBELET_LABEL_NAMESPACES.some((allowed) => inNamespace(namespace, allowed));
}

/** Upstream's refusal of --node-labels a node may not set, or undefined when every label is allowed. */
export function nodeLabelsError(labels: Record<string, string>): string | undefined {
  const unknown = Object.keys(labels)
    .filter((key) => isKubernetesLabel(key) && !isKubeletLabel(key) && !OPENSHIFT_NODE_ROLE_LABELS.has(key))
    .sort();
  if (unknown.length === 0) return undefined;
  return (
    `unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [${unknown.join(' ')}]\n` +
    `--node-labels in the 'kubernetes.io' namespace must begin with an allowed prefix (${KUBELET_LABEL_NAMESPACES.join(', ')}) ` +
    `or be in the specifically allowed set (${[...KUBELET_LABELS].sort().join(', ')})`
  );
}

/** The --node-labels only OpenShift's NodeRestriction admits, for the start-up warning. */
export function openShiftOnlyNodeLabels(labels: Record<string, string>): string[] {
  return Object.keys(labels)
    .filter((key) => OPENSHIFT_NODE_ROLE_LABELS.has(key))
    .sort();
}
