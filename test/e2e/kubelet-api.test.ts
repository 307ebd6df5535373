// The kubelet API (:10250) through the real process, in cluster mode against the
// test API server over real HTTPS and the simulated runtime: upstream's
// authentication (client certificates from the client CA, bearer tokens through
// TokenReview, no anonymous) and Webhook authorization (SubjectAccessReview
// against the API server's rule table), the API server's nodes/proxy reaching it
// for kubectl, the plain healthz port, kubectl drain through the Eviction
// subresource, and start-up failures that name the setting at fault.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import tls from 'node:tls';
import { stringify } from 'yaml';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { startTestApiServer, type ClientCredentials, type TestApiServer } from '../../src/testapiserver/server.js';
import { freePort } from '../../src/tools/free-port.js';
import { kubeletServerPortArgs, signalGroup, spawnShardlet, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { testNoRefusals } from '../helpers/no-refusals.js';
import { kubectlOutput } from '../helpers/kubectl.js';

const NODE = 'api-node';
const TIMEOUT_MS = 60_000;

let workDir: string;
let sim: SimRuntime;
let api: TestApiServer;
let kubelet: KubeletProcess;
let adminKubeconfig: string;
let nodeKubeconfig: string;
let healthzPort: number;

async function kubectl(...args: string[]): Promise<string> {
  return kubectlOutput(adminKubeconfig, args, TIMEOUT_MS);
}

/** One request to the kubelet's :10250, as a client of its own (the serving certificate is self-signed). */
function kubeletGet(path: string, credentials: { token?: string; client?: ClientCredentials } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: kubelet.apiPort,
        path,
        rejectUnauthorized: false,
        headers: credentials.token ? { authorization: `Bearer ${credentials.token}` } : {},
        ...(credentials.client ? { cert: credentials.client.certPem, key: credentials.client.keyPem } : {}),
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function writeConfig(name: string, fields: Record<string, unknown>): string {
  const file = join(workDir, name);
  writeFileSync(file, stringify({ apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', ...fields }));
  return file;
}

/** Runs shardlet to its exit; the group is killed if it outlives the timeout. */
async function runToExit(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const { child, stderr } = spawnShardlet([...(await kubeletServerPortArgs(args)), ...args]);
  const timer = setTimeout(() => void signalGroup(child, 'SIGKILL'), TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, stderr: stderr() };
}

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-kubelet-api-'));
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  api = await startTestApiServer({ defaultNodeName: NODE });
  adminKubeconfig = await api.writeKubeconfig(join(workDir, 'admin.kubeconfig'), { user: 'admin' });
  nodeKubeconfig = await api.writeKubeconfig(join(workDir, 'node.kubeconfig'), { user: 'kubelet', nodeName: NODE });
  // Upstream's v1beta1 defaults apart from the client CA: anonymous off, webhook authn on, Webhook authz.
  const config = writeConfig('kubelet.yaml', { authentication: { x509: { clientCAFile: api.caFile } }, podLogsDir: join(workDir, 'pod-logs') });
  healthzPort = await freePort();
  kubelet = await startKubelet({
    runtimeEndpoint: sim.endpoint,
    workers: 1,
    nodeName: NODE,
    workDir: join(workDir, 'node'),
    extraArgs: [`--kubeconfig=${nodeKubeconfig}`, `--config=${config}`, '--address=127.0.0.1', '--node-ip=127.0.0.1', `--healthz-port=${healthzPort}`],
  });
  const pod = (name: string, command: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'main', image: 'busybox:1.35', command: ['sh', '-c', command] }] },
  });
  const podFile = join(workDir, 'pods.yaml');
  writeFileSync(podFile, [stringify(pod('web', 'sleep 3600')), stringify(pod('talker', 'echo hello from talker; sleep 3600'))].join('---\n'));
  await kubectl('apply', '-f', podFile);
  for (const name of ['web', 'talker']) {
    await waitUntil(async () => JSON.parse(await kubectl('get', 'pod', name, '-o', 'json')).status?.phase === 'Running', TIMEOUT_MS, `pod ${name} Running`);
  }
});

after(async () => {
  await kubelet?.stop();
  await api?.stop();
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('the kubelet API on :10250', () => {
  test('the node advertises the port the server bound', async () => {
    const node = JSON.parse(await kubectl('get', 'node', NODE, '-o', 'json'));
    assert.equal(node.status.daemonEndpoints.kubeletEndpoint.Port, kubelet.apiPort);
  });

  test('no credentials: 401, anonymous is off', async () => {
    const answer = await kubeletGet('/pods');
    assert.equal(answer.status, 401);
    assert.equal(answer.body.trim(), 'Unauthorized');
  });

  test('a bearer token the API server does not know: 401', async () => {
    assert.equal((await kubeletGet('/pods', { token: 'not-a-token' })).status, 401);
  });

  test('a token the API server knows, for a user no rule lets in: 403 naming the attributes', async () => {
    api.addToken('viewer-token', 'viewer');
    const answer = await kubeletGet('/pods', { token: 'viewer-token' });
    assert.equal(answer.status, 403);
    assert.equal(answer.body, 'Forbidden (user=viewer, verb=get, resource=nodes, subresource(s)=[pods proxy])\n');
  });

  test('a token whose user a rule lets read nodes/pods: 200 with the PodList', async () => {
    api.addToken('pods-reader-token', 'pods-reader');
    api.allow({ users: ['pods-reader'], verbs: ['get'], resources: ['nodes'], subresources: ['pods'] });
    const answer = await kubeletGet('/pods', { token: 'pods-reader-token' });
    assert.equal(answer.status, 200, answer.body);
    const list = JSON.parse(answer.body);
    assert.equal(list.kind, 'PodList');
    assert.ok(list.items.some((pod: { metadata: { name: string } }) => pod.metadata.name === 'web'));
    // nodes/pods is not nodes/stats.
    assert.equal((await kubeletGet('/stats/summary', { token: 'pods-reader-token' })).status, 403);
  });

  test('a client certificate from the client CA whose group a rule lets in: 200 on /pods', async () => {
    api.allow({ groups: ['monitoring'], verbs: ['get'], resources: ['nodes'], subresources: ['proxy'] });
    const client = await api.clientCredentials({ user: 'scraper', groups: ['monitoring'] });
    const answer = await kubeletGet('/pods', { client });
    assert.equal(answer.status, 200, answer.body);
    assert.ok(JSON.parse(answer.body).items.some((pod: { metadata: { name: string } }) => pod.metadata.name === 'web'));
    const stranger = await api.clientCredentials({ user: 'stranger', groups: ['nobody'] });
    assert.equal((await kubeletGet('/pods', { client: stranger })).status, 403);
  });

  test('kubectl get --raw through the API server\'s nodes/proxy: /pods, /healthz, /runningpods/, /configz', async () => {
    const pods = JSON.parse(await kubectl('get', '--raw', `/api/v1/nodes/${NODE}/proxy/pods`));
    assert.ok(pods.items.some((pod: { metadata: { name: string } }) => pod.metadata.name === 'web'));
    assert.equal(await kubectl('get', '--raw', `/api/v1/nodes/${NODE}/proxy/healthz`), 'ok');
    const running = JSON.parse(await kubectl('get', '--raw', `/api/v1/nodes/${NODE}/proxy/runningpods/`));
    const web = running.items.find((pod: { metadata: { name: string } }) => pod.metadata.name === 'web');
    assert.deepEqual(web?.spec.containers.map((c: { name: string }) => c.name), ['main']);
    const configz = JSON.parse(await kubectl('get', '--raw', `/api/v1/nodes/${NODE}/proxy/configz`));
    assert.equal(configz.kubeletconfig.authorization.mode, 'Webhook');
    assert.equal(configz.kubeletconfig.syncFrequency, '1m0s');
    assert.equal(configz.kubeletconfig.authentication.x509.clientCAFile, api.caFile);
  });

  test('/statusz and /flagz (on by default, as 1.36): nodes/statusz lets /statusz in, /flagz needs nodes/configz', async () => {
    api.addToken('statusz-reader-token', 'statusz-reader');
    api.allow({ users: ['statusz-reader'], verbs: ['get'], resources: ['nodes'], subresources: ['statusz'] });
    const statusz = await kubeletGet('/statusz', { token: 'statusz-reader-token' });
    assert.equal(statusz.status, 200, statusz.body);
    assert.match(statusz.body, /^\nkubelet statusz\nWarning: This endpoint is not meant to be machine parseable/);
    assert.match(statusz.body, /^Paths(:|: |=| ) .*\/configz .*\/flagz .*\/statusz/m);
    const flagz = await kubeletGet('/flagz', { token: 'statusz-reader-token' });
    assert.equal(flagz.status, 403);
    assert.equal(flagz.body, 'Forbidden (user=statusz-reader, verb=get, resource=nodes, subresource(s)=[configz proxy])\n');
  });

  test('kubectl get --raw .../proxy/statusz, /flagz and /metrics/cadvisor through the API server', async () => {
    const statusz = await kubectl('get', '--raw', `/api/v1/nodes/${NODE}/proxy/statusz`);
    assert.match(statusz, /^Binary version(:|: |=| ) 1\.\d+\.\d+-shardlet/m);
    const flagz = await kubectl('get', '--raw', `/api/v1/nodes/${NODE}/proxy/flagz`);
    assert.match(flagz, /^kubeconfig(:|: |=| )\S+node\.kubeconfig$/m);
    const cadvisor = await kubectl('get', '--raw', `/api/v1/nodes/${NODE}/proxy/metrics/cadvisor`);
    assert.match(cadvisor, /^container_memory_working_set_bytes\{container="main",.*namespace="default",pod="web"\} \d+ \d+$/m);
  });

  test('kubectl logs reaches /containerLogs through the API server and the auth chain', async () => {
    const logs = await waitUntil(async () => (await kubectl('logs', 'talker')) || false, TIMEOUT_MS, 'talker\'s log');
    assert.equal(logs, 'hello from talker\n');
  });

  test('kubectl get --raw .../proxy/stats/summary and /metrics: the stats and metrics routes behind the server', async () => {
    const summary = JSON.parse(await kubectl('get', '--raw', `/api/v1/nodes/${NODE}/proxy/stats/summary`));
    assert.equal(summary.node.nodeName, NODE);
    assert.ok(summary.pods.some((entry: { podRef: { name: string } }) => entry.podRef.name === 'web'));
    const metrics = await kubectl('get', '--raw', `/api/v1/nodes/${NODE}/proxy/metrics`);
    assert.match(metrics, /^kubelet_running_pods \d+$/m);
    assert.match(metrics, /^kubelet_http_requests_total\{.*path="pods".*server_type="readwrite".*\} \d+$/m);
  });

  test('the plain healthz port answers ok', async () => {
    const answer = await fetch(`http://127.0.0.1:${healthzPort}/healthz`);
    assert.equal(answer.status, 200);
    assert.equal(await answer.text(), 'ok');
  });

  test('kubectl drain evicts the node\'s API pods through the Eviction subresource', async () => {
    await kubectl('drain', NODE, '--force', '--ignore-daemonsets', '--grace-period=1', '--timeout=60s');
    assert.ok((api.requestCount()['create pods/eviction'] ?? 0) >= 1, 'an Eviction was posted');
    const left = JSON.parse(await kubectl('get', 'pods', '-o', 'json')).items.map((pod: { metadata: { name: string } }) => pod.metadata.name);
    assert.deepEqual(left, []);
    const node = JSON.parse(await kubectl('get', 'node', NODE, '-o', 'json'));
    assert.equal(node.spec.unschedulable, true, 'cordoned');
  });
});

describe('serverTLSBootstrap (--rotate-server-certificates)', () => {
  test('the kubelet API serves a certificate the cluster issued for the node', async () => {
    const node = 'serving-node';
    const kubeconfig = await api.writeKubeconfig(join(workDir, 'serving-node.kubeconfig'), { user: 'kubelet', nodeName: node });
    const config = writeConfig('serving.yaml', { serverTLSBootstrap: true });
    const serving = await startKubelet({
      runtimeEndpoint: sim.endpoint,
      workers: 1,
      nodeName: node,
      workDir: join(workDir, 'serving-node'),
      extraArgs: [`--kubeconfig=${kubeconfig}`, `--config=${config}`, '--address=127.0.0.1', '--node-ip=127.0.0.1'],
    });
    try {
      const caPem = readFileSync(api.caFile, 'utf8');
      // Verified against the cluster CA and for 127.0.0.1: only the issued certificate passes.
      const subject = await waitUntil(
        () =>
          new Promise<string | false>((resolve) => {
            const socket = tls.connect({ host: '127.0.0.1', port: serving.apiPort!, ca: caPem }, () => {
              resolve(String(socket.getPeerCertificate().subject.CN));
              socket.destroy();
            });
            socket.on('error', () => resolve(false));
          }),
        TIMEOUT_MS,
        'a serving certificate from the cluster',
      );
      assert.equal(subject, `system:node:${node}`);
      assert.ok((api.requestCount()['create certificatesigningrequests.certificates.k8s.io'] ?? 0) >= 1);
    } finally {
      await serving.stop();
    }
  });
});

describe('start-up failures name the setting', () => {
  const common = () => [`--container-runtime-endpoint=${sim.endpoint}`, `--root-dir=${join(workDir, 'failing')}`, '--hostname-override=failing-node', '--read-only-port=0'];

  test('a missing tlsCertFile', async () => {
    const config = writeConfig('missing-cert.yaml', { tlsCertFile: join(workDir, 'nope.crt'), tlsPrivateKeyFile: join(workDir, 'nope.key'), authentication: { webhook: { enabled: false } }, authorization: { mode: 'AlwaysAllow' } });
    const { code, stderr } = await runToExit([...common(), `--config=${config}`]);
    assert.notEqual(code, 0);
    assert.match(stderr, /tlsCertFile \(--tls-cert-file\) \S*nope\.crt: cannot read the serving certificate file/);
  });

  test('a bad authorization mode', async () => {
    const config = writeConfig('bad-mode.yaml', { authorization: { mode: 'RBAC' } });
    const { code, stderr } = await runToExit([...common(), `--config=${config}`]);
    assert.notEqual(code, 0);
    assert.match(stderr, /field "authorization\.mode": unknown authorization mode "RBAC"/);
  });

  test('webhook authentication without --kubeconfig, as upstream', async () => {
    const config = writeConfig('standalone.yaml', {});
    const { code, stderr } = await runToExit([...common(), `--config=${config}`]);
    assert.notEqual(code, 0);
    assert.match(stderr, /authentication\.webhook\.enabled .*no client provided, cannot use webhook authentication/);
  });
});

testNoRefusals(() => [api]);
