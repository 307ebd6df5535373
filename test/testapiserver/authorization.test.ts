// Authorization and admission over HTTPS, as a client sees them: upstream's 403
// and 422 bodies, the server's record of every refusal, RBAC's escalation check
// on roles and bindings, the enforce option, and kubectl's `auth can-i` and
// `create rolebinding` against the server.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { podManifest, startHarness, type Harness } from './harness.js';

const run = promisify(execFile);
const RBAC = 'rbac.authorization.k8s.io';
const NODE_TOKEN = 'node-n1-token';

/** kubectl's stdout, and its exit code (auth can-i answers "no" with 1). */
async function kubectl(kubeconfig: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('authorization and admission over HTTPS', () => {
  let h: Harness;
  let nodeKubeconfig: string;
  let bobKubeconfig: string;

  before(async () => {
    h = await startHarness({ defaultNodeName: 'n1' });
    h.server.addToken(NODE_TOKEN, 'system:node:n1', ['system:nodes']);
    h.server.addToken('bob-token', 'bob');
    h.server.addToken('lead-token', 'lead');
    nodeKubeconfig = await h.server.writeKubeconfig(path.join(h.dir, 'n1.kubeconfig'), { user: 'kubelet', nodeName: 'n1' });
    bobKubeconfig = await h.server.writeKubeconfig(path.join(h.dir, 'bob.kubeconfig'), { user: 'admin', token: 'bob-token' });
    await h.server.writeKubeconfig(path.join(h.dir, 'lead.kubeconfig'), { user: 'admin', token: 'lead-token' });
    assert.equal((await h.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'team' } } })).status, 201);
  });
  after(() => h.close());

  it('refuses a node a namespace-wide list of Secrets with upstream\'s 403 body, and records the refusal', async () => {
    h.server.resetRefusals();
    const res = await h.request('GET', '/api/v1/namespaces/default/secrets', { auth: { token: NODE_TOKEN } });
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'secrets is forbidden: User "system:node:n1" cannot list resource "secrets" in API group "" in the namespace "default": No Object name found',
      reason: 'Forbidden',
      details: { kind: 'secrets' },
      code: 403,
    });
    const [refusal, ...more] = h.server.refusals();
    assert.deepEqual(more, []);
    assert.deepEqual(
      { user: refusal.user, verb: refusal.verb, resource: refusal.resource, namespace: refusal.namespace, name: refusal.name, code: refusal.code, reason: refusal.reason },
      { user: 'system:node:n1', verb: 'list', resource: 'secrets', namespace: 'default', name: '', code: 403, reason: 'Forbidden' },
    );
  });

  it('lets the node read a Secret its pod mounts, by name, and no other', async () => {
    await h.request('POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 'db' }, stringData: { password: 'x' } } });
    await h.request('POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 'unrelated' } } });
    assert.equal((await h.request('GET', '/api/v1/namespaces/default/secrets/db', { auth: { token: NODE_TOKEN } })).status, 403);
    const withSecret = podManifest('db-client', { volumes: [{ name: 's', secret: { secretName: 'db' } }] });
    assert.equal((await h.request('POST', '/api/v1/namespaces/default/pods', { body: withSecret })).status, 201);
    assert.equal((await h.request('GET', '/api/v1/namespaces/default/secrets/db', { auth: { token: NODE_TOKEN } })).status, 200);
    const pinned = await h.request('GET', '/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Ddb', { auth: { token: NODE_TOKEN } });
    assert.equal(pinned.status, 200);
    assert.deepEqual(pinned.body.items.map((s: { metadata: { name: string } }) => s.metadata.name), ['db']);
    const other = await h.request('GET', '/api/v1/namespaces/default/secrets/unrelated', { auth: { token: NODE_TOKEN } });
    assert.equal(other.body.message, 'secrets "unrelated" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node \'n1\' and this object');
  });

  it('lets NodeRestriction refuse a node a pod that is not its mirror pod (403)', async () => {
    const res = await h.request('POST', '/api/v1/namespaces/default/pods', { auth: { token: NODE_TOKEN }, body: podManifest('sneaky') });
    assert.equal(res.status, 403);
    assert.equal(res.body.message, 'pods "sneaky" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods');
    assert.ok(h.server.refusals().some((r) => r.name === 'sneaky' && r.verb === 'create' && r.code === 403));
  });

  it('admits the node\'s own mirror pod, which gets no service account (the ServiceAccount plugin skips mirror pods)', async () => {
    const registered = await h.request('POST', '/api/v1/nodes', { auth: { token: NODE_TOKEN }, body: { metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } } } });
    assert.equal(registered.status, 201);
    const mirror = podManifest('static-web-n1', { nodeName: 'n1' });
    (mirror.metadata as Record<string, unknown>).annotations = { 'kubernetes.io/config.mirror': 'abc' };
    (mirror.metadata as Record<string, unknown>).ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: registered.body.metadata.uid, controller: true }];
    const created = await h.request('POST', '/api/v1/namespaces/default/pods', { auth: { token: NODE_TOKEN }, body: mirror });
    assert.equal(created.status, 201, created.body.message);
    assert.equal(created.body.spec.serviceAccountName, undefined);
  });

  it('refuses a status write that takes a finished pod back to Running (422), and records it', async () => {
    await h.request('POST', '/api/v1/namespaces/default/pods', { body: podManifest('done', { restartPolicy: 'Never' }) });
    const patch = (phase: string) => h.request('PATCH', '/api/v1/namespaces/default/pods/done/status', { auth: { token: NODE_TOKEN }, contentType: 'application/merge-patch+json', body: { status: { phase } } });
    assert.equal((await patch('Succeeded')).status, 200);
    const back = await patch('Running');
    assert.equal(back.status, 422);
    assert.equal(back.body.reason, 'Invalid');
    assert.deepEqual(back.body.details, {
      name: 'done', kind: 'Pod',
      causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: cannot transition from a terminal phase "Succeeded" to another phase "Running"', field: 'status.phase' }],
    });
    assert.ok(h.server.refusals().some((r) => r.name === 'done' && r.verb === 'patch' && r.resource === 'pods/status' && r.code === 422));
  });

  it('lets a namespace admin bind what it holds, and nothing more (RBAC escalation check)', async () => {
    const leadAdmin = { metadata: { name: 'lead-admin' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'admin' }, subjects: [{ kind: 'User', name: 'lead' }] };
    assert.equal((await h.request('POST', `/apis/${RBAC}/v1/namespaces/team/rolebindings`, { body: leadAdmin })).status, 201);
    const as = { auth: { token: 'lead-token' } } as const;
    const bind = (name: string, role: string) => h.request('POST', `/apis/${RBAC}/v1/namespaces/team/rolebindings`, { ...as, body: { metadata: { name }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role }, subjects: [{ kind: 'User', apiGroup: RBAC, name: 'bob' }] } });
    assert.equal((await bind('bob-edit', 'edit')).status, 201);
    const escalation = await bind('bob-root', 'cluster-admin');
    assert.equal(escalation.status, 403);
    assert.match(escalation.body.message, /^rolebindings\.rbac\.authorization\.k8s\.io "bob-root" is forbidden: user "lead" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}/);
    const role = (rules: object[]) => h.request('POST', `/apis/${RBAC}/v1/namespaces/team/roles`, { ...as, body: { metadata: { name: `r-${Math.random().toString(36).slice(2, 7)}` }, rules } });
    assert.equal((await role([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }])).status, 201);
    const nodes = await role([{ verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] }]);
    assert.equal(nodes.status, 403);
    assert.match(nodes.body.message, /not currently held:\n\{APIGroups:\[""\], Resources:\["nodes"\], Verbs:\["get" "list"\]\}$/);
  });

  it('validates bindings: an unknown roleRef kind, and a changed roleRef (422)', async () => {
    const bad = await h.request('POST', `/apis/${RBAC}/v1/clusterrolebindings`, { body: { metadata: { name: 'bad' }, roleRef: { kind: 'Role', name: 'x' }, subjects: [{ kind: 'Robot', name: 'r' }] } });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.message, 'ClusterRoleBinding.rbac.authorization.k8s.io "bad" is invalid: [roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"]');
    const changed = await h.request('PATCH', `/apis/${RBAC}/v1/namespaces/team/rolebindings/lead-admin`, { contentType: 'application/merge-patch+json', body: { roleRef: { name: 'view' } } });
    assert.equal(changed.status, 422);
    assert.match(changed.body.message, /roleRef: Invalid value: .*: cannot change roleRef$/);
  });

  it('answers kubectl auth can-i as a cluster would: admin, node, a user before and after a rolebinding', async () => {
    assert.equal((await kubectl(h.adminKubeconfig, 'auth', 'can-i', 'delete', 'nodes')).stdout.trim(), 'yes');
    assert.equal((await kubectl(nodeKubeconfig, 'auth', 'can-i', 'get', 'nodes/n1')).stdout.trim(), 'yes');
    const nodeSecrets = await kubectl(nodeKubeconfig, 'auth', 'can-i', 'list', 'secrets', '-n', 'default');
    // kubectl prints the authorizers' reason after the answer, as against kube-apiserver.
    assert.deepEqual([nodeSecrets.code, nodeSecrets.stdout.trim()], [1, 'no - No Object name found']);
    assert.equal((await kubectl(nodeKubeconfig, 'auth', 'can-i', 'get', 'secrets/db', '-n', 'default')).stdout.trim(), 'yes');
    const before = await kubectl(bobKubeconfig, 'auth', 'can-i', 'list', 'pods', '-n', 'other');
    assert.deepEqual([before.code, before.stdout.trim()], [1, 'no']);
    assert.equal((await h.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'other' } } })).status, 201);
    const created = await kubectl(h.adminKubeconfig, 'create', 'rolebinding', 'bob-view', '--clusterrole=view', '--user=bob', '-n', 'other');
    assert.match(created.stdout, /rolebinding\.rbac\.authorization\.k8s\.io\/bob-view created/, created.stderr);
    assert.equal((await kubectl(bobKubeconfig, 'auth', 'can-i', 'list', 'pods', '-n', 'other')).stdout.trim(), 'yes');
    const write = await kubectl(bobKubeconfig, 'auth', 'can-i', 'create', 'pods', '-n', 'other');
    assert.deepEqual([write.code, write.stdout.trim()], [1, 'no']);
  });

  it('kubectl create clusterrolebinding takes effect, and kubectl auth can-i --list shows the rules', async () => {
    const created = await kubectl(h.adminKubeconfig, 'create', 'clusterrolebinding', 'bob-nodes', '--clusterrole=system:kubelet-api-admin', '--user=bob');
    assert.match(created.stdout, /clusterrolebinding\.rbac\.authorization\.k8s\.io\/bob-nodes created/, created.stderr);
    assert.equal((await kubectl(bobKubeconfig, 'auth', 'can-i', 'get', 'nodes', '--subresource=stats')).stdout.trim(), 'yes');
    const listed = await kubectl(bobKubeconfig, 'auth', 'can-i', '--list', '-n', 'other');
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/m);
    assert.match(listed.stdout, /^pods\s+\[\]\s+\[\]\s+\[get list watch\]/m);
    assert.match(listed.stdout, /^nodes\/stats\s+\[\]\s+\[\]\s+\[\*\]/m);
    assert.match(listed.stdout, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/m);
    assert.match(listed.stdout, /^\s+\[\/version\]\s+\[\]\s+\[get\]/m);
  });

  it('answers a SubjectAccessReview from a kubelet with the same chain', async () => {
    const review = (user: string, groups: string[]) => h.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      auth: { token: NODE_TOKEN },
      body: { spec: { user, groups, resourceAttributes: { verb: 'get', resource: 'nodes', subresource: 'stats', name: 'n1' } } },
    });
    const allowed = await review('bob', ['system:authenticated']);
    assert.equal(allowed.status, 201);
    assert.deepEqual(allowed.body.status, { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "bob-nodes" of ClusterRole "system:kubelet-api-admin" to User "bob"' });
    assert.deepEqual((await review('eve', ['system:authenticated'])).body.status, { allowed: false });
  });
});

describe('enforce: false', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ enforce: false });
    h.server.addToken(NODE_TOKEN, 'system:node:n1', ['system:nodes']);
  });
  after(() => h.close());

  it('lets every authenticated user do everything, as before authorization existed', async () => {
    assert.equal((await h.request('GET', '/api/v1/namespaces/default/secrets', { auth: { token: NODE_TOKEN } })).status, 200);
    assert.equal((await h.request('POST', '/api/v1/namespaces/default/pods', { auth: { token: NODE_TOKEN }, body: podManifest('anything') })).status, 201);
    assert.deepEqual(h.server.refusals(), []);
  });
});
