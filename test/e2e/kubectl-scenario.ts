// What a user does with kubectl on a shardlet node, written once and run against
// each runtime: logs (whole, --tail, -f, --previous), exec (with and without stdin),
// port-forward, cp (containerd: the sim has no tar), a readiness probe flipping the
// pod's Ready as its served file goes and comes, the node's stats and metrics
// through the API server's nodes/proxy, and a real Prometheus server scraping
// shardlet's :10250 over TLS with a client certificate. Everything goes through the
// test API server as kubectl reaches a real cluster: kubectl → API server → kubelet
// → runtime.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import { freePort } from '../../src/tools/free-port.js';
import { ensurePrometheus, promtoolCheckMetrics, startPrometheus, type PrometheusServer } from '../../src/tools/prometheus-env.js';
import { signalGroup, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { testNoRefusals } from '../helpers/no-refusals.js';

const run = promisify(execFile);
const NODE = 'kubectl-node';
const TIMEOUT_MS = 90_000;
/** The pods this scenario makes, for runtimes that clean up after it. */
export const KUBECTL_POD_NAMES = ['talker', 'crasher', 'web'];

export interface KubectlRuntime {
  endpoint: string;
  image: string;
  /** Real processes and files (containerd): kubectl cp works, httpd serves inside the pod. */
  realProcesses: boolean;
  stop(): Promise<void>;
}

export function kubectlScenario(runtimeName: string, startRuntime: () => Promise<KubectlRuntime>): void {
  let runtime: KubectlRuntime;
  let workDir: string;
  let api: TestApiServer;
  let kubelet: KubeletProcess;
  let adminKubeconfig: string;
  let webPort: number;
  let simWebServer: http.Server | undefined;
  let prometheus: PrometheusServer | undefined;

  const kubectl = async (...args: string[]) => (await run('kubectl', ['--kubeconfig', adminKubeconfig, ...args], { timeout: TIMEOUT_MS })).stdout;
  const podJson = async (name: string) => JSON.parse(await kubectl('get', 'pod', name, '-o', 'json'));

  before(async () => {
    runtime = await startRuntime();
    workDir = mkdtempSync(join(tmpdir(), `shardlet-kubectl-${runtimeName}-`));
    api = await startTestApiServer({ defaultNodeName: NODE });
    adminKubeconfig = await api.writeKubeconfig(join(workDir, 'admin.kubeconfig'), { user: 'admin' });
    const nodeKubeconfig = await api.writeKubeconfig(join(workDir, 'node.kubeconfig'), { user: 'kubelet', nodeName: NODE });
    // Upstream's v1beta1 defaults (no anonymous, TokenReview, Webhook authorization) with the cluster's client CA.
    const config = join(workDir, 'kubelet.yaml');
    writeFileSync(config, stringify({
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      authentication: { x509: { clientCAFile: api.caFile } },
      podLogsDir: join(workDir, 'pod-logs'),
    }));
    kubelet = await startKubelet({
      runtimeEndpoint: runtime.endpoint,
      workers: 2,
      nodeName: NODE,
      workDir: join(workDir, 'node'),
      extraArgs: [`--kubeconfig=${nodeKubeconfig}`, `--config=${config}`, '--address=127.0.0.1', '--node-ip=127.0.0.1'],
    });
    // The pod's port: on containerd busybox httpd serves it inside the pod; the sim maps a pod's ports to the host's loopback, so the test serves it.
    webPort = await freePort();
    if (!runtime.realProcesses) {
      simWebServer = http.createServer((_req, res) => res.end('served\n'));
      await new Promise<void>((resolve) => simWebServer!.listen(webPort, '127.0.0.1', resolve));
    }
    const pod = (name: string, command: string, extra: Record<string, unknown> = {}) =>
      stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'main', image: runtime.image, command: ['sh', '-c', command], ...extra }] } });
    writeFileSync(join(workDir, 'pods.yaml'), [
      pod('talker', 'echo hello; echo second; while true; do sleep 1; echo tick; done'),
      pod('crasher', 'echo once; sleep 2; exit 1'),
      pod('web', runtime.realProcesses ? `mkdir -p /www && echo served > /www/index.html && httpd -f -p ${webPort} -h /www` : 'touch /tmp/ready; sleep 3600', {
        ports: [{ containerPort: webPort, name: 'http' }],
        // httpGet to the pod IP on containerd; the sim's pod IPs lead nowhere, so there the probe reads a file by exec.
        readinessProbe: {
          ...(runtime.realProcesses ? { httpGet: { path: '/index.html', port: 'http' } } : { exec: { command: ['cat', '/tmp/ready'] } }),
          periodSeconds: 1,
          failureThreshold: 1,
        },
      }),
    ].join('---\n'));
    await kubectl('apply', '-f', join(workDir, 'pods.yaml'));
    for (const name of KUBECTL_POD_NAMES) {
      await waitUntil(async () => (await podJson(name)).status?.phase === 'Running', TIMEOUT_MS, `${name} Running`);
    }
  });

  after(async () => {
    if (prometheus) await signalGroup(prometheus.process, 'SIGTERM');
    await kubectl('delete', 'pod', '--all', '--wait=false').catch(() => undefined);
    await waitUntil(async () => (await kubelet.pods()).length === 0, TIMEOUT_MS, 'pods removed').catch(() => undefined);
    await kubelet?.stop();
    await api?.stop();
    simWebServer?.close();
    await runtime?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  test(`[${runtimeName}] kubectl logs: whole, --tail, -f, --previous`, async () => {
    // Wait for the loop's first line, so the last line is known.
    const logs = await waitUntil(async () => {
      const text = await kubectl('logs', 'talker');
      return text.includes('tick\n') ? text : false;
    }, 30_000, 'the talker\'s loop printing');
    assert.match(logs, /^hello\nsecond\n/);
    assert.equal(await kubectl('logs', 'talker', '--tail=1'), 'tick\n');
    // -f keeps streaming new lines until we stop it.
    const follower = spawn('kubectl', ['--kubeconfig', adminKubeconfig, 'logs', '-f', 'talker'], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    let followed = '';
    follower.stdout!.on('data', (chunk: Buffer) => (followed += chunk.toString()));
    const ticksAtStart = logs.split('tick').length;
    await waitUntil(async () => followed.split('tick').length > ticksAtStart + 2, 30_000, 'kubectl logs -f shows new lines');
    await signalGroup(follower, 'SIGTERM');
    // The crasher has restarted at least once: --previous reads the instance before.
    await waitUntil(async () => ((await podJson('crasher')).status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1, TIMEOUT_MS, 'crasher restarted');
    assert.equal(await kubectl('logs', 'crasher', '--previous'), 'once\n');
  });

  test(`[${runtimeName}] kubectl exec, with and without stdin`, async () => {
    assert.equal(await kubectl('exec', 'talker', '--', 'echo', 'hi'), 'hi\n');
    const piped = await new Promise<string>((resolve, reject) => {
      const child = execFile('kubectl', ['--kubeconfig', adminKubeconfig, 'exec', '-i', 'talker', '--', 'cat'], { timeout: TIMEOUT_MS }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
      child.stdin!.end('through stdin\n');
    });
    assert.equal(piped, 'through stdin\n');
    await assert.rejects(kubectl('exec', 'talker', '--', 'sh', '-c', 'exit 3'), (err: { code?: number }) => err.code === 3, 'the exit code comes back');
  });

  test(`[${runtimeName}] kubectl port-forward reaches the pod's port`, async () => {
    const localPort = await freePort();
    const forward = spawn('kubectl', ['--kubeconfig', adminKubeconfig, 'port-forward', 'pod/web', `${localPort}:${webPort}`], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const body = await waitUntil(async () => {
        const reply = await fetch(`http://127.0.0.1:${localPort}/index.html`).catch(() => undefined);
        return reply?.ok ? reply.text() : false;
      }, 30_000, 'the forwarded port answers');
      assert.equal(body, 'served\n');
    } finally {
      await signalGroup(forward, 'SIGTERM');
    }
  });

  test(`[${runtimeName}] a readiness probe flips Ready as kubectl shows it, when the served file goes and comes back`, async () => {
    const ready = async () => (await kubectl('get', 'pod', 'web', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')).trim();
    const served = runtime.realProcesses ? '/www/index.html' : '/tmp/ready';
    await waitUntil(async () => (await ready()) === 'True', TIMEOUT_MS, 'web Ready');
    await kubectl('exec', 'web', '--', 'rm', served);
    await waitUntil(async () => (await ready()) === 'False', TIMEOUT_MS, 'web not Ready once the file is gone');
    await kubectl('exec', 'web', '--', 'sh', '-c', runtime.realProcesses ? `echo served > ${served}` : `touch ${served}`);
    await waitUntil(async () => (await ready()) === 'True', TIMEOUT_MS, 'web Ready again once the file is back');
    assert.equal((await podJson('web')).status.containerStatuses[0].restartCount, 0, 'readiness never restarts the container');
  });

  test(`[${runtimeName}] kubectl cp copies a file out of a container`, async (t) => {
    if (!runtime.realProcesses) {
      t.skip('the simulated runtime has no tar: kubectl cp needs a real container');
      return;
    }
    const target = join(workDir, 'hostname-copy');
    await kubectl('cp', 'default/talker:/etc/hostname', target);
    assert.equal(readFileSync(target, 'utf8').trim(), 'talker');
  });

  test(`[${runtimeName}] the node's stats and metrics through the API server's nodes/proxy`, async () => {
    const summary = await waitUntil(async () => {
      const parsed = JSON.parse(await kubectl('get', '--raw', `/api/v1/nodes/${NODE}/proxy/stats/summary`));
      const talker = parsed.pods.find((p: { podRef: { name: string } }) => p.podRef.name === 'talker');
      return talker?.cpu?.usageCoreNanoSeconds > 0 && talker?.memory?.workingSetBytes > 0 ? parsed : false;
    }, 30_000, 'the talker pod with CPU and memory in /stats/summary');
    assert.equal(summary.node.nodeName, NODE);
    const metrics = await kubectl('get', '--raw', `/api/v1/nodes/${NODE}/proxy/metrics`);
    const check = promtoolCheckMetrics(ensurePrometheus().promtool, metrics);
    assert.ok(check.ok, `promtool check metrics: ${check.output}`);
    assert.match(metrics, /^kubelet_running_pods \d+$/m);
  });

  test(`[${runtimeName}] a Prometheus server scrapes :10250 over TLS with a client certificate`, async () => {
    const binaries = ensurePrometheus();
    const credentials = await api.clientCredentials({ user: 'prometheus', groups: ['monitoring'] });
    api.allow({ groups: ['monitoring'], verbs: ['get'], resources: ['nodes'], subresources: ['metrics'] });
    const certFile = join(workDir, 'prometheus.crt');
    const keyFile = join(workDir, 'prometheus.key');
    writeFileSync(certFile, credentials.certPem);
    writeFileSync(keyFile, credentials.keyPem, { mode: 0o600 });
    prometheus = await startPrometheus(binaries.prometheus, `127.0.0.1:${kubelet.apiPort}`, 'kubelet', { certFile, keyFile, insecureSkipVerify: true });
    const value = await waitUntil(async () => {
      const reply = await fetch(`${prometheus!.url}/api/v1/query?query=kubelet_running_pods`).catch(() => undefined);
      const result = reply?.ok ? ((await reply.json()) as { data: { result: Array<{ value: [number, string] }> } }).data.result : [];
      return result.length > 0 ? Number(result[0]!.value[1]) : false;
    }, 60_000, 'Prometheus has scraped kubelet_running_pods');
    assert.ok(value >= KUBECTL_POD_NAMES.length, `kubelet_running_pods ${value}`);
  });

  testNoRefusals(() => [api]);
}
