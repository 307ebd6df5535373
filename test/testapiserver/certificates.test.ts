// The test API server's CSR API and bootstrap tokens, checked as kube-apiserver
// and kube-controller-manager behave: who may authenticate with a token, what a
// CSR records on create, what each subresource may change, which requests the
// approver approves and what the signer issues.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { bootstrapTokenSecret } from '../../src/testapiserver/index.js';
import { eventually, startHarness, type Harness } from './harness.js';

const run = promisify(execFile);
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

async function csrPem(dir: string, subject: string, altNames?: string): Promise<string> {
  const keyFile = path.join(dir, `key-${Math.random().toString(36).slice(2)}.pem`);
  await writeFile(keyFile, generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'sec1', format: 'pem' }));
  const args = ['req', '-new', '-key', keyFile, '-subj', subject, ...(altNames ? ['-addext', `subjectAltName=${altNames}`] : [])];
  return (await run('openssl', args)).stdout;
}

function csrBody(name: string, pem: string, signerName: string, usages: string[]): object {
  return { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: Buffer.from(pem).toString('base64'), signerName, usages, username: 'forged' } };
}

describe('bootstrap tokens', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    await h.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: bootstrapTokenSecret('aaaaaa.0123456789abcdef') });
    await h.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: bootstrapTokenSecret('bbbbbb.0123456789abcdef', { expiration: new Date(Date.now() - 1000) }) });
  });
  after(() => h.close());

  it('authenticates a valid token as system:bootstrap:<id> in system:bootstrappers', async () => {
    const pem = await csrPem(h.dir, '/O=system:nodes/CN=system:node:n1');
    const created = await h.request('POST', CSRS, { auth: { token: 'aaaaaa.0123456789abcdef' }, body: csrBody('c1', pem, 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']) });
    assert.equal(created.status, 201);
    assert.equal(created.body.spec.username, 'system:bootstrap:aaaaaa');
    assert.deepEqual(created.body.spec.groups, ['system:bootstrappers', 'system:authenticated']);
  });

  it('rejects a wrong secret, an expired token and an unknown id with 401', async () => {
    for (const token of ['aaaaaa.ffffffffffffffff', 'bbbbbb.0123456789abcdef', 'cccccc.0123456789abcdef']) {
      assert.equal((await h.request('GET', '/api/v1/nodes', { auth: { token } })).status, 401, token);
    }
  });
});

describe('CertificateSigningRequests', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ autoApproveCsrs: false, clusterSigningDurationMs: 3600_000 });
  });
  after(() => h.close());

  it('rejects a request that is not a PEM CSR, naming spec.request', async () => {
    const res = await h.request('POST', CSRS, { body: csrBody('bad', 'nope', 'kubernetes.io/kube-apiserver-client-kubelet', ['client auth']) });
    assert.equal(res.status, 422);
    assert.match(res.body.message, /spec\.request/);
  });

  it('changes only approval conditions through approval, refuses Approved with Denied, then signs with the CA', async () => {
    const pem = await csrPem(h.dir, '/O=system:nodes/CN=system:node:n1');
    const created = await h.request('POST', CSRS, { body: csrBody('c2', pem, 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']) });
    assert.equal(created.body.spec.username, 'admin');
    const approved = { type: 'Approved', status: 'True', reason: 'Test', message: 'ok' };
    const both = { ...created.body, status: { conditions: [approved, { type: 'Denied', status: 'True', reason: 'Test' }] } };
    assert.equal((await h.request('PUT', `${CSRS}/c2/approval`, { body: both })).status, 422);
    const viaStatus = await h.request('PUT', `${CSRS}/c2/status`, { body: { ...created.body, status: { conditions: [approved] } } });
    assert.equal(viaStatus.body.status.conditions?.length ?? 0, 0, 'the status subresource cannot approve');
    const current = (await h.request('GET', `${CSRS}/c2`)).body;
    assert.equal((await h.request('PUT', `${CSRS}/c2/approval`, { body: { ...current, status: { conditions: [approved] } } })).status, 200);
    const issued = await eventually(async () => (await h.request('GET', `${CSRS}/c2`)).body.status.certificate as string | undefined);
    const cert = new X509Certificate(Buffer.from(issued, 'base64').toString());
    assert.equal(cert.subject.replace(/\n/g, ','), 'O=system:nodes,CN=system:node:n1');
    assert.ok(cert.checkIssued(new X509Certificate((await h.server.clientCredentials({ user: 'admin' })).caPem)));
    const lifetimeMs = Date.parse(cert.validTo) - Date.parse(cert.validFrom);
    assert.ok(lifetimeMs <= 3600_000 && lifetimeMs > 3500_000, `lifetime ${lifetimeMs} ms`);
  });

  it('leaves a denied request without a certificate', async () => {
    const pem = await csrPem(h.dir, '/O=system:nodes/CN=system:node:n1');
    const created = (await h.request('POST', CSRS, { body: csrBody('c3', pem, 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']) })).body;
    const denied = await h.request('PUT', `${CSRS}/c3/approval`, { body: { ...created, status: { conditions: [{ type: 'Denied', status: 'True', reason: 'Test' }] } } });
    assert.equal(denied.status, 200);
    assert.equal(denied.body.status.certificate, undefined);
  });
});

describe('the auto-approver', () => {
  let h: Harness;
  const token = 'dddddd.0123456789abcdef';
  before(async () => {
    h = await startHarness();
    await h.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: bootstrapTokenSecret(token) });
  });
  after(() => h.close());

  it('approves a bootstrapper\'s node client request and not one for another group', async () => {
    const usages = ['digital signature', 'client auth'];
    const masters = await csrPem(h.dir, '/O=system:masters/CN=system:node:n1');
    await h.request('POST', CSRS, { auth: { token }, body: csrBody('c4', masters, 'kubernetes.io/kube-apiserver-client-kubelet', usages) });
    const node = await csrPem(h.dir, '/O=system:nodes/CN=system:node:n1');
    await h.request('POST', CSRS, { auth: { token }, body: csrBody('c5', node, 'kubernetes.io/kube-apiserver-client-kubelet', usages) });
    // c4 was handled before c5 was signed (one openssl call against two).
    const c5 = await eventually(async () => {
      const csr = (await h.request('GET', `${CSRS}/c5`)).body;
      return csr.status.certificate ? csr : undefined;
    });
    assert.equal(c5.status.conditions[0].reason, 'AutoApproved');
    const c4 = (await h.request('GET', `${CSRS}/c4`)).body;
    assert.equal(c4.status.conditions?.length ?? 0, 0);
  });
});
