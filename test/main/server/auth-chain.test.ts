// The kubelet API's authentication and authorization, against fake reviewers:
// the chain's order (certificate, token, anonymous), and the webhook answers
// cached for upstream's TTLs (cacheTTL; cacheAuthorizedTTL / cacheUnauthorizedTTL).
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { ANONYMOUS_USER, RequestAuthenticator, type TokenReviewResult } from '../../../src/main/server/authenticator.js';
import { forbiddenMessage, RequestAuthorizer } from '../../../src/main/server/authorizer.js';
import type { RequestUser } from '../../../src/main/server/kubelet-routes.js';
import { requestAttributes, type RequestAttributes } from '../../../src/main/server/request-attributes.js';

function request(options: { token?: string; certificate?: { CN: string; O?: string | string[] }; authorized?: boolean }): IncomingMessage {
  const socket = {
    authorized: options.authorized ?? options.certificate !== undefined,
    getPeerCertificate: () => (options.certificate ? { subject: options.certificate } : {}),
  };
  return { socket, headers: options.token ? { authorization: `Bearer ${options.token}` } : {} } as unknown as IncomingMessage;
}

function tokenReviewer(answers: Record<string, RequestUser>) {
  const asked: string[] = [];
  return {
    asked,
    review: async (token: string): Promise<TokenReviewResult> => {
      asked.push(token);
      const user = answers[token];
      return user ? { authenticated: true, user } : { authenticated: false };
    },
  };
}

test('a verified client certificate: CN the user, O the groups, plus system:authenticated', async () => {
  const authn = new RequestAuthenticator({ x509Enabled: true, tokenCacheTtlMs: 0, anonymousEnabled: false });
  assert.deepEqual(await authn.authenticate(request({ certificate: { CN: 'kube-apiserver-kubelet-client', O: 'system:masters' } })), {
    name: 'kube-apiserver-kubelet-client',
    groups: ['system:masters', 'system:authenticated'],
  });
  // A certificate the CA did not sign is no identity: anonymous is off, so nobody.
  assert.equal(await authn.authenticate(request({ certificate: { CN: 'mallory' }, authorized: false })), undefined);
});

test('bearer tokens through TokenReview, answers cached for cacheTTL, rejections too', async () => {
  let nowMs = 0;
  const reviewer = tokenReviewer({ good: { name: 'system:serviceaccount:monitoring:prometheus', groups: ['system:serviceaccounts'] } });
  const authn = new RequestAuthenticator({ x509Enabled: true, tokenReviewer: reviewer, tokenCacheTtlMs: 120_000, anonymousEnabled: false, now: () => nowMs });
  assert.equal((await authn.authenticate(request({ token: 'good' })))?.name, 'system:serviceaccount:monitoring:prometheus');
  assert.equal(await authn.authenticate(request({ token: 'bad' })), undefined);
  await authn.authenticate(request({ token: 'good' }));
  await authn.authenticate(request({ token: 'bad' }));
  assert.deepEqual(reviewer.asked, ['good', 'bad'], 'the second asks came from the cache');
  nowMs = 120_001;
  await authn.authenticate(request({ token: 'good' }));
  assert.deepEqual(reviewer.asked, ['good', 'bad', 'good'], 'asked again once the TTL passed');
});

test('no credentials: anonymous only when enabled; without a webhook a token is no identity', async () => {
  const anonymousOn = new RequestAuthenticator({ x509Enabled: false, tokenCacheTtlMs: 0, anonymousEnabled: true });
  assert.deepEqual(await anonymousOn.authenticate(request({})), ANONYMOUS_USER);
  const anonymousOff = new RequestAuthenticator({ x509Enabled: false, tokenCacheTtlMs: 0, anonymousEnabled: false });
  assert.equal(await anonymousOff.authenticate(request({})), undefined);
  assert.equal(await anonymousOff.authenticate(request({ token: 'anything' })), undefined);
});

test('Webhook authorization: the first allowed attribute set wins; answers cached for the authorized and unauthorized TTLs', async () => {
  let nowMs = 0;
  const asked: string[] = [];
  const allowed = new Set(['alice:proxy', 'bob:pods']);
  const authz = new RequestAuthorizer({
    mode: 'Webhook',
    accessReviewer: {
      review: async (user: RequestUser, attributes: RequestAttributes) => {
        asked.push(`${user.name}:${attributes.subresource}`);
        return { allowed: allowed.has(`${user.name}:${attributes.subresource}`) };
      },
    },
    cacheAuthorizedTtlMs: 300_000,
    cacheUnauthorizedTtlMs: 30_000,
    now: () => nowMs,
  });
  const alice = { name: 'alice', groups: [] };
  const bob = { name: 'bob', groups: [] };
  const carol = { name: 'carol', groups: ['dev'] };
  const pods = requestAttributes('GET', '/pods', 'node-a');
  assert.equal((await authz.authorize(alice, pods)).allowed, true, 'nodes/proxy allows /pods');
  assert.equal((await authz.authorize(bob, pods)).allowed, true, 'nodes/pods allows /pods');
  const denied = await authz.authorize(carol, pods);
  assert.equal(denied.allowed, false);
  assert.equal(forbiddenMessage(carol, denied.checked), 'Forbidden (user=carol, verb=get, resource=nodes, subresource(s)=[pods proxy])\n');
  assert.deepEqual(asked, ['alice:pods', 'alice:proxy', 'bob:pods', 'carol:pods', 'carol:proxy']);

  asked.length = 0;
  nowMs = 30_001;
  await authz.authorize(alice, pods);
  await authz.authorize(carol, pods);
  assert.deepEqual(asked, ['alice:pods', 'carol:pods', 'carol:proxy'], 'denials expire after 30s, the allow is still cached');
});

test('AlwaysAllow asks nobody', async () => {
  const authz = new RequestAuthorizer({ mode: 'AlwaysAllow', cacheAuthorizedTtlMs: 0, cacheUnauthorizedTtlMs: 0 });
  assert.equal((await authz.authorize(ANONYMOUS_USER, requestAttributes('POST', '/exec/a/b/c', 'n'))).allowed, true);
});
