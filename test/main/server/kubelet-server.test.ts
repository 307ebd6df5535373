// The kubelet API server's filter chain on a real TLS socket: refusals before any
// route (401 for plain and upgrade requests), 404 for unknown paths after auth,
// enableDebuggingHandlers: false answering the debugging paths 405 whatever is
// registered, a route's upgrade handler owning the socket, client certificates
// judged against the client CA file as it is now (reloaded when it changes), and
// the request series labelled from fixed sets.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import tls from 'node:tls';
import { pino } from 'pino';
import { httpRequests } from '../../../src/main/metrics/http-metrics.js';
import { RequestAuthenticator } from '../../../src/main/server/authenticator.js';
import { RequestAuthorizer } from '../../../src/main/server/authorizer.js';
import { DynamicClientCa } from '../../../src/main/server/client-ca.js';
import { KubeletRoutes } from '../../../src/main/server/kubelet-routes.js';
import { KubeletServer } from '../../../src/main/server/kubelet-server.js';
import { loadServingPair, type ServingPair } from '../../../src/main/server/serving-certificate.js';
import { nodeTlsSettings } from '../../../src/main/server/tls-settings.js';
import { CertificateAuthority, type KeyPair } from '../../../src/testapiserver/tls.js';

let dir: string;
let pair: ServingPair;
const servers: KubeletServer[] = [];
const authorities: CertificateAuthority[] = [];
const clientCas: DynamicClientCa[] = [];

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'shardlet-kubelet-server-'));
  pair = await loadServingPair({ tlsCertFile: '', tlsPrivateKeyFile: '', certDir: dir, nodeName: 'node-a', addresses: ['127.0.0.1'] });
});

after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  for (const ca of clientCas) ca.stop();
  await Promise.all(authorities.map((authority) => authority.destroy()));
  await rm(dir, { recursive: true, force: true });
});

async function start(options: { anonymous: boolean; debuggingHandlers: boolean; clientCa?: DynamicClientCa }): Promise<number> {
  const routes = new KubeletRoutes();
  routes.add({ path: '/pods', methods: ['GET'], request: (_req, res, ctx) => void res.end(`pods for ${ctx.user.name}`) });
  routes.add({ path: '/exec/', methods: ['GET', 'POST'], request: (_req, res) => void res.end('exec') });
  routes.add({
    path: '/echo/',
    methods: ['GET'],
    upgrade: (_req, socket) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n');
      socket.pipe(socket);
    },
  });
  const server = new KubeletServer(routes, {
    nodeName: 'node-a',
    authenticator: new RequestAuthenticator({ clientCa: options.clientCa, tokenCacheTtlMs: 0, anonymousEnabled: options.anonymous }),
    authorizer: new RequestAuthorizer({ mode: 'AlwaysAllow', cacheAuthorizedTtlMs: 0, cacheUnauthorizedTtlMs: 0 }),
    fineGrainedAuthz: true,
    debuggingHandlers: options.debuggingHandlers,
    tls: nodeTlsSettings('VersionTLS12', []),
    clientCa: options.clientCa,
    logger: pino({ level: 'silent' }),
  });
  servers.push(server);
  return server.listen('127.0.0.1', 0, pair);
}

interface Answer {
  status: number;
  body: string;
  /** Whether the request went over a connection an earlier request opened. */
  reusedSocket?: boolean;
  connection?: string;
}

function get(port: number, urlPath: string, method = 'GET', client?: { cert: KeyPair; agent?: https.Agent }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const credentials = client ? { cert: client.cert.certPem, key: client.cert.keyPem, agent: client.agent } : {};
    const req = https.request({ host: '127.0.0.1', port, path: urlPath, method, ca: pair.certPem, servername: 'node-a', ...credentials }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => {
        const answer: Answer = { status: res.statusCode ?? 0, body };
        if (client) Object.assign(answer, { reusedSocket: req.reusedSocket, connection: res.headers.connection });
        resolve(answer);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends an upgrade request on a raw TLS socket; resolves with everything received once `until` matches or the socket ends. */
function upgrade(port: number, urlPath: string, thenWrite: string, until: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca: pair.certPem, servername: 'node-a' }, () => {
      socket.write(`GET ${urlPath} HTTP/1.1\r\nHost: node-a\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n`);
    });
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      if (received.startsWith('HTTP/1.1 101') && received.endsWith('\r\n\r\n')) socket.write(thenWrite);
      if (until.test(received)) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
}

test('anonymous off: 401 before any route, plain and upgrade alike', async () => {
  const port = await start({ anonymous: false, debuggingHandlers: true });
  assert.deepEqual(await get(port, '/pods'), { status: 401, body: 'Unauthorized\n' });
  assert.equal((await get(port, '/no/such/path')).status, 401, 'unknown paths are refused before routing, as upstream');
  assert.match(await upgrade(port, '/echo/x', '', /Unauthorized\n$/), /^HTTP\/1\.1 401 Unauthorized\r\n[\s\S]*Unauthorized\n$/);
});

test('anonymous on, AlwaysAllow: the route serves as system:anonymous; unknown paths 404; other methods 405', async () => {
  const port = await start({ anonymous: true, debuggingHandlers: true });
  assert.deepEqual(await get(port, '/pods'), { status: 200, body: 'pods for system:anonymous' });
  assert.deepEqual(await get(port, '/nothing'), { status: 404, body: '404 page not found\n' });
  assert.equal((await get(port, '/pods', 'DELETE')).status, 405);
  assert.deepEqual(await get(port, '/exec/ns/pod/c', 'POST'), { status: 200, body: 'exec' });
  const echoed = await upgrade(port, '/echo/x', 'ping', /ping$/);
  assert.match(echoed, /^HTTP\/1\.1 101 Switching Protocols\r\n[\s\S]*\r\n\r\nping$/);
});

test('enableDebuggingHandlers false: /exec and the other debugging paths answer 405 "Debug endpoints are disabled."', async () => {
  const port = await start({ anonymous: true, debuggingHandlers: false });
  assert.deepEqual(await get(port, '/exec/ns/pod/c', 'POST'), { status: 405, body: 'Debug endpoints are disabled.\n' });
  assert.equal((await get(port, '/containerLogs/ns/pod/c')).status, 405);
  assert.equal((await get(port, '/pods')).status, 200, '/pods is no debugging handler');
});

async function authority(): Promise<CertificateAuthority> {
  const created = await CertificateAuthority.create();
  authorities.push(created);
  return created;
}

async function clientCaFile(name: string, pem: string): Promise<{ file: string; ca: DynamicClientCa }> {
  const file = path.join(dir, name);
  await writeFile(file, pem);
  const ca = await DynamicClientCa.load(file, pino({ level: 'silent' }));
  clientCas.push(ca);
  return { file, ca };
}

test('a client certificate the client CA did not sign: 401 and the connection closed, even with anonymous on', async () => {
  const [trusted, other] = [await authority(), await authority()];
  const { ca } = await clientCaFile('one-ca.crt', trusted.ca.certPem);
  const port = await start({ anonymous: true, debuggingHandlers: true, clientCa: ca });
  const alice = await trusted.clientCert({ user: 'alice', groups: ['team'] });
  const mallory = await other.clientCert({ user: 'mallory', groups: ['system:masters'] });
  assert.equal((await get(port, '/pods', 'GET', { cert: alice })).body, 'pods for alice');
  const refused = await get(port, '/pods', 'GET', { cert: mallory });
  assert.deepEqual([refused.status, refused.body, refused.connection], [401, 'Unauthorized\n', 'close']);
  assert.deepEqual(await get(port, '/pods'), { status: 200, body: 'pods for system:anonymous' }, 'no certificate at all: anonymous');
});

test('the client CA file is read again when it changes: the new CA is trusted, the removed one refused on an open connection', async () => {
  const [first, second] = [await authority(), await authority()];
  const { file, ca } = await clientCaFile('rotating-ca.crt', first.ca.certPem);
  ca.start();
  const port = await start({ anonymous: false, debuggingHandlers: true, clientCa: ca });
  const fromFirst = await first.clientCert({ user: 'old-client', groups: [] });
  const fromSecond = await second.clientCert({ user: 'new-client', groups: [] });
  const keptOpen = new https.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    assert.equal((await get(port, '/pods', 'GET', { cert: fromFirst, agent: keptOpen })).body, 'pods for old-client');
    assert.equal((await get(port, '/pods', 'GET', { cert: fromSecond })).status, 401);
    const changed = once(ca, 'changed');
    // As a tool rotating the bundle writes it: a new file renamed over the old one.
    await writeFile(`${file}.new`, second.ca.certPem);
    await rename(`${file}.new`, file);
    await changed;
    assert.equal((await get(port, '/pods', 'GET', { cert: fromSecond })).body, 'pods for new-client');
    const stale = await get(port, '/pods', 'GET', { cert: fromFirst, agent: keptOpen });
    assert.deepEqual([stale.status, stale.reusedSocket], [401, true], 'the connection verified under the old bundle is judged by the new one');
    assert.equal((await get(port, '/pods', 'GET', { cert: fromFirst })).status, 401, 'and a new connection is refused too');
  } finally {
    keptOpen.destroy();
  }
});

test('a client CA file rewritten without a certificate: the bundle in use is kept', async () => {
  const first = await authority();
  const { file, ca } = await clientCaFile('broken-ca.crt', first.ca.certPem);
  await writeFile(file, 'not a certificate\n');
  assert.equal(await ca.reload(), false);
  assert.equal(ca.current().pem, first.ca.certPem);
});

test('request series: served paths by their root, every other path "other", unknown methods "other"', async () => {
  const port = await start({ anonymous: false, debuggingHandlers: false });
  const before = (await httpRequests.get()).values.length;
  for (let i = 0; i < 200; i++) await get(port, `/attack-${i}/${i}`, i % 2 ? 'PROPFIND' : 'GET');
  await get(port, '/pods');
  const values = (await httpRequests.get()).values.map((value) => value.labels);
  assert.ok(values.length <= before + 4, `${values.length - before} new series for 201 requests`);
  const paths = new Set(values.map((labels) => labels.path));
  for (const path of paths) assert.ok(['pods', 'exec', 'echo', 'other', 'run', 'attach', 'portForward', 'containerLogs', 'runningpods', 'debug', 'logs'].includes(String(path)), String(path));
  assert.ok(values.some((labels) => labels.path === 'other' && labels.method === 'other'));
});
