// The URL source against a hostile or broken server (a local node:http server):
// each bad answer is reported with the URL and the reason, sends nothing, and
// through the merge the last good pods stay; redirects are followed, up to 10.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { PodStorage } from '../../../src/main/config/pod-storage.js';
import { URL_MAX_REDIRECTS, UrlSource } from '../../../src/main/config/url-source.js';
import { ErrorCodes } from '../../../src/shared/errors.js';
import { MAX_MANIFEST_BYTES } from '../../../src/shared/manifest/parse-manifest.js';

const NEVER_MS = 3_600_000;
/** Short, so the slow-body case ends quickly; the source's default is upstream's 10 s. */
const REQUEST_TIMEOUT_MS = 1_500;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

function pod(name: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } });
}

/** Route name -> handler; `/good` serves a pod, the others misbehave. */
const ROUTES: Record<string, (req: IncomingMessage, res: ServerResponse, state: ServerState) => void> = {
  '/good': (_req, res) => res.end(pod('good')),
  '/other': (_req, res) => res.end(pod('other')),
  '/500': (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('internal error');
  },
  '/html': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!DOCTYPE html>\n<html><head><title>Login</title></head><body><form>secret page</form></body></html>\n');
  },
  '/endless': (_req, res, state) => {
    const write = () => {
      while (!res.destroyed && res.write(CHUNK)) state.endlessBytes += CHUNK.length;
      if (!res.destroyed) res.once('drain', write);
    };
    res.on('close', () => (state.endlessClosed = true));
    write();
  },
  '/slow': (_req, res, state) => {
    res.writeHead(200);
    const timer = setInterval(() => res.write(' '), 100);
    res.on('close', () => {
      clearInterval(timer);
      state.slowClosed = true;
    });
  },
  '/loop': (_req, res) => {
    res.writeHead(302, { location: '/loop' });
    res.end();
  },
  // The manifest: its UID would have made the pod's directories in /tmp/victim.
  '/victim-uid': (_req, res) => {
    const hostile = JSON.parse(pod('t')) as { metadata: Record<string, string> };
    hostile.metadata.uid = 'x/../../../../../../../../../../tmp/victim';
    res.end(JSON.stringify(hostile));
  },
  '/once': (_req, res) => {
    res.writeHead(302, { location: '/other' });
    res.end();
  },
};

interface ServerState {
  endlessBytes: number;
  endlessClosed: boolean;
  slowClosed: boolean;
  requests: string[];
  switchTo: string;
}

const state: ServerState = { endlessBytes: 0, endlessClosed: false, slowClosed: false, requests: [], switchTo: '/good' };
const server = createServer((req, res) => {
  const path = req.url ?? '/';
  state.requests.push(path);
  const chain = /^\/chain\/(\d+)$/.exec(path);
  if (chain) {
    const left = Number(chain[1]);
    res.writeHead(302, { location: left > 1 ? `/chain/${left - 1}` : '/other' });
    return void res.end();
  }
  // The URL a test's source polls; it serves whatever the test switched it to.
  const route = ROUTES[path === '/switch' ? state.switchTo : path];
  if (route) return route(req, res, state);
  res.writeHead(404);
  res.end();
});
let base = '';

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

/**
 * A source whose URL the test can point elsewhere between polls, feeding a real
 * merge: what the merge holds is what the kubelet would run.
 */
function harness(path: string) {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const storage = new PodStorage(() => undefined, logger);
  const options = { url: `${base}${path}`, nodeName: 'node-1', periodMs: NEVER_MS, logger, requestTimeoutMs: REQUEST_TIMEOUT_MS, onUpdate: (update: Parameters<PodStorage['merge']>[1]) => storage.merge(update.source, update) };
  const source = new UrlSource(options);
  const running = () => storage.mergedState().map((item) => item.metadata?.name).sort();
  const failures = () => logs.filter((line) => line.code === ErrorCodes.MANIFEST_URL_FAILED);
  return { source, running, failures, logs };
}

test('a redirect to a pod is followed, and so is a chain of 10; an 11th redirect fails naming the limit', async () => {
  const once = harness('/once');
  await once.source.poll();
  assert.deepEqual(once.running(), ['other-node-1']);
  assert.deepEqual(once.failures(), []);

  const ten = harness(`/chain/${URL_MAX_REDIRECTS}`);
  await ten.source.poll();
  assert.deepEqual(ten.running(), ['other-node-1'], 'ten redirects are followed, as Go');

  const eleven = harness(`/chain/${URL_MAX_REDIRECTS + 1}`);
  await eleven.source.poll();
  assert.deepEqual(eleven.running(), []);
  assert.match(String(eleven.failures()[0]?.reason), new RegExp(`/chain/${URL_MAX_REDIRECTS + 1}: stopped after ${URL_MAX_REDIRECTS} redirects`));
});

// Each case: the URL first serves a good pod, then misbehaves; the failure names the URL and reason,
// and the merge still holds the good pod (the URL source sends nothing on a failure).
const HOSTILE: Array<{ path: string; reason: RegExp; check?: () => void }> = [
  { path: '/500', reason: /HTTP 500/ },
  { path: '/html', reason: /not a Kubernetes object|invalid YAML/ },
  {
    path: '/endless',
    reason: new RegExp(`body larger than ${MAX_MANIFEST_BYTES} bytes`),
    check: () => assert.ok(state.endlessBytes < 4 * MAX_MANIFEST_BYTES, `the endless body was cut off (${state.endlessBytes} bytes written)`),
  },
  { path: '/slow', reason: new RegExp(`no complete answer within ${REQUEST_TIMEOUT_MS} ms`) },
  { path: '/loop', reason: /redirect loop: a Location pointed back/ },
  { path: '/victim-uid', reason: /metadata\.uid: Invalid value: "x\/\.\.\/.*": must consist of letters, digits and '-'/ },
];

for (const { path, reason, check } of HOSTILE) {
  test(`a URL that turns into ${path} is reported with the URL and reason; the good pod stays`, async () => {
    state.switchTo = '/good';
    const { source, running, failures } = harness('/switch');
    await source.poll();
    assert.deepEqual(running(), ['good-node-1']);
    state.switchTo = path;
    await source.poll();
    const [failure] = failures();
    assert.ok(failure, 'the failure is logged');
    assert.equal(failure.url, `${base}/switch`);
    assert.match(String(failure.reason), reason);
    assert.ok(String(failure.reason).length < 400, 'the reason does not carry the body');
    assert.doesNotMatch(String(failure.reason), /secret page/);
    assert.deepEqual(running(), ['good-node-1'], 'the last good pod is kept');
    check?.();
  });
}

test('the endless and the slow body are cut off: the server sees the connection closed', async () => {
  for (const path of ['/endless', '/slow']) {
    const { source } = harness(path);
    await source.poll();
  }
  const deadline = Date.now() + 5_000;
  while (!(state.endlessClosed && state.slowClosed) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(state.endlessClosed, 'endless body connection closed');
  assert.ok(state.slowClosed, 'slow body connection closed');
});
