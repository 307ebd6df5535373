import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { pino } from 'pino';
import { PodStorage } from '../../../src/main/config/pod-storage.js';
import { UrlSource } from '../../../src/main/config/url-source.js';
import { ErrorCodes } from '../../../src/shared/errors.js';
import { CONFIG_SOURCE_ANNOTATION } from '../../../src/shared/labels.js';
import type { PodUpdate } from '../../../src/shared/types.js';

/** A period long enough never to fire during a test: polls are asked for with poll(). */
const NEVER_MS = 3_600_000;

const POD = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web' },
  spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] },
});

const POD_LIST = `apiVersion: v1
kind: PodList
items:
  - metadata: { name: web }
    spec: { containers: [{ name: web, image: "nginx:1.25" }] }
  - metadata: { name: cache, namespace: infra }
    spec: { containers: [{ name: redis, image: "redis:7" }] }
`;

/** A real local HTTP server whose next response the test sets. */
async function manifestServer() {
  const reply = { status: 200, body: POD };
  const requests: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    requests.push(req.headers);
    res.writeHead(reply.status, { 'content-type': 'application/yaml' });
    res.end(reply.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods`;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { reply, requests, url, close };
}

async function withUrlSource(run: (h: Awaited<ReturnType<typeof setUp>>) => Promise<void>) {
  const handle = await setUp();
  try {
    await run(handle);
  } finally {
    handle.source.stop();
    await handle.server.close();
  }
}

async function setUp() {
  const server = await manifestServer();
  const sets: PodUpdate[] = [];
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const source = new UrlSource({
    url: server.url,
    headers: { Authorization: ['Bearer token-1'], 'X-Node': ['a', 'b'] },
    nodeName: 'node-1',
    periodMs: NEVER_MS,
    logger,
    onUpdate: (update) => sets.push(update),
  });
  const names = (update = sets.at(-1)) => (update?.pods ?? []).map((pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}`).sort();
  const failures = () => logs.filter((line) => line.code === ErrorCodes.MANIFEST_URL_FAILED);
  return { server, source, sets, logs, names, failures };
}

test('a served Pod, then a PodList, arrive as SETs from source http; an unchanged body sends nothing', async () => {
  await withUrlSource(async ({ server, source, sets, names }) => {
    await source.start();
    assert.equal(sets.length, 1);
    assert.deepEqual(sets[0]!.op, 'SET');
    assert.equal(sets[0]!.source, 'http');
    assert.deepEqual(names(), ['default/web-node-1']);
    const web = sets[0]!.pods[0]!;
    assert.match(web.metadata!.uid!, /^[0-9a-f]{32}$/);
    assert.equal(web.metadata!.annotations![CONFIG_SOURCE_ANNOTATION], 'http');
    assert.equal(web.spec!.tolerations, undefined, 'URL pods get no NoExecute toleration, as upstream');

    await source.poll();
    assert.equal(sets.length, 1, 'unchanged body: no update');

    server.reply.body = POD_LIST;
    await source.poll();
    assert.equal(sets.length, 2);
    assert.deepEqual(names(), ['default/web-node-1', 'infra/cache-node-1']);
    assert.equal(server.requests[0]!.authorization, 'Bearer token-1', 'staticPodURLHeader is sent');
    assert.equal(server.requests[0]!['x-node'], 'a, b');
  });
});

test('failures are logged with MANIFEST_URL_FAILED and send nothing; recovery sends again', async () => {
  await withUrlSource(async ({ server, source, sets, names, failures, logs }) => {
    await source.start();
    server.reply.status = 500;
    await source.poll();
    server.reply.status = 200;
    server.reply.body = 'apiVersion: v1\nkind: Pod\nmetadata: { name: web }\nspec: { containers: [{ name: web }] }\n';
    await source.poll();
    assert.equal(sets.length, 1, 'neither an HTTP error nor a bad body sends an update');
    const [httpError, decodeError] = failures();
    assert.match(String(httpError!.reason), /HTTP 500/);
    assert.equal(decodeError!.cause, ErrorCodes.MANIFEST_INVALID);
    assert.match(String(decodeError!.reason), /image: Required value/);
    await source.poll();
    assert.equal(failures().length, 2, 'the same bad body is not decoded again');

    server.reply.body = POD_LIST;
    await source.poll();
    assert.deepEqual(names(), ['default/web-node-1', 'infra/cache-node-1']);
    assert.ok(logs.some((line) => line.msg === 'Successfully read pods from URL'));
  });
});

test('an empty body sends an empty SET and counts as a failure, as upstream', async () => {
  await withUrlSource(async ({ server, source, sets, failures }) => {
    server.reply.body = '';
    await source.start();
    assert.deepEqual(sets, [{ op: 'SET', source: 'http', pods: [] }]);
    assert.match(String(failures()[0]!.reason), /zero-length/);
  });
});

test('repeated failures drop to debug level after the first few', async () => {
  await withUrlSource(async ({ server, source, failures }) => {
    server.reply.status = 503;
    await source.start();
    for (let poll = 0; poll < 5; poll++) await source.poll();
    const levels = failures().map((line) => line.level);
    assert.deepEqual(levels, [40, 40, 40, 40, 20, 20]);
  });
});

test('an unreachable URL is a failure, and through the merge the last good set is kept', async () => {
  const server = await manifestServer();
  const logger = pino({ level: 'silent' });
  const merged: Array<[string, string[]]> = [];
  const storage = new PodStorage((update) => merged.push([update.op, update.pods.map((pod) => pod.metadata!.name!)]), logger);
  const source = new UrlSource({ url: server.url, nodeName: 'node-1', periodMs: NEVER_MS, logger, onUpdate: (update) => storage.merge(update.source, update) });
  try {
    await source.start();
    assert.deepEqual(merged, [['ADD', ['web-node-1']]]);
    await server.close();
    await source.poll();
    assert.deepEqual(merged, [['ADD', ['web-node-1']]], 'no REMOVE while the URL is down');
    assert.equal(storage.mergedState().length, 1);
    assert.equal(storage.sourcesReady(['http']), true);
  } finally {
    source.stop();
  }
});
