// Attacks on the kubelet API (:10250) of the real process, as someone on the
// network would make them: every route the kubelet serves (read from its own route
// table, so a new route is attacked as soon as it is registered), with every
// method (the ones Kubernetes maps to verbs, HEAD, OPTIONS, TRACE, a WebDAV one,
// upgrades to websocket and SPDY, CONNECT, and one Node's parser does not know),
// sent with no credentials, a bearer token the API server does not know, a client
// certificate from a CA the kubelet does not trust, and identities the API server
// knows but lets do nothing. Each must be refused as upstream refuses it (401
// Unauthorized, or 403 naming the attributes it checked), never answered by a
// handler, with anonymous auth off and on. Then thousands of such requests for
// invented paths must leave the number of series on /metrics as it was.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import tls from 'node:tls';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { Kubelet } from '../../src/main/kubelet.js';
import { parseFlags } from '../../src/main/options/flags.js';
import { loadKubeletConfig, mergeFlags } from '../../src/main/options/kubelet-config.js';
import type { Route } from '../../src/main/server/kubelet-routes.js';
import { requestAttributes } from '../../src/main/server/request-attributes.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import { CertificateAuthority } from '../../src/testapiserver/tls.js';
import { manifest } from '../e2e/scenarios.js';
import { startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';

const TIMEOUT_MS = 120_000;
/** Requests sent at once: enough to be quick, few enough for a 2-core machine shared with others. */
const CONCURRENCY = 6;
const UNKNOWN_PATH_REQUESTS = 3_000;

/** Methods sent to every path: the ones mapped to verbs, and those that are not. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND'];

interface Credentials {
  label: string;
  token?: string;
  cert?: { certPem: string; keyPem: string };
}

interface Attack {
  method: string;
  path: string;
  /** Extra header lines (an upgrade). */
  headers?: string[];
  /** What the request line carries instead of the path (CONNECT's authority form). */
  target?: string;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Node {
  name: string;
  kubelet: KubeletProcess;
  routes: Route[];
}

let workDir: string;
const sims: SimRuntime[] = [];
let api: TestApiServer;
let strangerCa: CertificateAuthority;
const nodes = new Map<'anonymous-off' | 'anonymous-on', Node>();
const credentials: Record<'none' | 'unknownToken' | 'untrustedCert' | 'powerlessToken' | 'powerlessCert', Credentials> = {
  none: { label: 'no credentials' },
  unknownToken: { label: 'a bearer token the API server does not know', token: `forged-${randomBytes(8).toString('hex')}` },
  untrustedCert: { label: 'a client certificate from an untrusted CA' },
  powerlessToken: { label: 'a known token of a user with no rights', token: 'powerless-token' },
  powerlessCert: { label: 'a client certificate of the cluster CA for a user with no rights' },
};

/** Starts a kubelet in cluster mode with Webhook authn/authz, as upstream's v1beta1 defaults, anonymous as asked. */
async function startNode(name: string, anonymous: boolean): Promise<Node> {
  const dir = join(workDir, name);
  const sim = await startSimRuntime({ socketPath: join(workDir, `${name}.sock`) });
  sims.push(sim);
  const kubeconfig = await api.writeKubeconfig(join(workDir, `${name}.kubeconfig`), { user: 'kubelet', nodeName: name });
  const configFile = join(workDir, `${name}.yaml`);
  writeFileSync(
    configFile,
    stringify({
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      authentication: { anonymous: { enabled: anonymous }, x509: { clientCAFile: api.caFile } },
      podLogsDir: join(workDir, `${name}-pod-logs`),
      // The simulated runtime runs no processes: leave the host's cgroup tree alone.
      cgroupsPerQOS: false,
      enforceNodeAllocatable: ['none'],
    }),
  );
  const args = [`--kubeconfig=${kubeconfig}`, `--config=${configFile}`, '--address=127.0.0.1', '--node-ip=127.0.0.1'];
  const kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 1, nodeName: name, workDir: dir, extraArgs: args });
  // A pod for the paths to name, so that a request a handler served would get its answer, not a 404.
  writeFileSync(join(kubelet.manifestDir, 'web.yaml'), manifest('web', { containers: [{ name: 'main', image: 'busybox:1.35', command: ['sleep', '3600'] }] }));
  await waitUntil(async () => (await kubelet.pods()).some((pod) => pod.status?.phase === 'Running'), TIMEOUT_MS, `pod web on ${name} Running`);
  // The routes exactly as this kubelet registers them: the same config file and flags.
  const options = mergeFlags(await loadKubeletConfig(configFile), parseFlags([...args, `--hostname-override=${name}`, `--root-dir=${kubelet.rootDir}`]));
  const routes = new Kubelet(options, pino({ level: 'silent' })).apiRoutes().list();
  return { name, kubelet, routes };
}

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-attack-'));
  api = await startTestApiServer({ defaultNodeName: 'attack-node' });
  strangerCa = await CertificateAuthority.create();
  credentials.untrustedCert.cert = await strangerCa.clientCert({ user: 'system:admin', groups: ['system:masters'] });
  api.addToken('powerless-token', 'powerless');
  credentials.powerlessCert.cert = await api.clientCredentials({ user: 'powerless-cert', groups: ['nobody'] });
  nodes.set('anonymous-off', await startNode('attack-node', false));
  nodes.set('anonymous-on', await startNode('attack-anon-node', true));
});

after(async () => {
  for (const node of nodes.values()) await node.kubelet.stop();
  await api?.stop();
  for (const sim of sims) await sim.close();
  await strangerCa?.destroy();
  rmSync(workDir, { recursive: true, force: true });
});

/** One request on a fresh TLS connection, written by hand so that any method, target and header can be sent. */
function send(node: Node, attack: Attack, who: Credentials): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: node.kubelet.apiPort!, rejectUnauthorized: false, ...(who.cert ? { cert: who.cert.certPem, key: who.cert.keyPem } : {}) }, () => {
      const lines = [
        `${attack.method} ${attack.target ?? attack.path} HTTP/1.1`,
        'Host: kubelet',
        ...(attack.headers ?? ['Connection: close']),
        ...(who.token ? [`Authorization: Bearer ${who.token}`] : []),
        ...(['POST', 'PUT', 'PATCH'].includes(attack.method) ? ['Content-Length: 0'] : []),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parseAnswer(Buffer.concat(chunks).toString(), attack.method === 'HEAD'));
      } catch (err) {
        reject(err);
      }
    });
    socket.setTimeout(TIMEOUT_MS, () => socket.destroy(new Error(`${attack.method} ${attack.path}: no answer`)));
  });
}

function parseAnswer(raw: string, head: boolean): Answer {
  const end = raw.indexOf('\r\n\r\n');
  assert.ok(end > 0, `no HTTP answer: ${JSON.stringify(raw.slice(0, 200))}`);
  const [statusLine, ...headerLines] = raw.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  let body = head ? '' : raw.slice(end + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return { status: Number(statusLine!.split(' ')[1]), headers, body };
}

function dechunk(text: string): string {
  let out = '';
  for (let rest = text; ;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

/** Every path to attack: each route's own path, and below each prefix a path naming the node's pod and container. */
function targets(node: Node): Array<{ path: string; route: Route }> {
  return node.routes.flatMap((route) =>
    route.path.endsWith('/') ? [{ path: route.path, route }, { path: `${route.path}default/web-${node.name}/main`, route }] : [{ path: route.path, route }],
  );
}

function attacksOn(node: Node): Attack[] {
  const attacks: Attack[] = [];
  for (const { path, route } of targets(node)) {
    for (const method of METHODS) attacks.push({ method, path });
    if (route.upgrade) {
      attacks.push({ method: 'GET', path, headers: ['Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`, 'Sec-WebSocket-Protocol: v5.channel.k8s.io'] });
      attacks.push({ method: 'POST', path, headers: ['Connection: Upgrade', 'Upgrade: SPDY/3.1', 'X-Stream-Protocol-Version: v4.channel.k8s.io'] });
    }
  }
  attacks.push({ method: 'CONNECT', path: '/', target: '127.0.0.1:10250' });
  return attacks;
}

/** Runs `work` over `items`, `CONCURRENCY` at a time. */
async function inParallel<T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}

/** Upstream's 403 body for `user` making this request. */
function forbidden(user: string, node: Node, attack: Attack): string {
  const attributes = requestAttributes(attack.method, attack.path, node.name, true);
  return `Forbidden (user=${user}, verb=${attributes[0]!.verb}, resource=nodes, subresource(s)=[${attributes.map((a) => a.subresource).join(' ')}])\n`;
}

/** Sends every attack as `who` and checks each answer against `expected`; collects every mismatch so a failure lists them all. */
async function assertRefused(node: Node, who: Credentials, expected: (attack: Attack) => { status: number; body: string }): Promise<void> {
  const attacks = attacksOn(node);
  const answers = await inParallel(attacks, (attack) => send(node, attack, who));
  const wrong: string[] = [];
  attacks.forEach((attack, i) => {
    const answer = answers[i]!;
    const want = expected(attack);
    const body = attack.method === 'HEAD' ? '' : want.body;
    if (answer.status !== want.status || answer.body !== body) {
      wrong.push(`${attack.method} ${attack.target ?? attack.path}${attack.headers ? ' (upgrade)' : ''}: ${answer.status} ${JSON.stringify(answer.body.slice(0, 120))}, want ${want.status} ${JSON.stringify(body)}`);
    }
  });
  assert.deepEqual(wrong, [], `${node.name}, ${who.label}: ${wrong.length} of ${attacks.length} requests not refused as upstream refuses them`);
}

const UNAUTHORIZED = { status: 401, body: 'Unauthorized\n' };

describe('anonymous auth off (upstream\'s v1beta1 default)', () => {
  test('the attack covers every route of the route table', () => {
    const node = nodes.get('anonymous-off')!;
    const paths = node.routes.map((route) => route.path);
    for (const path of ['/healthz', '/pods', '/metrics', '/stats/summary', '/containerLogs/', '/exec/', '/attach/', '/portForward/', '/run/']) assert.ok(paths.includes(path), path);
  });

  for (const key of ['none', 'unknownToken', 'untrustedCert'] as const) {
    test(`${credentials[key].label}: 401 on every route and method`, async () => {
      await assertRefused(nodes.get('anonymous-off')!, credentials[key], () => UNAUTHORIZED);
    });
  }

  test(`${credentials.powerlessToken.label}: 403 naming the attributes, on every route and method`, async () => {
    const node = nodes.get('anonymous-off')!;
    await assertRefused(node, credentials.powerlessToken, (attack) => ({ status: 403, body: forbidden('powerless', node, attack) }));
  });

  test(`${credentials.powerlessCert.label}: 403 naming the attributes, on every route and method`, async () => {
    const node = nodes.get('anonymous-off')!;
    await assertRefused(node, credentials.powerlessCert, (attack) => ({ status: 403, body: forbidden('powerless-cert', node, attack) }));
  });

  test('a method Node\'s HTTP parser does not know never reaches the server: 400 from the parser', async () => {
    const node = nodes.get('anonymous-off')!;
    const answer = await send(node, { method: 'FOO', path: '/pods' }, credentials.powerlessCert);
    assert.equal(answer.status, 400);
  });

  test('HEAD is authorized with the empty verb: a user allowed get is refused HEAD', async () => {
    const node = nodes.get('anonymous-off')!;
    api.addToken('getter-token', 'getter');
    api.allow({ users: ['getter'], verbs: ['get'], resources: ['nodes'], subresources: ['pods', 'proxy'] });
    const getter = { label: 'getter', token: 'getter-token' };
    assert.equal((await send(node, { method: 'GET', path: '/pods' }, getter)).status, 200, 'the control: GET is allowed');
    const head = await send(node, { method: 'HEAD', path: '/pods' }, getter);
    assert.equal(head.status, 403);
  });

  test('the same attack with credentials that are allowed gets the handlers\' answers (the refusals above are not an accident of the setup)', async () => {
    const node = nodes.get('anonymous-off')!;
    const admin = { label: 'system:masters', cert: await api.clientCredentials({ user: 'attack-admin', groups: ['system:masters'] }) };
    const answer = await send(node, { method: 'GET', path: '/pods' }, admin);
    assert.equal(answer.status, 200);
    assert.match(answer.body, /"kind":"PodList"/);
  });
});

describe('anonymous auth on, Webhook authorization', () => {
  test('no credentials: system:anonymous, refused 403 on every route and method', async () => {
    const node = nodes.get('anonymous-on')!;
    await assertRefused(node, credentials.none, (attack) => ({ status: 403, body: forbidden('system:anonymous', node, attack) }));
  });

  for (const key of ['unknownToken', 'untrustedCert'] as const) {
    test(`${credentials[key].label}: 401, not anonymous, on every route and method`, async () => {
      await assertRefused(nodes.get('anonymous-on')!, credentials[key], () => UNAUTHORIZED);
    });
  }
});

describe('unauthenticated requests for invented paths', () => {
  /** The kubelet_http_* series on /metrics, read as a scraper the API server allows. */
  async function httpSeries(node: Node): Promise<{ lines: string[]; text: string }> {
    const answer = await send(node, { method: 'GET', path: '/metrics' }, { label: 'scraper', token: 'scraper-token' });
    assert.equal(answer.status, 200, answer.body);
    return { lines: answer.body.split('\n').filter((line) => line.startsWith('kubelet_http_')), text: answer.body };
  }

  test(`${UNKNOWN_PATH_REQUESTS} of them leave the number of series on /metrics unchanged`, async () => {
    const node = nodes.get('anonymous-off')!;
    api.addToken('scraper-token', 'scraper');
    api.allow({ users: ['scraper'], verbs: ['get'], resources: ['nodes'], subresources: ['metrics'] });
    const methods = ['GET', 'POST', 'PROPFIND', 'DELETE', 'PATCH', 'OPTIONS'];
    // Every label combination the flood will use, once, so that only invented values could add series.
    for (const method of methods) await send(node, { method, path: '/warm-up' }, credentials.none);
    await httpSeries(node);
    const before = await httpSeries(node);

    const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY, rejectUnauthorized: false });
    const invented: string[] = [];
    try {
      await inParallel(Array.from({ length: UNKNOWN_PATH_REQUESTS }, (_, i) => i), async (i) => {
        const segment = `x${randomBytes(6).toString('hex')}`;
        if (i % 100 === 0) invented.push(segment);
        const token = i % 10 === 0 ? { authorization: `Bearer forged-${segment}` } : {};
        const status = await new Promise<number>((resolve, reject) => {
          const req = https.request({ host: '127.0.0.1', port: node.kubelet.apiPort, method: methods[i % methods.length], path: `/${segment}/${i}?q=${segment}`, agent, headers: token }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          });
          req.on('error', reject);
          req.end();
        });
        assert.equal(status, 401);
      });
    } finally {
      agent.destroy();
    }
    const afterFlood = await httpSeries(node);
    const seriesNames = (lines: string[]) => lines.map((line) => line.slice(0, line.lastIndexOf(' ')));
    assert.deepEqual(seriesNames(afterFlood.lines), seriesNames(before.lines));
    for (const segment of invented) assert.ok(!afterFlood.text.includes(segment), `${segment} appears on /metrics`);
  });
});
