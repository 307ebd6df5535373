// The kubelet's streaming proxy against a fake runtime streaming server that
// answers 101 and echoes every byte: what reaches the runtime (the runtime URL's
// path, the client's method and upgrade headers, not its credentials), the raw
// 101 and echo back to the client, a refusal passed through as it is, a dead
// runtime answered 500, and both sockets closed when either side ends or the
// connection sits idle.
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { backendRequestHead, proxyUpgrade } from '../../../src/main/streaming/upgrade-proxy.js';
import { freePort } from '../../../src/tools/free-port.js';
import { waitUntil } from '../../helpers/kubelet-process.js';

interface Backend {
  url: string;
  requests: IncomingMessage[];
  openSockets: Set<Duplex>;
  close(): Promise<void>;
}

/** A runtime streaming server stand-in: 101 then echo, or 403 for /refuse. */
async function startBackend(): Promise<Backend> {
  const requests: IncomingMessage[] = [];
  const openSockets = new Set<Duplex>();
  const server: Server = createServer();
  server.on('upgrade', (req, socket) => {
    requests.push(req);
    openSockets.add(socket);
    socket.on('close', () => openSockets.delete(socket));
    if (req.url?.startsWith('/refuse')) {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 9\r\nConnection: close\r\n\r\nforbidden');
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${req.headers.upgrade}\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n`);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    openSockets,
    close: async () => {
      for (const socket of openSockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let backend: Backend;
let kubelet: Server;
let kubeletPort: number;
let backendPath = '/exec/token123';
let idleTimeoutMs = 0;
const proxied: Promise<void>[] = [];

before(async () => {
  backend = await startBackend();
  kubelet = createServer((_req, res) => res.writeHead(500).end());
  kubelet.on('upgrade', (req, socket, head) => {
    proxied.push(proxyUpgrade(req, socket, head, `${backend.url}${backendPath}`, { idleTimeoutMs, logger: pino({ level: 'silent' }) }));
  });
  await new Promise<void>((resolve) => kubelet.listen(0, '127.0.0.1', resolve));
  kubeletPort = (kubelet.address() as AddressInfo).port;
});

after(async () => {
  await backend.close();
  await new Promise((resolve) => kubelet.close(resolve));
});

/** An upgrade request to the kubelet, as kubectl sends it; resolves with the raw socket and the answer's head. */
function upgradeRequest(path = '/exec/default/web/main?command=sh&stdin=1&stdout=1'): Promise<{ socket: Socket; statusCode: number; head: Buffer; body: () => Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port: kubeletPort,
      method: 'POST',
      path,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'SPDY/3.1',
        'X-Stream-Protocol-Version': ['v4.channel.k8s.io', 'v3.channel.k8s.io'],
        Authorization: 'Bearer secret-token',
      },
    });
    req.on('upgrade', (res, socket, head) => resolve({ socket, statusCode: res.statusCode ?? 0, head, body: async () => '' }));
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      const ended = new Promise<string>((done) => res.on('end', () => done(text)));
      resolve({ socket: res.socket as Socket, statusCode: res.statusCode ?? 0, head: Buffer.alloc(0), body: () => ended });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('proxyUpgrade', () => {
  it("sends the runtime URL's path with the client's method and upgrade headers, never its credentials", async () => {
    backendPath = '/exec/token123?extra=1';
    const { socket, statusCode } = await upgradeRequest();
    assert.equal(statusCode, 101);
    const seen = backend.requests.at(-1)!;
    assert.equal(seen.method, 'POST');
    assert.equal(seen.url, '/exec/token123?extra=1');
    assert.equal(seen.headers.upgrade, 'SPDY/3.1');
    assert.equal(seen.headers['x-stream-protocol-version'], 'v4.channel.k8s.io, v3.channel.k8s.io');
    assert.equal(seen.headers.authorization, undefined);
    assert.equal(seen.headers['x-forwarded-for'], '127.0.0.1');
    socket.destroy();
    backendPath = '/exec/token123';
  });

  it("passes the runtime's 101 and then raw bytes both ways", async () => {
    const { socket } = await upgradeRequest();
    const echoed = new Promise<Buffer>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk)));
    socket.write(Buffer.from([0x80, 0x03, 0x00, 0x01, 0xff, 0x00]));
    assert.deepEqual(await echoed, Buffer.from([0x80, 0x03, 0x00, 0x01, 0xff, 0x00]));
    socket.destroy();
  });

  it("passes a runtime's refusal to the client as it came", async () => {
    backendPath = '/refuse/token';
    const answer = await upgradeRequest();
    assert.equal(answer.statusCode, 403);
    assert.equal(await answer.body(), 'forbidden');
    backendPath = '/exec/token123';
  });

  it('answers 500 with the dial error when the runtime is not there', async () => {
    const saved = backend.url;
    backend.url = `http://127.0.0.1:${await freePort()}`;
    const answer = await upgradeRequest();
    assert.equal(answer.statusCode, 500);
    assert.match(await answer.body(), /ECONNREFUSED/);
    backend.url = saved;
  });

  it("closes the runtime's side when the client goes, and the client's when the runtime goes", async () => {
    const first = await upgradeRequest();
    await waitUntil(async () => backend.openSockets.size === 1, 5_000, 'the runtime connection');
    first.socket.destroy();
    await waitUntil(async () => backend.openSockets.size === 0, 5_000, "the runtime's socket closed after the client left");

    const second = await upgradeRequest();
    const clientClosed = new Promise<void>((resolve) => second.socket.once('close', () => resolve()));
    await waitUntil(async () => backend.openSockets.size === 1, 5_000, 'the runtime connection');
    for (const socket of backend.openSockets) socket.destroy();
    await clientClosed;
  });

  it('closes an idle connection after streamingConnectionIdleTimeout', async () => {
    idleTimeoutMs = 300;
    const { socket } = await upgradeRequest();
    idleTimeoutMs = 0;
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await waitUntil(async () => backend.openSockets.size === 0, 5_000, "the runtime's socket closed too");
    await Promise.all(proxied);
  });
});

describe('backendRequestHead', () => {
  it('keeps websocket handshake headers', () => {
    const req = {
      method: 'GET',
      rawHeaders: ['Sec-WebSocket-Key', 'abc==', 'Sec-WebSocket-Version', '13', 'Sec-WebSocket-Protocol', 'v5.channel.k8s.io', 'Cookie', 'x=1'],
      headers: {},
      socket: { remoteAddress: '10.0.0.9' },
    } as unknown as IncomingMessage;
    const head = backendRequestHead(req, new URL('http://127.0.0.1:4000/attach/tok'));
    assert.match(head, /^GET \/attach\/tok HTTP\/1.1\r\nHost: 127.0.0.1:4000\r\n/);
    assert.match(head, /Sec-WebSocket-Key: abc==\r\n/);
    assert.match(head, /Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n/);
    assert.doesNotMatch(head, /Cookie/);
    assert.match(head, /X-Forwarded-For: 10.0.0.9\r\n\r\n$/);
  });
});
