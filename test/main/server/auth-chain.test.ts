// The kubelet API's authentication and authorization, against fake reviewers and
// fake TLS sockets: the chain as upstream's union (certificate, token; anonymous
// only when no credential was presented), the client CA bundle in use judging
// every request, and the webhook answers cached for upstream's TTLs (cacheTTL;
// cacheAuthorizedTTL / cacheUnauthorizedTTL), keyed by the whole user.
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { ANONYMOUS_USER, bearerToken, RequestAuthenticator, type Authentication, type TokenReviewResult } from '../../../src/main/server/authenticator.js';
import { forbiddenMessage, RequestAuthorizer } from '../../../src/main/server/authorizer.js';
import type { ClientCaSource } from '../../../src/main/server/client-ca.js';
import type { RequestUser } from '../../../src/main/server/kubelet-routes.js';
import { requestAttributes, type RequestAttributes } from '../../../src/main/server/request-attributes.js';

const DAY_MS = 86_400_000;
const NOW_MS = Date.parse('2030-01-01T00:00:00Z');
const TRUSTED_ROOT = 'AA:AA';

/** The client CA bundle in use, by fingerprint; tests swap it as a reload would. */
function clientCa(fingerprints: string[] = [TRUSTED_ROOT]): ClientCaSource & { fingerprints: string[] } {
  const source = { fingerprints, current: () => ({ pem: '', fingerprints: new Set(source.fingerprints) }) };
  return source;
}

interface FakeCertificate {
  CN: string;
  O?: string | string[];
  /** Whether OpenSSL verified it at the handshake. */
  authorized?: boolean;
  root?: string;
  validFromMs?: number;
  validToMs?: number;
}

/** A request on a TLS socket as Node presents it: the handshake's verdict and the verified chain, leaf to root. */
function request(options: { token?: string; authorization?: string; certificate?: FakeCertificate }): IncomingMessage {
  const cert = options.certificate;
  const dates = { valid_from: new Date(cert?.validFromMs ?? NOW_MS - DAY_MS).toUTCString(), valid_to: new Date(cert?.validToMs ?? NOW_MS + DAY_MS).toUTCString() };
  const root: Record<string, unknown> = { fingerprint256: cert?.root ?? TRUSTED_ROOT, ...dates };
  root.issuerCertificate = root;
  const leaf = cert ? { subject: { CN: cert.CN, ...(cert.O ? { O: cert.O } : {}) }, serialNumber: '0A', fingerprint256: 'LE:AF', ...dates, issuerCertificate: root } : {};
  const socket = {
    authorized: cert?.authorized ?? cert !== undefined,
    authorizationError: cert?.authorized === false ? 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' : undefined,
    getPeerCertificate: () => leaf,
  };
  const authorization = options.authorization ?? (options.token ? `Bearer ${options.token}` : undefined);
  return { socket, headers: authorization ? { authorization } : {} } as unknown as IncomingMessage;
}

function tokenReviewer(answers: Record<string, RequestUser>) {
  const asked: string[] = [];
  return {
    asked,
    review: async (token: string): Promise<TokenReviewResult> => {
      asked.push(token);
      if (token === 'unreachable') throw new Error('connect ECONNREFUSED');
      const user = answers[token];
      return user ? { authenticated: true, user } : { authenticated: false };
    },
  };
}

function userOf(authentication: Authentication): RequestUser | undefined {
  return authentication.user;
}

test('a verified client certificate: CN the user, O the groups, plus system:authenticated', async () => {
  const authn = new RequestAuthenticator({ clientCa: clientCa(), tokenCacheTtlMs: 0, anonymousEnabled: false, now: () => NOW_MS });
  assert.deepEqual(userOf(await authn.authenticate(request({ certificate: { CN: 'kube-apiserver-kubelet-client', O: 'system:masters' } }))), {
    name: 'kube-apiserver-kubelet-client',
    groups: ['system:masters', 'system:authenticated'],
  });
  // A verified certificate with no CN names nobody (upstream's CommonNameUserConversion): no credential, so anonymous may follow.
  const anonymousOn = new RequestAuthenticator({ clientCa: clientCa(), tokenCacheTtlMs: 0, anonymousEnabled: true, now: () => NOW_MS });
  assert.deepEqual(userOf(await anonymousOn.authenticate(request({ certificate: { CN: '' } }))), ANONYMOUS_USER);
});

test('a certificate the client CA does not vouch for is a 401, not anonymous, even with anonymous enabled', async () => {
  const authn = new RequestAuthenticator({ clientCa: clientCa(), tokenCacheTtlMs: 0, anonymousEnabled: true, now: () => NOW_MS });
  const untrusted = await authn.authenticate(request({ certificate: { CN: 'mallory', authorized: false } }));
  assert.equal(untrusted.user, undefined);
  assert.ok(!untrusted.user && untrusted.certificateFailed);
  assert.match(!untrusted.user ? untrusted.failures[0]!.failed : '', /^verifying certificate SN=0A failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
  // Outside its validity at the time of the request (a long keep-alive connection): refused as Go's per-request Verify does.
  const expired = await authn.authenticate(request({ certificate: { CN: 'alice', validToMs: NOW_MS - 1 } }));
  assert.equal(expired.user, undefined);
});

test('the client CA bundle in use decides on every request: a chain to a removed CA is refused on an open connection', async () => {
  const ca = clientCa([TRUSTED_ROOT]);
  const authn = new RequestAuthenticator({ clientCa: ca, tokenCacheTtlMs: 0, anonymousEnabled: true, now: () => NOW_MS });
  const req = request({ certificate: { CN: 'alice', root: TRUSTED_ROOT } });
  assert.equal(userOf(await authn.authenticate(req))?.name, 'alice');
  ca.fingerprints = ['BB:BB'];
  const after = await authn.authenticate(req);
  assert.equal(after.user, undefined);
  assert.match(!after.user ? after.failures[0]!.failed : '', /unknown authority/);
});

test('an untrusted certificate with a token the API server accepts: the token names the user, as upstream\'s union', async () => {
  const reviewer = tokenReviewer({ good: { name: 'bob', groups: [] } });
  const authn = new RequestAuthenticator({ clientCa: clientCa(), tokenReviewer: reviewer, tokenCacheTtlMs: 0, anonymousEnabled: false, now: () => NOW_MS });
  assert.equal(userOf(await authn.authenticate(request({ certificate: { CN: 'mallory', authorized: false }, token: 'good' })))?.name, 'bob');
});

test('bearer tokens through TokenReview, answers cached for cacheTTL, rejections too', async () => {
  let nowMs = 0;
  const reviewer = tokenReviewer({ good: { name: 'system:serviceaccount:monitoring:prometheus', groups: ['system:serviceaccounts'] } });
  const authn = new RequestAuthenticator({ clientCa: clientCa(), tokenReviewer: reviewer, tokenCacheTtlMs: 120_000, anonymousEnabled: false, now: () => nowMs });
  assert.equal(userOf(await authn.authenticate(request({ token: 'good' })))?.name, 'system:serviceaccount:monitoring:prometheus');
  assert.equal((await authn.authenticate(request({ token: 'bad' }))).user, undefined);
  await authn.authenticate(request({ token: 'good' }));
  await authn.authenticate(request({ token: 'bad' }));
  assert.deepEqual(reviewer.asked, ['good', 'bad'], 'the second asks came from the cache');
  nowMs = 120_001;
  await authn.authenticate(request({ token: 'good' }));
  assert.deepEqual(reviewer.asked, ['good', 'bad', 'good'], 'asked again once the TTL passed');
});

test('a token the API server rejects, or cannot review, is a 401 even with anonymous enabled (upstream\'s FailOnError union)', async () => {
  const reviewer = tokenReviewer({ good: { name: 'bob', groups: [] } });
  const authn = new RequestAuthenticator({ tokenReviewer: reviewer, tokenCacheTtlMs: 0, anonymousEnabled: true });
  const rejected = await authn.authenticate(request({ token: 'bad' }));
  assert.deepEqual(rejected, { failures: [{ failed: 'invalid bearer token' }], certificateFailed: false });
  const unreachable = await authn.authenticate(request({ token: 'unreachable' }));
  assert.equal(unreachable.user, undefined);
  assert.equal(!unreachable.user && unreachable.failures[0]!.webhookError, true);
  // No credential at all: anonymous.
  assert.deepEqual(userOf(await authn.authenticate(request({}))), ANONYMOUS_USER);
});

test('a successful token is taken off the request, so no handler can pass it on', async () => {
  const authn = new RequestAuthenticator({ tokenReviewer: tokenReviewer({ good: { name: 'bob', groups: [] } }), tokenCacheTtlMs: 0, anonymousEnabled: false });
  const req = request({ token: 'good' });
  await authn.authenticate(req);
  assert.equal(req.headers.authorization, undefined);
});

test('TokenReview\'s uid and extra stay with the user; system:authenticated is added as upstream\'s group adder does', async () => {
  const reviewer = tokenReviewer({
    sa: { name: 'system:serviceaccount:ns:sa', uid: 'u-1', groups: ['system:serviceaccounts'], extra: { 'authentication.kubernetes.io/credential-id': ['JTI=1'] } },
    already: { name: 'carol', groups: ['system:authenticated'] },
    unauth: { name: 'dave', groups: ['system:unauthenticated'] },
  });
  const authn = new RequestAuthenticator({ tokenReviewer: reviewer, tokenCacheTtlMs: 0, anonymousEnabled: false });
  assert.deepEqual(userOf(await authn.authenticate(request({ token: 'sa' }))), {
    name: 'system:serviceaccount:ns:sa',
    uid: 'u-1',
    groups: ['system:serviceaccounts', 'system:authenticated'],
    extra: { 'authentication.kubernetes.io/credential-id': ['JTI=1'] },
  });
  assert.deepEqual(userOf(await authn.authenticate(request({ token: 'already' })))?.groups, ['system:authenticated']);
  assert.deepEqual(userOf(await authn.authenticate(request({ token: 'unauth' })))?.groups, ['system:unauthenticated']);
});

test('the Authorization header read as upstream\'s bearer token authenticator reads it', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('  bearer abc  '), 'abc');
  assert.equal(bearerToken('BEARER abc def'), 'abc');
  assert.equal(bearerToken('Bearer  abc'), undefined, 'two spaces: the token part is empty');
  assert.equal(bearerToken('Bearer'), undefined);
  assert.equal(bearerToken('Basic YWxpY2U6cHc='), undefined);
  assert.equal(bearerToken(undefined), undefined);
});

test('no credentials: anonymous only when enabled; without a webhook a token is no identity', async () => {
  const anonymousOn = new RequestAuthenticator({ tokenCacheTtlMs: 0, anonymousEnabled: true });
  assert.deepEqual(userOf(await anonymousOn.authenticate(request({}))), ANONYMOUS_USER);
  // Upstream ignores every token when there is no TokenReview client.
  assert.deepEqual(userOf(await anonymousOn.authenticate(request({ token: 'anything' }))), ANONYMOUS_USER);
  const anonymousOff = new RequestAuthenticator({ tokenCacheTtlMs: 0, anonymousEnabled: false });
  assert.equal((await anonymousOff.authenticate(request({}))).user, undefined);
  assert.equal((await anonymousOff.authenticate(request({ token: 'anything' }))).user, undefined);
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

test('Webhook authorization: the same name with another uid or extra is another user, asked again', async () => {
  const asked: RequestUser[] = [];
  const authz = new RequestAuthorizer({
    mode: 'Webhook',
    accessReviewer: { review: async (user: RequestUser) => (asked.push(user), { allowed: user.uid === 'u-1' }) },
    cacheAuthorizedTtlMs: 300_000,
    cacheUnauthorizedTtlMs: 30_000,
  });
  const metrics = requestAttributes('GET', '/metrics', 'node-a');
  assert.equal((await authz.authorize({ name: 'sa', uid: 'u-1', groups: [] }, metrics)).allowed, true);
  assert.equal((await authz.authorize({ name: 'sa', uid: 'u-2', groups: [] }, metrics)).allowed, false, 'not the cached allow of u-1');
  await authz.authorize({ name: 'sa', uid: 'u-1', groups: [], extra: { scopes: ['a'] } }, metrics);
  assert.deepEqual(asked.map((user) => [user.uid, user.extra]), [['u-1', undefined], ['u-2', undefined], ['u-1', { scopes: ['a'] }]]);
});

test('AlwaysAllow asks nobody', async () => {
  const authz = new RequestAuthorizer({ mode: 'AlwaysAllow', cacheAuthorizedTtlMs: 0, cacheUnauthorizedTtlMs: 0 });
  assert.equal((await authz.authorize(ANONYMOUS_USER, requestAttributes('POST', '/exec/a/b/c', 'n'))).allowed, true);
});
