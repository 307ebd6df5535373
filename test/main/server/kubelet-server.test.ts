// The kubelet API server's filter chain on a real TLS socket: refusals before any
// route (401 for plain and upgrade requests), 404 for unknown paths after auth,
// enableDebuggingHandlers: false answering the debugging paths 405 whatever is
// registered, and a route's upgrade handler owning the socket.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import tls from 'node:tls';
import { pino } from 'pino';
import { RequestAuthenticator } from '../../../src/main/server/authenticator.js';
import { RequestAuthorizer } from '../../../src/main/server/authorizer.js';
import { KubeletRoutes } from '../../../src/main/server/kubelet-routes.js';
import { KubeletServer } from '../../../src/main/server/kubelet-server.js';
import { loadServingPair, type ServingPair } from '../../../src/main/server/serving-certificate.js';
import { nodeTlsSettings } from '../../../src/main/server/tls-settings.js';

let dir: string;
let pair: ServingPair;
const servers: KubeletServer[] = [];

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'shardlet-kubelet-server-'));
  pair = await loadServingPair({ tlsCertFile: '', tlsPrivateKeyFile: '', certDir: dir, nodeName: 'node-a', addresses: ['127.0.0.1'] });
});

after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await rm(dir, { recursive: true, force: true });
});

async function start(options: { anonymous: boolean; debuggingHandlers: boolean }): Promise<number> {
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
    authenticator: new RequestAuthenticator({ x509Enabled: false, tokenCacheTtlMs: 0, anonymousEnabled: options.anonymous }),
    authorizer: new RequestAuthorizer({ mode: 'AlwaysAllow', cacheAuthorizedTtlMs: 0, cacheUnauthorizedTtlMs: 0 }),
    fineGrainedAuthz: true,
    debuggingHandlers: options.debuggingHandlers,
    tls: nodeTlsSettings('VersionTLS12', []),
    logger: pino({ level: 'silent' }),
  });
  servers.push(server);
  return server.listen('127.0.0.1', 0, pair);
}

function get(port: number, urlPath: string, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: urlPath, method, ca: pair.certPem, servername: 'node-a' }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
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
