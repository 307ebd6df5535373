// exec and port-forward through the kubelet's streaming routes to real
// containerd's streaming server (scripts/containerd/setup.sh; needs root; run it
// under `flock /tmp/shardlet-containerd.lock`). shardlet runs in this process
// against containerd, its routes are mounted on a test HTTP server, and the
// clients speak kubectl's protocols; containerd serves the sessions in a busybox
// pod, the kubelet only proxies the bytes.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Kubelet } from '../../src/main/kubelet.js';
import { parseFlags } from '../../src/main/options/flags.js';
import { mergeFlags } from '../../src/main/options/kubelet-config.js';
import { CriClient } from '../../src/shared/cri/client.js';
import { ensureContainerd } from '../../src/tools/containerd-env.js';
import { waitUntil } from '../helpers/kubelet-process.js';
import { serveRoutes, type RouteServer } from '../helpers/route-server.js';
import { spdyExec, spdyPortForward, websocketExec } from '../helpers/stream-clients.js';
import { manifest } from './scenarios.js';
import { execFile, spawn } from 'node:child_process';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import { freePort } from '../../src/tools/free-port.js';
import { startApiFront, type ApiFront } from '../helpers/api-front.js';
import { signalGroup } from '../helpers/kubelet-process.js';
import { testNoRefusals } from '../helpers/no-refusals.js';

const NODE = 'stream-ctrd';
const POD = `web-${NODE}`;
const POD_TIMEOUT_MS = 120_000;
const HTTPD_PORT = 8080;

let kubelet: Kubelet;
let routes: RouteServer;
let cri: CriClient;
let manifestDir: string;
let api: TestApiServer;
let front: ApiFront;
let frontKubeconfig: string;

async function podSandboxes(): Promise<number> {
  const { items } = await cri.listPodSandbox({ filter: { label_selector: { 'io.kubernetes.pod.name': POD } } });
  return items.length;
}

function execUrl(command: string[], query = 'stdout=1&stderr=1'): string {
  return `${routes.baseUrl}/exec/default/${POD}/web?${command.map((word) => `command=${encodeURIComponent(word)}`).join('&')}&${query}`;
}

before(async () => {
  const containerd = ensureContainerd();
  cri = new CriClient(containerd.endpoint, { timeoutMs: 30_000 });
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-streaming-ctrd-'));
  manifestDir = join(workDir, 'manifests');
  mkdirSync(manifestDir);
  writeFileSync(
    join(manifestDir, 'web.yaml'),
    manifest('web', {
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'web',
          image: containerd.busyboxImage,
          command: ['sh', '-c', `mkdir -p /www && echo hello-from-busybox > /www/index.html && exec httpd -f -p ${HTTPD_PORT} -h /www`],
        },
      ],
    }),
  );
  const flags = parseFlags([
    `--container-runtime-endpoint=${containerd.endpoint}`,
    `--pod-manifest-path=${manifestDir}`,
    `--root-dir=${join(workDir, 'root')}`,
    '--read-only-port=0',
    '--workers=1',
    `--hostname-override=${NODE}`,
    '--file-check-frequency=1s',
  ]);
  kubelet = new Kubelet(mergeFlags(undefined, flags), pino({ level: 'warn' }));
  await kubelet.start();
  routes = await serveRoutes(kubelet.apiRoutes());
  await waitUntil(
    async () => kubelet.podManager.pods().some((pod) => kubelet.statuses.get(pod.metadata!.uid!)?.phase === 'Running'),
    POD_TIMEOUT_MS,
    'the busybox pod Running',
  );
  // kubectl's way in: the test API server knows the pod, a front proxies its streaming subresources to the routes.
  api = await startTestApiServer({ defaultNodeName: NODE });
  api.store.create({ key: 'pods', group: '', plural: 'pods' }, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: POD, namespace: 'default' },
    spec: { nodeName: NODE, containers: [{ name: 'web', image: containerd.busyboxImage }] },
    status: { phase: 'Running' },
  } as never);
  front = await startApiFront({ apiUrl: api.url, admin: await api.clientCredentials({ user: 'admin' }), kubeletBaseUrl: routes.baseUrl, defaultContainer: 'web' });
  frontKubeconfig = join(workDir, 'front.kubeconfig');
  writeFileSync(
    frontKubeconfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: front, cluster: {server: "${front.url}"}}]\nusers: [{name: anyone, user: {}}]\ncontexts: [{name: front, context: {cluster: front, user: anyone, namespace: default}}]\ncurrent-context: front\n`,
  );
});

after(async () => {
  await front?.close();
  await api?.stop();
  // Remove the pod before the kubelet goes: a stopped kubelet leaves pods to the runtime.
  rmSync(join(manifestDir, 'web.yaml'), { force: true });
  if (kubelet) await waitUntil(async () => (await podSandboxes()) === 0, POD_TIMEOUT_MS, 'the pod removed').catch(() => undefined);
  await routes?.close();
  await kubelet?.stop();
  cri?.close();
});

/** A hung session fails its test instead of the whole file. */
const SESSION_TIMEOUT = { timeout: 60_000 };

describe('streaming through the kubelet to containerd', () => {
  it('execs echo hi over SPDY/3.1 v4.channel.k8s.io', SESSION_TIMEOUT, async () => {
    const result = await spdyExec(execUrl(['echo', 'hi']), { stderr: true });
    assert.equal(result.stdout, 'hi\n');
    assert.equal(JSON.parse(result.error).status, 'Success');
  });

  it('reports a non-zero exit with its code over SPDY', SESSION_TIMEOUT, async () => {
    const result = await spdyExec(execUrl(['sh', '-c', 'exit 3']), { stderr: true });
    const status = JSON.parse(result.error);
    assert.equal(status.reason, 'NonZeroExitCode');
    assert.deepEqual(status.details.causes, [{ reason: 'ExitCode', message: '3' }]);
  });

  it('runs stdin through cat over SPDY', SESSION_TIMEOUT, async () => {
    const result = await spdyExec(execUrl(['cat'], 'stdin=1&stdout=1&stderr=1'), { stdin: 'to containerd\n', stderr: true });
    assert.equal(result.stdout, 'to containerd\n');
  });

  it('execs echo hi over a websocket with v4.channel.k8s.io', SESSION_TIMEOUT, async () => {
    const result = await websocketExec(execUrl(['echo', 'hi']), { protocol: 'v4.channel.k8s.io' });
    assert.equal(result.stdout, 'hi\n');
    assert.equal(JSON.parse(result.error).status, 'Success');
  });

  it("passes containerd's refusal of v5.channel.k8s.io (it speaks up to v4) to the client", SESSION_TIMEOUT, async () => {
    await assert.rejects(websocketExec(execUrl(['echo', 'hi']), { protocol: 'v5.channel.k8s.io' }), /websocket upgrade refused: 403/);
  });

  it('port-forwards to busybox httpd in the pod', SESSION_TIMEOUT, async () => {
    const result = await spdyPortForward(
      `${routes.baseUrl}/portForward/default/${POD}`,
      HTTPD_PORT,
      'GET /index.html HTTP/1.0\r\nHost: pod\r\n\r\n',
    );
    assert.match(result.data, /^HTTP\/1.[01] 200/);
    assert.match(result.data, /hello-from-busybox/);
  });

  it('runs /run through ExecSync', SESSION_TIMEOUT, async () => {
    const reply = await fetch(`${routes.baseUrl}/run/default/${POD}/web?cmd=${encodeURIComponent('cat /www/index.html')}`, { method: 'POST' });
    assert.equal(reply.status, 200);
    assert.equal(await reply.text(), 'hello-from-busybox\n');
  });
});

describe('real kubectl through an API-server front and the kubelet to containerd', () => {
  const kubectl = (args: string[], input?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile('kubectl', ['--kubeconfig', frontKubeconfig, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
      );
      if (input !== undefined) child.stdin!.end(input);
    });

  it('kubectl exec and exec -i work (kubectl falls back to SPDY when containerd refuses v5)', SESSION_TIMEOUT, async () => {
    const hi = await kubectl(['exec', POD, '--', 'echo', 'hi']);
    assert.equal(hi.stdout, 'hi\n', hi.stderr);
    const piped = await kubectl(['exec', '-i', POD, '--', 'cat'], 'via kubectl\n');
    assert.equal(piped.stdout, 'via kubectl\n', piped.stderr);
    const failed = await kubectl(['exec', POD, '--', 'sh', '-c', 'exit 4']);
    assert.equal(failed.code, 4, failed.stderr);
  });

  it('kubectl port-forward reaches busybox httpd', SESSION_TIMEOUT, async () => {
    const localPort = await freePort();
    const child = spawn('kubectl', ['--kubeconfig', frontKubeconfig, 'port-forward', `pod/${POD}`, `${localPort}:${HTTPD_PORT}`], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    try {
      await waitUntil(async () => output.includes('Forwarding from'), 30_000, 'kubectl port-forward listening').catch((err: Error) => {
        throw new Error(`${err.message}; kubectl said: ${output}`);
      });
      const answer = await fetch(`http://127.0.0.1:${localPort}/index.html`);
      assert.equal(await answer.text(), 'hello-from-busybox\n');
    } finally {
      await signalGroup(child, 'SIGTERM');
    }
  });
});

testNoRefusals(() => [api]);
