// exec, attach, port-forward and run through the kubelet's streaming routes,
// end to end on the simulated runtime: shardlet runs in this process against the
// sim over its real socket, the routes it registers are mounted on a test HTTP
// server, and the clients speak the wire protocols kubectl speaks (websocket v5
// and v4, SPDY/3.1 v4 and portforward.k8s.io). The sim's streaming server serves
// the sessions; the kubelet only proxies them.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Kubelet } from '../../src/main/kubelet.js';
import { parseFlags } from '../../src/main/options/flags.js';
import { mergeFlags } from '../../src/main/options/kubelet-config.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { freePort } from '../../src/tools/free-port.js';
import { waitUntil } from '../helpers/kubelet-process.js';
import { serveRoutes, type RouteServer } from '../helpers/route-server.js';
import { spdyExec, spdyPortForward, spdyUpgrade, websocketExec } from '../helpers/stream-clients.js';
import { manifest } from './scenarios.js';
import { execFile, spawn } from 'node:child_process';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import { startApiFront, type ApiFront } from '../helpers/api-front.js';
import { signalGroup } from '../helpers/kubelet-process.js';
import { testNoRefusals } from '../helpers/no-refusals.js';

const NODE = 'stream-node';
const POD = `shell-${NODE}`;

let sim: SimRuntime;
let kubelet: Kubelet;
let routes: RouteServer;
let podServer: Server;
let podPort: number;
let api: TestApiServer;
let front: ApiFront;
let frontKubeconfig: string;

function execUrl(command: string[], query = 'stdout=1&stderr=1'): string {
  return `${routes.baseUrl}/exec/default/${POD}/main?${command.map((word) => `command=${encodeURIComponent(word)}`).join('&')}&${query}`;
}

before(async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-streaming-'));
  const manifestDir = join(workDir, 'manifests');
  mkdirSync(manifestDir);
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock'), latency: { scale: 0 } });
  writeFileSync(
    join(manifestDir, 'shell.yaml'),
    manifest('shell', { containers: [{ name: 'main', image: 'busybox:1.35', command: ['sh', '-c', 'touch /tmp/healthy; sleep 3600'] }] }),
  );
  const flags = parseFlags([
    `--container-runtime-endpoint=${sim.endpoint}`,
    `--pod-manifest-path=${manifestDir}`,
    `--root-dir=${join(workDir, 'root')}`,
    '--read-only-port=0',
    '--workers=1',
    `--hostname-override=${NODE}`,
  ]);
  kubelet = new Kubelet(mergeFlags(undefined, flags), pino({ level: 'warn' }));
  await kubelet.start();
  // The routes exactly as the kubelet registers them for its :10250 server.
  routes = await serveRoutes(kubelet.apiRoutes());
  await waitUntil(
    async () => kubelet.podManager.pods().some((pod) => kubelet.statuses.get(pod.metadata!.uid!)?.phase === 'Running'),
    30_000,
    'the shell pod Running',
  );
  // The "pod's" port: the sim maps every pod port to its host's loopback.
  podPort = await freePort();
  podServer = createServer((_req, res) => res.end('hello from the pod\n'));
  await new Promise<void>((resolve) => podServer.listen(podPort, '127.0.0.1', resolve));

  // kubectl's way in: the test API server knows the pod, a front proxies its streaming subresources to the routes.
  api = await startTestApiServer({ defaultNodeName: NODE });
  api.store.create({ key: 'pods', group: '', plural: 'pods' }, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: POD, namespace: 'default' },
    spec: { nodeName: NODE, containers: [{ name: 'main', image: 'busybox:1.35' }] },
    // kubectl port-forward refuses a pod that is not Running.
    status: { phase: 'Running' },
  } as never);
  front = await startApiFront({ apiUrl: api.url, admin: await api.clientCredentials({ user: 'admin' }), kubeletBaseUrl: routes.baseUrl, defaultContainer: 'main' });
  frontKubeconfig = join(workDir, 'front.kubeconfig');
  writeFileSync(
    frontKubeconfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: front, cluster: {server: "${front.url}"}}]\nusers: [{name: anyone, user: {}}]\ncontexts: [{name: front, context: {cluster: front, user: anyone, namespace: default}}]\ncurrent-context: front\n`,
  );
});

after(async () => {
  await front?.close();
  await api?.stop();
  await routes?.close();
  await new Promise((resolve) => podServer?.close(resolve));
  await kubelet?.stop();
  await sim?.close();
});

describe('exec over a websocket (v5.channel.k8s.io, as kubectl ≥ 1.30 sends it)', () => {
  it('prints hi and reports success', async () => {
    const result = await websocketExec(execUrl(['echo', 'hi']));
    assert.equal(result.stdout, 'hi\n');
    assert.deepEqual(JSON.parse(result.error), { metadata: {}, status: 'Success' });
  });

  it('feeds stdin to the command until the close signal', async () => {
    const result = await websocketExec(execUrl(['cat'], 'stdin=1&stdout=1&stderr=1'), { stdin: 'line one\nline two\n' });
    assert.equal(result.stdout, 'line one\nline two\n');
    assert.equal(JSON.parse(result.error).status, 'Success');
  });

  it('reports a non-zero exit as upstream does: Failure, NonZeroExitCode, the code as a cause', async () => {
    const result = await websocketExec(execUrl(['sh', '-c', 'echo oops >&2; exit 3']));
    const status = JSON.parse(result.error);
    assert.equal(status.status, 'Failure');
    assert.equal(status.reason, 'NonZeroExitCode');
    assert.deepEqual(status.details.causes, [{ reason: 'ExitCode', message: '3' }]);
    assert.equal(result.stderr, 'oops\n');
  });

  it('sees the files the container script made, and its own', async () => {
    assert.equal((await websocketExec(execUrl(['ls', '/tmp']))).stdout, 'healthy\n');
    await websocketExec(execUrl(['sh', '-c', 'echo saved > /tmp/note']));
    assert.equal((await websocketExec(execUrl(['cat', '/tmp/note']))).stdout, 'saved\n');
  });

  it('speaks v4.channel.k8s.io too', async () => {
    const result = await websocketExec(execUrl(['echo', 'v4']), { protocol: 'v4.channel.k8s.io' });
    assert.equal(result.stdout, 'v4\n');
    assert.equal(JSON.parse(result.error).status, 'Success');
  });
});

describe('exec over SPDY/3.1 (v4.channel.k8s.io)', () => {
  it('prints hi, runs stdin through cat and reports exit codes', async () => {
    const hi = await spdyExec(execUrl(['echo', 'hi']), { stderr: true });
    assert.equal(hi.stdout, 'hi\n');
    assert.equal(JSON.parse(hi.error).status, 'Success');
    const cat = await spdyExec(execUrl(['cat'], 'stdin=1&stdout=1'), { stdin: 'through spdy' });
    assert.equal(cat.stdout, 'through spdy');
    const failed = await spdyExec(execUrl(['false']), { stderr: true });
    assert.deepEqual(JSON.parse(failed.error).details.causes, [{ reason: 'ExitCode', message: '1' }]);
  });

  it('answers v2.channel.k8s.io with a plain error text, as the older protocol carries it', async () => {
    const failed = await spdyExec(execUrl(['sh', '-c', 'exit 2']), { protocol: 'v2.channel.k8s.io', stderr: true });
    assert.match(failed.error, /command terminated with non-zero exit code/);
  });
});

describe('attach', () => {
  it('connects stdin and stdout of the container', async () => {
    const url = `${routes.baseUrl}/attach/default/${POD}/main?stdin=1&stdout=1`;
    const result = await websocketExec(url, { stdin: 'typed\n' });
    assert.equal(result.stdout, 'typed\n');
  });
});

describe('port-forward over SPDY (portforward.k8s.io)', () => {
  it('reaches a server on the pod port', async () => {
    const result = await spdyPortForward(
      `${routes.baseUrl}/portForward/default/${POD}`,
      podPort,
      `GET / HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n`,
    );
    assert.match(result.data, /^HTTP\/1.1 200 OK/);
    assert.match(result.data, /hello from the pod/);
    assert.equal(result.error, '');
  });
});

describe('answers without a session', () => {
  it('refuses a request that does not upgrade, a missing pod and a missing container as upstream', async () => {
    const plain = await fetch(execUrl(['echo', 'hi']));
    assert.equal(plain.status, 500);
    assert.equal((await plain.text()).trim(), 'Upgrade request required');

    const noPod = await spdyUpgrade(`${routes.baseUrl}/exec/default/nope/main?command=true&stdout=1`, ['v4.channel.k8s.io']);
    assert.equal(noPod.statusCode, 404);
    assert.equal(noPod.body.trim(), 'pod does not exist');

    const noContainer = await spdyUpgrade(`${routes.baseUrl}/exec/default/${POD}/sidecar?command=true&stdout=1`, ['v4.channel.k8s.io']);
    assert.equal(noContainer.statusCode, 500);
    assert.equal(noContainer.body.trim(), 'container not found ("sidecar")');

    const noStreams = await fetch(`${routes.baseUrl}/exec/default/${POD}/main?command=true`);
    assert.equal(noStreams.status, 400);
    assert.equal((await noStreams.text()).trim(), 'you must specify at least 1 of stdin, stdout, stderr');

    const wrongUid = await spdyUpgrade(`${routes.baseUrl}/portForward/default/${POD}/not-the-uid`, ['portforward.k8s.io']);
    assert.equal(wrongUid.statusCode, 404);
    assert.equal(wrongUid.body.trim(), 'pod not found');
  });

  it("passes the runtime's refusal of an unknown websocket subprotocol through (kubectl then falls back to SPDY)", async () => {
    await assert.rejects(websocketExec(execUrl(['echo', 'hi']), { protocol: 'v9.channel.k8s.io' }), /websocket upgrade refused: 403/);
  });

  it('honours a pod UID in the path: the right one serves, another is refused', async () => {
    const uid = kubelet.podManager.pods()[0].metadata!.uid!;
    const withUid = await websocketExec(`${routes.baseUrl}/exec/default/${POD}/${uid}/main?command=echo&command=uid&stdout=1`);
    assert.equal(withUid.stdout, 'uid\n');
    const wrongUid = await spdyUpgrade(`${routes.baseUrl}/exec/default/${POD}/other-uid/main?command=true&stdout=1`, ['v4.channel.k8s.io']);
    assert.equal(wrongUid.statusCode, 500);
    assert.equal(wrongUid.body.trim(), `pod ${POD}_default not found`);
  });

  it('runs /run through ExecSync and answers with the output', async () => {
    const ok = await fetch(`${routes.baseUrl}/run/default/${POD}/main?cmd=${encodeURIComponent('cat /etc/hostname')}`, { method: 'POST' });
    assert.equal(ok.status, 200);
    assert.equal(await ok.text(), 'shell-stream-node\n');
    const failed = await fetch(`${routes.baseUrl}/run/default/${POD}/main?cmd=${encodeURIComponent('cat /nope')}`, { method: 'POST' });
    assert.equal(failed.status, 500);
    assert.match(await failed.text(), /command 'cat \/nope' exited with 1: cat: can't open '\/nope'/);
  });

  it('leaves no connection open once sessions end', async () => {
    await websocketExec(execUrl(['echo', 'x']));
    await spdyExec(execUrl(['echo', 'y']), { stderr: true });
    await waitUntil(async () => routes.openSockets() === 0, 10_000, 'every proxied connection closed');
  });
});

describe('real kubectl through an API-server front to the routes', () => {
  const kubectl = (args: string[], input?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile('kubectl', ['--kubeconfig', frontKubeconfig, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
      );
      if (input !== undefined) child.stdin!.end(input);
    });

  it('kubectl exec prints hi (websocket v5 from kubectl 1.32)', async () => {
    const result = await kubectl(['exec', POD, '--', 'echo', 'hi']);
    assert.equal(result.stdout, 'hi\n', result.stderr);
    assert.equal(result.code, 0);
  });

  it('kubectl exec -i feeds stdin', async () => {
    const result = await kubectl(['exec', '-i', POD, '--', 'cat'], 'through kubectl\n');
    assert.equal(result.stdout, 'through kubectl\n', result.stderr);
  });

  it('kubectl exec exits with the command exit code', async () => {
    const result = await kubectl(['exec', POD, '--', 'sh', '-c', 'exit 3']);
    assert.equal(result.code, 3, result.stderr);
    assert.match(result.stderr, /command terminated with exit code 3/);
  });

  it('kubectl port-forward reaches the pod port (SPDY tunnelled in a websocket, as kubectl 1.31+ sends it)', async () => {
    const localPort = await freePort();
    const child = spawn('kubectl', ['--kubeconfig', frontKubeconfig, 'port-forward', `pod/${POD}`, `${localPort}:${podPort}`], {
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
      const answer = await fetch(`http://127.0.0.1:${localPort}/`);
      assert.equal(await answer.text(), 'hello from the pod\n');
    } finally {
      await signalGroup(child, 'SIGTERM');
    }
  });
});

testNoRefusals(() => [api]);
