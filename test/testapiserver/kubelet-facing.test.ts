// What the test API server does for and toward kubelets: TokenReview and
// SubjectAccessReview with the rule table, discovery of the pod and node
// subresources kubectl looks for, nodes/proxy and pods/log|exec forwarded to a
// stand-in kubelet with the API server's client certificate (an upgrade passed
// through as a raw socket), and pods/eviction deleting the pod gracefully.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import tls, { type TLSSocket } from 'node:tls';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadServingPair } from '../../src/main/server/serving-certificate.js';
import { startHarness, type Harness } from './harness.js';

const NODE = 'proxied-node';
let harness: Harness;
let kubelet: https.Server;
/** What the stand-in kubelet was asked: path and query, and who asked (client certificate CN). */
const seen: Array<{ method: string; path: string; user: string }> = [];

function remember(req: IncomingMessage): void {
  const subject = (req.socket as TLSSocket).getPeerCertificate().subject as unknown as { CN?: string } | undefined;
  seen.push({ method: req.method ?? '', path: req.url ?? '', user: subject?.CN ?? '' });
}

before(async () => {
  harness = await startHarness();
  const pair = await loadServingPair({ tlsCertFile: '', tlsPrivateKeyFile: '', certDir: path.join(harness.dir, 'kubelet-pki'), nodeName: NODE, addresses: ['127.0.0.1'] });
  kubelet = https.createServer({ cert: pair.certPem, key: pair.keyPem, requestCert: true, rejectUnauthorized: false }, (req: IncomingMessage, res: ServerResponse) => {
    remember(req);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`kubelet answered ${req.url}`);
  });
  kubelet.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    remember(req);
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${req.headers.upgrade}\r\n\r\n`);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => kubelet.listen(0, '127.0.0.1', resolve));
  const port = (kubelet.address() as AddressInfo).port;
  harness.server.store.create({ key: 'nodes', group: '', plural: 'nodes' }, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: NODE },
    status: { addresses: [{ type: 'Hostname', address: NODE }, { type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } },
  });
  const created = await harness.request('POST', '/api/v1/namespaces/default/pods', {
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { nodeName: NODE, containers: [{ name: 'main', image: 'busybox' }] } },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
});

after(async () => {
  kubelet?.closeAllConnections();
  await new Promise((resolve) => kubelet?.close(resolve));
  await harness?.close();
});

test('TokenReview: a token the server knows is authenticated as its user and groups; another is not', async () => {
  harness.server.addToken('reader-token', 'reader', ['readers']);
  const known = await harness.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'reader-token' } } });
  assert.equal(known.status, 201);
  assert.deepEqual(known.body.status, { authenticated: true, user: { username: 'reader', groups: ['readers', 'system:authenticated'] } });
  const unknown = await harness.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { spec: { token: 'nope' } } });
  assert.equal(unknown.body.status.authenticated, false);
});

test('SubjectAccessReview: denied without a rule, allowed by a user or group rule and for system:masters, revocable', async () => {
  const review = async (user: string, groups: string[], subresource: string) =>
    (await harness.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { spec: { user, groups, resourceAttributes: { verb: 'get', resource: 'nodes', subresource, name: NODE } } },
    })).body.status.allowed as boolean;
  assert.equal(await review('alice', [], 'stats'), false);
  const revoke = harness.server.allow({ users: ['alice'], verbs: ['get'], resources: ['nodes'], subresources: ['stats'] });
  assert.equal(await review('alice', [], 'stats'), true);
  assert.equal(await review('alice', [], 'proxy'), false, 'the rule names stats only');
  harness.server.allow({ groups: ['ops'], resources: ['nodes'] });
  assert.equal(await review('bob', ['ops'], 'proxy'), true);
  assert.equal(await review('root', ['system:masters'], 'proxy'), true);
  revoke();
  assert.equal(await review('alice', [], 'stats'), false);
});

test('discovery lists pods/eviction (policy/v1 Eviction), pods/log|exec|attach|portforward and nodes/proxy', async () => {
  const { body } = await harness.request('GET', '/api/v1');
  const byName = new Map((body.resources as Array<{ name: string; kind: string; group?: string; version?: string; verbs: string[] }>).map((r) => [r.name, r]));
  assert.deepEqual({ ...byName.get('pods/eviction') }, { name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
  for (const name of ['pods/log', 'pods/exec', 'pods/attach', 'pods/portforward', 'nodes/proxy']) assert.ok(byName.has(name), name);
  const groups = (await harness.request('GET', '/apis')).body.groups.map((g: { name: string }) => g.name);
  assert.ok(groups.includes('authentication.k8s.io') && groups.includes('authorization.k8s.io'));
});

test('nodes/proxy and pods/log reach the kubelet at InternalIP:kubeletEndpoint.Port as kube-apiserver-kubelet-client', async () => {
  seen.length = 0;
  const proxied = await harness.request('GET', `/api/v1/nodes/${NODE}/proxy/stats/summary?only_cpu_and_memory=true`);
  assert.equal(proxied.status, 200);
  assert.equal(proxied.body, 'kubelet answered /stats/summary?only_cpu_and_memory=true');
  const logs = await harness.request('GET', '/api/v1/namespaces/default/pods/web/log?follow=true&tailLines=5&timestamps=false&previous=true');
  assert.equal(logs.status, 200);
  assert.deepEqual(seen, [
    { method: 'GET', path: '/stats/summary?only_cpu_and_memory=true', user: 'kube-apiserver-kubelet-client' },
    { method: 'GET', path: '/containerLogs/default/web/main?follow=true&previous=true&tailLines=5', user: 'kube-apiserver-kubelet-client' },
  ]);
});

test('pods/exec with Upgrade: passed through to the kubelet as a raw socket', async () => {
  seen.length = 0;
  const admin = await harness.server.clientCredentials({ user: 'admin' });
  const socket = tls.connect({ host: '127.0.0.1', port: harness.server.port, ca: admin.caPem, cert: admin.certPem, key: admin.keyPem, servername: 'localhost' });
  await new Promise((resolve) => socket.once('secureConnect', resolve));
  socket.write(
    'POST /api/v1/namespaces/default/pods/web/exec?command=echo&command=hi&stdout=true&stdin=true HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n',
  );
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString();
    if (received.includes('\r\n\r\n') && !received.includes('ping')) socket.write('ping');
  });
  const deadline = Date.now() + 10_000;
  while (!received.endsWith('ping') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  socket.destroy();
  assert.match(received, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  assert.ok(received.endsWith('\r\n\r\nping'), `the bytes came back through: ${JSON.stringify(received)}`);
  assert.deepEqual(seen, [{ method: 'POST', path: '/exec/default/web/main?stdin=1&stdout=1&command=echo&command=hi', user: 'kube-apiserver-kubelet-client' }]);
});

test('a WebSocket exec needs create as well as get on pods/exec, as kube-apiserver asks since 1.31', async () => {
  harness.server.allow({ users: ['exec-getter'], verbs: ['get'], resources: ['pods'], subresources: ['exec'] });
  harness.server.allow({ users: ['exec-user'], verbs: ['get', 'create'], resources: ['pods'], subresources: ['exec'] });
  const firstLine = async (user: string): Promise<string> => {
    const credentials = await harness.server.clientCredentials({ user, groups: [] });
    const socket = tls.connect({ host: '127.0.0.1', port: harness.server.port, ca: credentials.caPem, cert: credentials.certPem, key: credentials.keyPem, servername: 'localhost' });
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    socket.write('GET /api/v1/namespaces/default/pods/web/exec?command=true&stdout=true HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const deadline = Date.now() + 10_000;
    const complete = () => received.startsWith('HTTP/1.1 101') ? received.includes('\r\n\r\n') : received.endsWith('}');
    while (!complete() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    return received;
  };
  const refused = await firstLine('exec-getter');
  assert.match(refused, /^HTTP\/1\.1 403 Forbidden\r\n/);
  const status = JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4)) as { message: string; reason: string };
  assert.deepEqual(status, { ...status, reason: 'Forbidden', message: 'pods "web" is forbidden: User "exec-getter" cannot create resource "pods/exec" in API group "" in the namespace "default"' });
  assert.ok(harness.server.refusals().some((r) => r.user === 'exec-getter' && r.verb === 'create' && r.resource === 'pods/exec'));
  assert.match(await firstLine('exec-user'), /^HTTP\/1\.1 101 Switching Protocols\r\n/);
});

test('pods/eviction deletes the pod gracefully (it is bound to a node)', async () => {
  const evicted = await harness.request('POST', '/api/v1/namespaces/default/pods/web/eviction', {
    body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web', namespace: 'default' }, deleteOptions: { gracePeriodSeconds: 5 } },
  });
  assert.equal(evicted.status, 201, JSON.stringify(evicted.body));
  const pod = (await harness.request('GET', '/api/v1/namespaces/default/pods/web')).body;
  assert.equal(pod.metadata.deletionGracePeriodSeconds, 5);
  assert.ok(pod.metadata.deletionTimestamp);
});
