// Authentication: client certificates from the server's CA, static bearer
// tokens and TokenRequest-issued service-account tokens; nothing else gets in.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from './harness.js';

const run = promisify(execFile);

describe('test apiserver authentication', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('answers 401 with an Unauthorized Status without credentials', async () => {
    const res = await h.request('GET', '/api/v1/pods', { auth: 'none' });
    assert.equal(res.status, 401);
    assert.deepEqual({ kind: res.body.kind, reason: res.body.reason, code: res.body.code }, { kind: 'Status', reason: 'Unauthorized', code: 401 });
    assert.equal((await h.request('GET', '/api/v1/pods', { auth: { token: 'wrong' } })).status, 401);
  });

  it('accepts a static bearer token, also through a kubeconfig', async () => {
    h.server.addToken('s3cret', 'ops', ['system:masters']);
    assert.equal((await h.request('GET', '/api/v1/namespaces', { auth: { token: 's3cret' } })).status, 200);
    const file = await h.server.writeKubeconfig(path.join(h.dir, 'token.kubeconfig'), { user: 'admin', token: 's3cret' });
    const { stdout } = await run('kubectl', ['--kubeconfig', file, 'get', 'namespaces']);
    assert.match(stdout, /^kube-node-lease\s+Active/m);
  });

  it('issues service-account tokens through TokenRequest that authenticate', async () => {
    const res = await h.request('POST', '/api/v1/namespaces/default/serviceaccounts/default/token', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['api'], expirationSeconds: 3600 } },
    });
    assert.equal(res.status, 201);
    const token: string = res.body.status.token;
    assert.equal(token.split('.').length, 3);
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    assert.equal(claims.sub, 'system:serviceaccount:default:default');
    assert.ok(Date.parse(res.body.status.expirationTimestamp) > Date.now() + 3500_000);
    // The token authenticates as the service account, which RBAC grants nothing by default.
    const refused = await h.request('GET', '/api/v1/namespaces/default/configmaps', { auth: { token } });
    assert.equal(refused.status, 403);
    assert.match(refused.body.message, /User "system:serviceaccount:default:default" cannot list resource "configmaps"/);
    assert.equal((await h.request('GET', '/api/v1/namespaces', { auth: { token: `${token}x` } })).status, 401);
  });
});
