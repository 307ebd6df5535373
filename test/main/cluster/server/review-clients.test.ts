// The TokenReview and SubjectAccessReview clients against a fake API server that
// records what it was sent: the reviews carry who asks whole, as upstream's
// webhook authorizer sends them (user, uid, groups, extra), and a TokenReview's
// uid and extra come back with the user.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { accessReviewer, tokenReviewer } from '../../../../src/main/cluster/server/review-clients.js';
import { requestAttributes } from '../../../../src/main/server/request-attributes.js';

let dir: string;
let server: http.Server;
let kubeconfig: string;
/** A TokenReview or SubjectAccessReview as the server received it. */
interface ReviewBody {
  kind?: string;
  spec?: Record<string, unknown>;
}
const received: Array<{ path: string; body: ReviewBody }> = [];

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'shardlet-review-clients-'));
  server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as ReviewBody;
      received.push({ path: req.url ?? '', body });
      const status = body.kind === 'TokenReview'
        ? { authenticated: true, user: { username: 'system:serviceaccount:ns:sa', uid: 'u-1', groups: ['system:serviceaccounts'], extra: { 'authentication.kubernetes.io/credential-id': ['JTI=7'] } } }
        : { allowed: true };
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...body, status }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  kubeconfig = path.join(dir, 'kubeconfig');
  await writeFile(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true } }]
users: [{ name: u, user: { token: node-token } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`,
  );
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

test('a SubjectAccessReview carries the user\'s uid and extra beside name and groups', async () => {
  const user = { name: 'system:serviceaccount:ns:sa', uid: 'u-1', groups: ['system:serviceaccounts', 'system:authenticated'], extra: { scopes: ['view'], 'authentication.kubernetes.io/credential-id': ['JTI=7'] } };
  const [attributes] = requestAttributes('GET', '/metrics', 'node-a');
  assert.deepEqual(await accessReviewer(kubeconfig).review(user, attributes!), { allowed: true, reason: undefined });
  const review = received.at(-1)!;
  assert.equal(review.path, '/apis/authorization.k8s.io/v1/subjectaccessreviews');
  assert.deepEqual(review.body.spec, {
    user: user.name,
    uid: 'u-1',
    groups: user.groups,
    extra: user.extra,
    resourceAttributes: { verb: 'get', version: 'v1', resource: 'nodes', subresource: 'metrics', name: 'node-a' },
  });
});

test('a TokenReview\'s uid and extra come back with the user', async () => {
  assert.deepEqual(await tokenReviewer(kubeconfig).review('some-token'), {
    authenticated: true,
    user: { name: 'system:serviceaccount:ns:sa', uid: 'u-1', groups: ['system:serviceaccounts'], extra: { 'authentication.kubernetes.io/credential-id': ['JTI=7'] } },
  });
  assert.equal(received.at(-1)!.body.spec?.token, 'some-token');
});
