// NodeRestriction admission, case by case as upstream's plugin decides, with its
// messages: what node n1 may write and what it may not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AdmissionAttributes } from '../../src/testapiserver/admission.js';
import { ApiError } from '../../src/testapiserver/api-error.js';
import { NodeRestriction } from '../../src/testapiserver/authz/node-restriction.js';
import { Store } from '../../src/testapiserver/store.js';
import type { KubeObject } from '../../src/testapiserver/types.js';

const PODS = { key: 'pods', group: '', plural: 'pods' };
const NODES = { key: 'nodes', group: '', plural: 'nodes' };
const N1 = { user: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };

const store = new Store();
const node = store.create(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } }, spec: {} });
const web = store.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Running' } });
store.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'other', namespace: 'default' }, spec: { nodeName: 'n2', containers: [{ name: 'c', image: 'i' }] } });
const plugin = new NodeRestriction(store);

function mirrorPod(extra: { spec?: Record<string, unknown>; metadata?: Record<string, unknown> } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'static-web-n1',
      namespace: 'default',
      annotations: { 'kubernetes.io/config.mirror': 'abc' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: node.metadata.uid, controller: true }],
      ...extra.metadata,
    },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }], ...extra.spec },
  };
}

function attempt(a: Partial<AdmissionAttributes> & Pick<AdmissionAttributes, 'operation' | 'resource'>): string {
  try {
    plugin.admit({ user: N1, group: '', subresource: '', namespace: 'default', name: '', ...a });
    return 'admitted';
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return `${err.code} ${err.message}`;
  }
}

const withStatus = (pod: KubeObject, change: (p: KubeObject) => void): KubeObject => {
  const copy = structuredClone(pod);
  change(copy);
  return copy;
};

describe('NodeRestriction', () => {
  const cases: Array<[string, () => string, string]> = [
    ['a mirror pod bound to itself, owned by its Node', () => attempt({ operation: 'CREATE', resource: 'pods', name: 'static-web-n1', object: mirrorPod() }), 'admitted'],
    ['a pod without the mirror annotation', () => attempt({ operation: 'CREATE', resource: 'pods', name: 'x', object: { ...mirrorPod(), metadata: { name: 'x', namespace: 'default' } } }),
      '403 pods "x" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods'],
    ['a mirror pod bound to another node', () => attempt({ operation: 'CREATE', resource: 'pods', name: 'static-web-n1', object: mirrorPod({ spec: { nodeName: 'n2' } }) }),
      '403 pods "static-web-n1" is forbidden: node "n1" can only create pods with spec.nodeName set to itself'],
    ['a mirror pod without an owner', () => attempt({ operation: 'CREATE', resource: 'pods', name: 'static-web-n1', object: mirrorPod({ metadata: { ownerReferences: [] } }) }),
      '403 pods "static-web-n1" is forbidden: node "n1" can only create pods with an owner reference set to itself'],
    ['a mirror pod whose owner is not a controller', () => attempt({ operation: 'CREATE', resource: 'pods', name: 'static-web-n1', object: mirrorPod({ metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: node.metadata.uid }] } }) }),
      '403 pods "static-web-n1" is forbidden: node "n1" can only create pods with a controller owner reference set to itself'],
    ['a mirror pod owned by a Node of another UID', () => attempt({ operation: 'CREATE', resource: 'pods', name: 'static-web-n1', object: mirrorPod({ metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'stale', controller: true }] } }) }),
      `403 pods "static-web-n1" is forbidden: node n1 UID mismatch: expected stale got ${node.metadata.uid}`],
    ['a mirror pod naming a service account', () => attempt({ operation: 'CREATE', resource: 'pods', name: 'static-web-n1', object: mirrorPod({ spec: { serviceAccountName: 'default' } }) }),
      '403 pods "static-web-n1" is forbidden: node "n1" can not create pods that reference a service account'],
    ['a mirror pod mounting a Secret', () => attempt({ operation: 'CREATE', resource: 'pods', name: 'static-web-n1', object: mirrorPod({ spec: { volumes: [{ name: 'v', secret: { secretName: 's' } }] } }) }),
      '403 pods "static-web-n1" is forbidden: node "n1" can not create pods that reference secrets'],
    ['a mirror pod reading a ConfigMap', () => attempt({ operation: 'CREATE', resource: 'pods', name: 'static-web-n1', object: mirrorPod({ spec: { containers: [{ name: 'c', image: 'i', envFrom: [{ configMapRef: { name: 'cm' } }] }] } }) }),
      '403 pods "static-web-n1" is forbidden: node "n1" can not create pods that reference configmaps'],
    ['a mirror pod with a PVC', () => attempt({ operation: 'CREATE', resource: 'pods', name: 'static-web-n1', object: mirrorPod({ spec: { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] } }) }),
      '403 pods "static-web-n1" is forbidden: node "n1" can not create pods that reference persistentvolumeclaims'],
    ['the delete of its own pod', () => attempt({ operation: 'DELETE', resource: 'pods', name: 'web', oldObject: web }), 'admitted'],
    ['the delete of another node\'s pod', () => attempt({ operation: 'DELETE', resource: 'pods', name: 'other' }),
      '403 pods "other" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself'],
    ['an update of a pod', () => attempt({ operation: 'UPDATE', resource: 'pods', name: 'web', object: web, oldObject: web }),
      '403 pods "web" is forbidden: unexpected operation "UPDATE", node "n1" can only create and delete mirror pods'],
    ['the status of its pod', () => attempt({ operation: 'UPDATE', resource: 'pods', subresource: 'status', name: 'web', object: withStatus(web, (p) => (p.status = { phase: 'Succeeded' })), oldObject: web }), 'admitted'],
    ['the status of another node\'s pod', () => attempt({ operation: 'UPDATE', resource: 'pods', subresource: 'status', name: 'other', object: store.mustGet(PODS, 'default', 'other'), oldObject: store.mustGet(PODS, 'default', 'other') }),
      '403 pods "other" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself'],
    ['labels through pod status', () => attempt({ operation: 'UPDATE', resource: 'pods', subresource: 'status', name: 'web', object: withStatus(web, (p) => (p.metadata.labels = { app: 'hijacked' })), oldObject: web }),
      '403 pods "web" is forbidden: node "n1" cannot update labels through pod status'],
    ['resource claim statuses through pod status', () => attempt({ operation: 'UPDATE', resource: 'pods', subresource: 'status', name: 'web', object: withStatus(web, (p) => (p.status = { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'x' }] })), oldObject: web }),
      '403 pods "web" is forbidden: node "n1" cannot update resource claim statues'],
    ['the eviction of its pod', () => attempt({ operation: 'CREATE', resource: 'pods', subresource: 'eviction', name: 'web' }), 'admitted'],
    ['the eviction of another node\'s pod', () => attempt({ operation: 'CREATE', resource: 'pods', subresource: 'eviction', name: 'other' }),
      '403 pods "other" is forbidden: node n1 can only evict pods with spec.nodeName set to itself'],
    ['a binding', () => attempt({ operation: 'CREATE', resource: 'pods', subresource: 'binding', name: 'web' }),
      '403 pods "web" is forbidden: unexpected pod subresource "binding", only \'status\' and \'eviction\' are allowed'],
    ['its own Node with kubelet labels', () => attempt({ operation: 'CREATE', resource: 'nodes', name: 'n1', object: { metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1', 'node.kubernetes.io/exclude-from-external-load-balancers': '', 'example.com/rack': '7' } } } }), 'admitted'],
    ['another Node', () => attempt({ operation: 'CREATE', resource: 'nodes', name: 'n2', object: { metadata: { name: 'n2' } } }),
      '403 nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"'],
    ['its Node with restricted labels', () => attempt({ operation: 'CREATE', resource: 'nodes', name: 'n1', object: { metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/master': '', 'node-restriction.kubernetes.io/pool': 'a' } } } }),
      '403 nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: node-restriction.kubernetes.io/pool, node-role.kubernetes.io/master'],
    ['a label change on its Node', () => attempt({ operation: 'UPDATE', resource: 'nodes', name: 'n1', object: withStatus(node, (n) => (n.metadata.labels = { ...n.metadata.labels, 'node-role.kubernetes.io/control-plane': '' })), oldObject: node }),
      '403 nodes "n1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/control-plane'],
    ['its taints', () => attempt({ operation: 'UPDATE', resource: 'nodes', subresource: 'status', name: 'n1', object: withStatus(node, (n) => (n.spec = { taints: [] })), oldObject: node }),
      '403 nodes "n1" is forbidden: node "n1" is not allowed to modify taints'],
    ['its Node status', () => attempt({ operation: 'UPDATE', resource: 'nodes', subresource: 'status', name: 'n1', object: withStatus(node, (n) => (n.status = { phase: 'Running' })), oldObject: node }), 'admitted'],
    ['its Lease', () => attempt({ operation: 'CREATE', group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', name: 'n1', object: { metadata: { name: 'n1' } } }), 'admitted'],
    ['another node\'s Lease', () => attempt({ operation: 'CREATE', group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', name: 'n2', object: { metadata: { name: 'n2' } } }),
      '403 leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node'],
    ['a token bound to its pod', () => attempt({ operation: 'CREATE', resource: 'serviceaccounts', subresource: 'token', name: 'default', object: { metadata: { name: '' }, spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: web.metadata.uid } } } }), 'admitted'],
    ['a token bound to nothing', () => attempt({ operation: 'CREATE', resource: 'serviceaccounts', subresource: 'token', name: 'default', object: { metadata: { name: '' }, spec: {} } }),
      '403 serviceaccounts "default" is forbidden: node requested token not bound to a pod'],
    ['a token bound to a pod by a stale UID', () => attempt({ operation: 'CREATE', resource: 'serviceaccounts', subresource: 'token', name: 'default', object: { metadata: { name: '' }, spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'old' } } } }),
      '403 serviceaccounts "default" is forbidden: the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated'],
    ['a token bound to another node\'s pod', () => attempt({ operation: 'CREATE', resource: 'serviceaccounts', subresource: 'token', name: 'default', object: { metadata: { name: '' }, spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'other', uid: store.mustGet(PODS, 'default', 'other').metadata.uid } } } }),
      '403 serviceaccounts "default" is forbidden: node requested token bound to a pod scheduled on a different node'],
  ];
  for (const [what, run, expected] of cases) it(what, () => assert.equal(run(), expected));

  it('leaves everyone but nodes alone', () => {
    plugin.admit({ operation: 'UPDATE', user: { user: 'admin', groups: ['system:masters'] }, group: '', resource: 'pods', subresource: '', namespace: 'default', name: 'other', object: web, oldObject: web });
  });
});
