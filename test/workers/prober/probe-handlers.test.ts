// The httpGet, tcpSocket and grpc probes against real servers on loopback: what
// counts as success, upstream's output for failures, headers, redirects, the body limit.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { healthServiceDefinition, type HealthCheckRequest, type ServingStatus } from '../../../src/shared/grpc-health.js';
import { grpcProbe } from '../../../src/workers/prober/grpc-probe.js';
import { httpProbe, MAX_PROBE_BODY_BYTES, PROBE_USER_AGENT } from '../../../src/workers/prober/http-probe.js';
import { probeUrl, resolvePort } from '../../../src/workers/prober/probe-target.js';
import { tcpProbe } from '../../../src/workers/prober/tcp-probe.js';
import { freePort } from '../../../src/tools/free-port.js';

let server: http.Server;
let port = 0;
const seenHeaders: http.IncomingHttpHeaders[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    seenHeaders.push(req.headers);
    const path = req.url ?? '/';
    if (path === '/ok') return res.end('fine');
    if (path === '/fail') return res.writeHead(503).end('down');
    if (path === '/hang') return; // never answers
    if (path === '/big') return res.end('x'.repeat(MAX_PROBE_BODY_BYTES * 4));
    if (path === '/redirect-local') return res.writeHead(302, { Location: '/ok' }).end();
    if (path === '/redirect-away') return res.writeHead(302, { Location: 'http://elsewhere.invalid/ok' }).end('moved');
    if (path === '/loop') return res.writeHead(302, { Location: '/loop' }).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => server.close());

const get = (path: string, headers: Array<{ name: string; value: string }> = [], timeoutMs = 1000) =>
  httpProbe({ url: probeUrl('HTTP', '127.0.0.1', port, path), headers, timeoutMs });

test('httpGet: 2xx succeeds with the body, other codes fail with the status code', async () => {
  assert.deepEqual(await get('/ok'), { verdict: 'success', output: 'fine' });
  assert.deepEqual(await get('/fail'), { verdict: 'failure', output: 'HTTP probe failed with statuscode: 503' });
});

test("httpGet: upstream's User-Agent and Accept unless the probe's headers replace them", async () => {
  seenHeaders.length = 0;
  await get('/ok');
  assert.equal(seenHeaders[0]['user-agent'], PROBE_USER_AGENT);
  assert.equal(seenHeaders[0].accept, '*/*');
  await get('/ok', [{ name: 'User-Agent', value: 'mine' }, { name: 'X-Probe', value: 'yes' }]);
  assert.equal(seenHeaders[1]['user-agent'], 'mine');
  assert.equal(seenHeaders[1]['x-probe'], 'yes');
});

test('httpGet: redirects on the same host are followed, to another host end with a warning, a loop fails after 10', async () => {
  assert.equal((await get('/redirect-local')).verdict, 'success');
  const away = await get('/redirect-away');
  assert.equal(away.verdict, 'warning');
  assert.match(away.output, /^Probe terminated redirects/);
  const loop = await get('/loop');
  assert.equal(loop.verdict, 'failure');
  assert.match(loop.output, /stopped after 10 redirects/);
});

test('httpGet: at most 10 KiB of the body is read', async () => {
  const big = await get('/big');
  assert.equal(big.verdict, 'success');
  assert.equal(big.output.length, MAX_PROBE_BODY_BYTES);
});

test('httpGet: a server that does not answer in time, and a closed port, fail as Go words it', async () => {
  const hang = await get('/hang', [], 300);
  assert.equal(hang.verdict, 'failure');
  assert.match(hang.output, /^Get "http:\/\/127\.0\.0\.1:\d+\/hang": context deadline exceeded/);
  const closed = await freePort();
  const refused = await httpProbe({ url: probeUrl('HTTP', '127.0.0.1', closed, '/'), headers: [], timeoutMs: 1000 });
  assert.equal(refused.output, `Get "http://127.0.0.1:${closed}/": dial tcp 127.0.0.1:${closed}: connect: connection refused`);
});

test('tcpSocket: an open port succeeds, a closed one fails', async () => {
  assert.equal((await tcpProbe('127.0.0.1', port, 1000)).verdict, 'success');
  const closed = await freePort();
  assert.deepEqual(await tcpProbe('127.0.0.1', closed, 1000), { verdict: 'failure', output: `dial tcp 127.0.0.1:${closed}: connect: connection refused` });
});

test('a port by name is the container port of that name; an unknown name is an error', () => {
  const container = { name: 'web', ports: [{ name: 'http', containerPort: 8080 }] };
  assert.equal(resolvePort('http', container), 8080);
  assert.equal(resolvePort('9090', container), 9090);
  assert.throws(() => resolvePort('admin', container), /couldn't find port: admin/);
});

test('grpc: grpc.health.v1 SERVING succeeds, anything else fails with the status', async () => {
  const statuses: Record<string, ServingStatus> = { '': 'SERVING', db: 'NOT_SERVING' };
  const grpcServer = new grpc.Server();
  grpcServer.addService(healthServiceDefinition(), {
    Check: (call: grpc.ServerUnaryCall<HealthCheckRequest, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const status = statuses[call.request.service];
      if (!status) return callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
      callback(null, { status });
    },
    Watch: () => undefined,
  });
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
  );
  try {
    assert.deepEqual(await grpcProbe('127.0.0.1', grpcPort, '', 1000), { verdict: 'success', output: 'service healthy' });
    assert.deepEqual(await grpcProbe('127.0.0.1', grpcPort, 'db', 1000), { verdict: 'failure', output: 'service unhealthy (responded with "NOT_SERVING")' });
    const unknown = await grpcProbe('127.0.0.1', grpcPort, 'cache', 1000);
    assert.equal(unknown.verdict, 'failure');
    assert.match(unknown.output, /NotFound|NOT_FOUND/);
  } finally {
    grpcServer.forceShutdown();
  }
  const closed = await freePort();
  const down = await grpcProbe('127.0.0.1', closed, '', 500);
  assert.equal(down.verdict, 'failure');
  assert.match(down.output, /^timeout: failed to connect service|^timeout: health rpc did not complete/);
});

test('a plain TCP server that is not gRPC fails the grpc probe', async () => {
  const plain = net.createServer((socket) => socket.end());
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  try {
    const result = await grpcProbe('127.0.0.1', (plain.address() as AddressInfo).port, '', 500);
    assert.equal(result.verdict, 'failure');
  } finally {
    plain.close();
  }
});
