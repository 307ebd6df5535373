// The RBAC authorizer over upstream's bootstrap policy, case by case as
// kube-apiserver's RBACAuthorizer decides, and the clusterrole aggregation that
// builds admin, edit and view.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { requestAttributesOf } from '../../src/testapiserver/authz/attributes.js';
import { seedBootstrapPolicy } from '../../src/testapiserver/authz/bootstrap-policy.js';
import { RbacAuthorizer } from '../../src/testapiserver/authz/rbac-authorizer.js';
import { CLUSTER_ROLE_BINDINGS, CLUSTER_ROLES, ROLE_BINDINGS, ROLES } from '../../src/testapiserver/authz/rbac-resources.js';
import { ClusterRoleAggregator } from '../../src/testapiserver/authz/role-aggregation.js';
import { Store } from '../../src/testapiserver/store.js';
import type { ClientIdentity } from '../../src/testapiserver/tls.js';

const RBAC = 'rbac.authorization.k8s.io';
const ADMIN: ClientIdentity = { user: 'admin', groups: ['system:masters', 'system:authenticated'] };
const BOB: ClientIdentity = { user: 'bob', groups: ['system:authenticated'] };
const OPS: ClientIdentity = { user: 'carol', groups: ['ops', 'system:authenticated'] };
const ROBOT: ClientIdentity = { user: 'system:serviceaccount:team:robot', groups: ['system:serviceaccounts', 'system:authenticated'] };
const NODE: ClientIdentity = { user: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };

function binding(name: string, namespace: string | undefined, roleKind: string, role: string, subjects: object[]) {
  return { apiVersion: `${RBAC}/v1`, kind: namespace ? 'RoleBinding' : 'ClusterRoleBinding', metadata: { name, namespace }, roleRef: { apiGroup: RBAC, kind: roleKind, name: role }, subjects };
}

describe('RBAC authorizer', () => {
  const store = new Store();
  const rbac = new RbacAuthorizer(store);
  const decide = (user: ClientIdentity, method: string, path: string): string => {
    const decided = rbac.authorize(requestAttributesOf(method, new URL(path, 'https://apiserver.invalid'), user));
    return decided.decision === 'allow' ? `allow (${decided.reason})` : `no opinion: ${decided.reason}`;
  };

  before(() => {
    seedBootstrapPolicy(store);
    new ClusterRoleAggregator(store).start();
    store.create(ROLE_BINDINGS, binding('bob-views', 'team', 'ClusterRole', 'view', [{ kind: 'User', apiGroup: RBAC, name: 'bob' }]));
    store.create(ROLES, { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'one-config', namespace: 'team' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] }] });
    store.create(ROLE_BINDINGS, binding('robot-config', 'team', 'Role', 'one-config', [{ kind: 'ServiceAccount', name: 'robot' }]));
    store.create(CLUSTER_ROLES, { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'status-reader' }, rules: [{ verbs: ['get'], apiGroups: ['*'], resources: ['*/status'] }, { verbs: ['get'], nonResourceURLs: ['/metrics/*'] }] });
    store.create(CLUSTER_ROLE_BINDINGS, binding('ops-status', undefined, 'ClusterRole', 'status-reader', [{ kind: 'Group', apiGroup: RBAC, name: 'ops' }]));
    store.create(CLUSTER_ROLE_BINDINGS, binding('ops-ghost', undefined, 'ClusterRole', 'ghost', [{ kind: 'Group', apiGroup: RBAC, name: 'ops' }]));
  });

  const CASES: Array<[string, ClientIdentity, string, string, string]> = [
    ['system:masters may do anything', ADMIN, 'DELETE', '/api/v1/nodes/n1', 'allow (RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters")'],
    ['system:masters reaches any path', ADMIN, 'GET', '/debug/pprof', 'allow (RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters")'],
    ['anyone authenticated reads discovery', BOB, 'GET', '/apis/apps/v1', 'allow (RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated")'],
    ['anyone authenticated asks what they may do', BOB, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', 'allow (RBAC: allowed by ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated")'],
    ['a plain user lists no pods', BOB, 'GET', '/api/v1/namespaces/default/pods', 'no opinion: '],
    ['a view binding reads pods in its namespace', BOB, 'GET', '/api/v1/namespaces/team/pods', 'allow (RBAC: allowed by RoleBinding "bob-views/team" of ClusterRole "view" to User "bob")'],
    ['a view binding reads its namespace itself', BOB, 'GET', '/api/v1/namespaces/team', 'allow (RBAC: allowed by RoleBinding "bob-views/team" of ClusterRole "view" to User "bob")'],
    ['a view binding reads no Secrets', BOB, 'GET', '/api/v1/namespaces/team/secrets', 'no opinion: '],
    ['a view binding writes nothing', BOB, 'POST', '/api/v1/namespaces/team/pods', 'no opinion: '],
    ['a view binding stays in its namespace', BOB, 'GET', '/api/v1/namespaces/default/pods', 'no opinion: '],
    ['a service account subject defaults to the binding\'s namespace', ROBOT, 'GET', '/api/v1/namespaces/team/configmaps/settings', 'allow (RBAC: allowed by RoleBinding "robot-config/team" of Role "one-config" to ServiceAccount "robot/team")'],
    ['resourceNames limit a rule to those names', ROBOT, 'GET', '/api/v1/namespaces/team/configmaps/other', 'no opinion: '],
    ['resourceNames never allow a list', ROBOT, 'GET', '/api/v1/namespaces/team/configmaps', 'no opinion: '],
    ['*/status matches any status subresource', OPS, 'GET', '/api/v1/namespaces/default/pods/web/status', 'allow (RBAC: allowed by ClusterRoleBinding "ops-status" of ClusterRole "status-reader" to Group "ops")'],
    ['*/status is not the resource', OPS, 'GET', '/api/v1/namespaces/default/pods/web', 'no opinion: RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found'],
    ['a trailing * covers a path prefix', OPS, 'GET', '/metrics/cadvisor', 'allow (RBAC: allowed by ClusterRoleBinding "ops-status" of ClusterRole "status-reader" to Group "ops")'],
    ['the system:node role is bound to nobody', NODE, 'GET', '/api/v1/namespaces/default/pods', 'no opinion: '],
    ['bootstrappers create CSRs', { user: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:authenticated'] }, 'POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests',
      'allow (RBAC: allowed by ClusterRoleBinding "create-csrs-for-bootstrapping" of ClusterRole "system:node-bootstrapper" to Group "system:bootstrappers")'],
  ];
  for (const [what, user, method, path, expected] of CASES) it(`${what}: ${user.user} ${method} ${path}`, () => assert.equal(decide(user, method, path), expected));

  it('aggregates view into edit into admin, and follows a new aggregate-to-view role', async () => {
    const rulesOf = (name: string) => JSON.stringify(store.mustGet(CLUSTER_ROLES, undefined, name).rules);
    assert.ok(rulesOf('view').includes('"pods"') && rulesOf('edit').includes('"pods"') && rulesOf('admin').includes('"rolebindings"'));
    store.create(CLUSTER_ROLES, { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'widgets-view', labels: { [`${RBAC}/aggregate-to-view`]: 'true' } }, rules: [{ verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] }] });
    await new Promise((resolve) => setImmediate(resolve));
    for (const role of ['view', 'edit', 'admin']) assert.ok(rulesOf(role).includes('"widgets"'), `${role} has the widgets rule`);
    assert.equal(decide(BOB, 'GET', '/apis/example.com/v1/namespaces/team/widgets/w'), 'allow (RBAC: allowed by RoleBinding "bob-views/team" of ClusterRole "view" to User "bob")');
  });

  it('lists the rules that apply in a namespace (SelfSubjectRulesReview)', () => {
    const answer = rbac.rulesFor(BOB, 'team');
    assert.equal(answer.incomplete, false);
    assert.ok(answer.rules.some((r) => r.nonResourceURLs?.includes('/api')));
    assert.ok(answer.rules.some((r) => r.resources?.includes('pods') && r.verbs.includes('list')));
    assert.ok(!rbac.rulesFor(BOB, 'default').rules.some((r) => r.resources?.includes('pods')));
  });
});
