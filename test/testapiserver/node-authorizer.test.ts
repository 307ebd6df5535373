// The Node authorizer, case by case as upstream's NodeAuthorizer.Authorize
// decides (1.34, AuthorizeNodeWithSelectors on): each request is given as its
// method and URL, so the attribute derivation (a list pinned by metadata.name is
// a request for that name) is part of what is checked.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestAttributesOf } from '../../src/testapiserver/authz/attributes.js';
import { NodeAuthorizer } from '../../src/testapiserver/authz/node-authorizer.js';
import { NodeGraph } from '../../src/testapiserver/authz/node-graph.js';
import { Store } from '../../src/testapiserver/store.js';
import type { ClientIdentity } from '../../src/testapiserver/tls.js';

const PODS = { key: 'pods', group: '', plural: 'pods' };
const PVS = { key: 'persistentvolumes', group: '', plural: 'persistentvolumes' };
const N1: ClientIdentity = { user: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const NO_RELATIONSHIP = "no relationship found between node 'n1' and this object";

function pod(name: string, node: string, spec: Record<string, unknown>, annotations?: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', annotations }, spec: { nodeName: node, containers: [{ name: 'c', image: 'i' }], ...spec } };
}

function cluster(): { store: Store; authorizer: NodeAuthorizer } {
  const store = new Store();
  store.create(PODS, pod('web', 'n1', {
    serviceAccountName: 'web-sa',
    imagePullSecrets: [{ name: 'pull' }],
    volumes: [
      { name: 'v1', secret: { secretName: 's1' } },
      { name: 'v2', persistentVolumeClaim: { claimName: 'claim1' } },
      { name: 'v3', projected: { sources: [{ configMap: { name: 'projected-cm' } }] } },
      { name: 'scratch', ephemeral: { volumeClaimTemplate: {} } },
    ],
    containers: [{ name: 'c', image: 'i', envFrom: [{ configMapRef: { name: 'c1' } }], env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }] }],
    resourceClaims: [{ name: 'gpu', resourceClaimName: 'claim-gpu' }],
  }));
  store.create(PODS, pod('other', 'n2', { volumes: [{ name: 'v', secret: { secretName: 's2' } }] }));
  store.create(PODS, pod('mirror', 'n1', { volumes: [{ name: 'v', secret: { secretName: 'mirror-secret' } }] }, { 'kubernetes.io/config.mirror': 'hash' }));
  store.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'unbound', namespace: 'default' }, spec: { volumes: [{ name: 'v', secret: { secretName: 'unbound-secret' } }] } });
  store.create(PVS, { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' }, spec: { claimRef: { namespace: 'default', name: 'claim1' }, csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { name: 'pv-secret' } } } });
  return { store, authorizer: new NodeAuthorizer(new NodeGraph(store)) };
}

function decide(authorizer: NodeAuthorizer, method: string, path: string, user = N1): string {
  const decided = authorizer.authorize(requestAttributesOf(method, new URL(path, 'https://apiserver.invalid'), user));
  return decided.decision === 'allow' ? 'allow' : `no opinion: ${decided.reason}`;
}

const NS = '/api/v1/namespaces/default';
const CASES: Array<[string, string, string, string]> = [
  // [what, method, path, expected]
  ['a Secret its pod mounts', 'GET', `${NS}/secrets/s1`, 'allow'],
  ['an image pull Secret of its pod', 'GET', `${NS}/secrets/pull`, 'allow'],
  ['a Secret its pod reads into env', 'GET', `${NS}/secrets/env-secret`, 'allow'],
  ['a Secret of a pod on another node', 'GET', `${NS}/secrets/s2`, `no opinion: ${NO_RELATIONSHIP}`],
  ['a Secret nobody names', 'GET', `${NS}/secrets/nobody`, `no opinion: ${NO_RELATIONSHIP}`],
  ['a Secret only an unbound pod names', 'GET', `${NS}/secrets/unbound-secret`, `no opinion: ${NO_RELATIONSHIP}`],
  ['a Secret its mirror pod names', 'GET', `${NS}/secrets/mirror-secret`, `no opinion: ${NO_RELATIONSHIP}`],
  ['a Secret its pod\'s PV names', 'GET', `${NS}/secrets/pv-secret`, 'allow'],
  ['every Secret of a namespace', 'GET', `${NS}/secrets`, 'no opinion: No Object name found'],
  ['a watch of every Secret of a namespace', 'GET', `${NS}/secrets?watch=true`, 'no opinion: No Object name found'],
  ['a list pinned to its Secret', 'GET', `${NS}/secrets?fieldSelector=metadata.name%3Ds1`, 'allow'],
  ['a watch pinned to its Secret', 'GET', `${NS}/secrets?watch=1&fieldSelector=metadata.name%3Ds1`, 'allow'],
  ['a list pinned to another Secret', 'GET', `${NS}/secrets?fieldSelector=metadata.name%3Ds2`, `no opinion: ${NO_RELATIONSHIP}`],
  ['every Secret of the cluster', 'GET', '/api/v1/secrets', 'no opinion: can only read namespaced object of this type'],
  ['an update of its Secret', 'PUT', `${NS}/secrets/s1`, 'no opinion: can only read resources of this type'],
  ['a ConfigMap of its pod (envFrom)', 'GET', `${NS}/configmaps/c1`, 'allow'],
  ['a ConfigMap of its pod (projected)', 'GET', `${NS}/configmaps/projected-cm`, 'allow'],
  ['every ConfigMap of a namespace', 'GET', `${NS}/configmaps`, 'no opinion: No Object name found'],
  ['its pod\'s PVC', 'GET', `${NS}/persistentvolumeclaims/claim1`, 'allow'],
  ['its pod\'s ephemeral volume claim', 'GET', `${NS}/persistentvolumeclaims/web-scratch`, 'allow'],
  ['every PVC of a namespace', 'GET', `${NS}/persistentvolumeclaims`, 'no opinion: can only get individual resources of this type'],
  ['the status of its PVC', 'PATCH', `${NS}/persistentvolumeclaims/claim1/status`, 'allow'],
  ['the PV bound to its pod\'s claim', 'GET', '/api/v1/persistentvolumes/pv1', 'allow'],
  ['its pod\'s ResourceClaim', 'GET', '/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/claim-gpu', 'allow'],
  ['a token of its pod\'s service account', 'POST', `${NS}/serviceaccounts/web-sa/token`, 'allow'],
  ['its pod\'s service account', 'GET', `${NS}/serviceaccounts/web-sa`, 'allow'],
  ['a token of another service account', 'POST', `${NS}/serviceaccounts/default/token`, `no opinion: ${NO_RELATIONSHIP}`],
  ['a new service account', 'POST', `${NS}/serviceaccounts`, 'no opinion: can only create tokens for individual service accounts'],
  ['its own Node', 'GET', '/api/v1/nodes/n1', 'allow'],
  ['another Node', 'GET', '/api/v1/nodes/n2', "no opinion: node 'n1' cannot read 'n2', only its own Node object"],
  ['every Node', 'GET', '/api/v1/nodes', "no opinion: node 'n1' cannot read all nodes, only its own Node object"],
  ['a watch of its own Node by name', 'GET', '/api/v1/nodes?watch=true&fieldSelector=metadata.name%3Dn1', 'allow'],
  ['a create of a Node (NodeRestriction checks the name)', 'POST', '/api/v1/nodes', 'allow'],
  ['its Node\'s status', 'PATCH', '/api/v1/nodes/n1/status', 'allow'],
  ['a delete of its Node', 'DELETE', '/api/v1/nodes/n1', 'no opinion: '],
  ['its pod', 'GET', `${NS}/pods/web`, 'allow'],
  ['a pod on another node', 'GET', `${NS}/pods/other`, `no opinion: ${NO_RELATIONSHIP}`],
  ['its pods, all namespaces', 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1', 'allow'],
  ['a watch of its pods', 'GET', '/api/v1/pods?watch=true&fieldSelector=spec.nodeName%3Dn1', 'allow'],
  ['another node\'s pods', 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn2', 'no opinion: can only list/watch pods with spec.nodeName field selector'],
  ['every pod of a namespace', 'GET', `${NS}/pods`, 'no opinion: can only list/watch pods with spec.nodeName field selector'],
  ['a create of a pod (NodeRestriction decides)', 'POST', `${NS}/pods`, 'allow'],
  ['a pod status patch', 'PATCH', `${NS}/pods/web/status`, 'allow'],
  ['an update of a pod', 'PUT', `${NS}/pods/web`, 'no opinion: '],
  ['an eviction', 'POST', `${NS}/pods/web/eviction`, 'allow'],
  ['the logs of its pod', 'GET', `${NS}/pods/web/log`, 'no opinion: '],
  ['its Lease', 'PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1', 'allow'],
  ['a Lease create (NodeRestriction checks the name)', 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', 'allow'],
  ['another node\'s Lease', 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n2', 'no opinion: can only access node lease with the same name as the requesting node'],
  ['a Lease elsewhere', 'GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases/n1', 'no opinion: can only access leases in the "kube-node-lease" system namespace'],
  ['every Lease', 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', 'no opinion: can only get, create, update, patch, or delete a node lease'],
  ['an Event (node rules)', 'POST', `${NS}/events`, 'allow'],
  ['an events.k8s.io Event', 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', 'no opinion: '],
  ['a CSR create and watch (node rules)', 'GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests?watch=true', 'allow'],
  ['Services (node rules)', 'GET', '/api/v1/services', 'allow'],
  ['a TokenReview (node rules)', 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', 'allow'],
  ['a Namespace', 'GET', '/api/v1/namespaces/default', 'no opinion: '],
  ['a non-resource path', 'GET', '/healthz', 'no opinion: '],
];

describe('Node authorizer', () => {
  const { authorizer } = cluster();
  for (const [what, method, path, expected] of CASES) {
    it(`${what}: ${method} ${path}`, () => assert.equal(decide(authorizer, method, path), expected));
  }

  it('has no opinion on anyone who is not a node, or a node user outside system:nodes', () => {
    assert.equal(decide(authorizer, 'GET', `${NS}/secrets/s1`, { user: 'alice', groups: ['system:nodes'] }), 'no opinion: ');
    assert.equal(decide(authorizer, 'GET', `${NS}/secrets/s1`, { user: 'system:node:n1', groups: ['system:authenticated'] }), 'no opinion: ');
    assert.equal(decide(authorizer, 'GET', `${NS}/secrets/s1`, { user: 'system:node:', groups: ['system:nodes'] }), 'no opinion: unknown node for user "system:node:"');
  });

  it('follows the store: a pod bound, then deleted, grants its references and takes them back', () => {
    const { store, authorizer: live } = cluster();
    const path = `${NS}/secrets/later`;
    store.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'late', namespace: 'default' }, spec: { volumes: [{ name: 'v', secret: { secretName: 'later' } }] } });
    assert.equal(decide(live, 'GET', path), `no opinion: ${NO_RELATIONSHIP}`);
    const late = store.mustGet(PODS, 'default', 'late');
    (late.spec as Record<string, unknown>).nodeName = 'n1';
    store.update(PODS, late);
    assert.equal(decide(live, 'GET', path), 'allow');
    store.remove(PODS, 'default', 'late');
    assert.equal(decide(live, 'GET', path), `no opinion: ${NO_RELATIONSHIP}`);
    store.remove(PVS, undefined, 'pv1');
    assert.equal(decide(live, 'GET', '/api/v1/persistentvolumes/pv1'), `no opinion: ${NO_RELATIONSHIP}`);
    assert.equal(decide(live, 'GET', `${NS}/secrets/pv-secret`), `no opinion: ${NO_RELATIONSHIP}`);
  });
});
