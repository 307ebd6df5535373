// TLS bootstrap through the real process: a node with only a bootstrap-token
// kubeconfig and an empty cert dir asks for its client certificate (a CSR the test
// API server approves and signs), registers its Node with that certificate, and a
// restart reuses it without asking again.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import { startKubelet, waitUntil } from '../helpers/kubelet-process.js';
import { testNoRefusals } from '../helpers/no-refusals.js';

const NODE = 'boot-node';
const BOOTSTRAP_TOKEN = 'abcdef.0123456789abcdef';
let workDir: string;
let sim: SimRuntime;
let api: TestApiServer;

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-bootstrap-'));
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  api = await startTestApiServer();
  api.addToken(BOOTSTRAP_TOKEN, 'system:bootstrap:abcdef', ['system:bootstrappers']);
});

after(async () => {
  await api?.stop();
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

const csrCreates = () => api.requestCount()['create certificatesigningrequests.certificates.k8s.io'] ?? 0;

test('a bootstrap-token kubeconfig and an empty cert dir: a CSR, the node registered with its own certificate; a restart reuses it', async () => {
  const bootstrapKubeconfig = await api.writeKubeconfig(join(workDir, 'bootstrap-kubelet.conf'), { user: 'kubelet', nodeName: NODE, token: BOOTSTRAP_TOKEN });
  const kubeconfig = join(workDir, 'kubelet.conf');
  const certDir = join(workDir, 'pki');
  const args = [`--bootstrap-kubeconfig=${bootstrapKubeconfig}`, `--kubeconfig=${kubeconfig}`, `--cert-dir=${certDir}`, '--rotate-certificates'];
  const start = () => startKubelet({ runtimeEndpoint: sim.endpoint, workers: 1, nodeName: NODE, workDir, extraArgs: args });

  api.resetRequestCount();
  const first = await start();
  try {
    await waitUntil(async () => (api.requestCount()['create nodes'] ?? 0) >= 1, 60_000, 'the node registered');
    assert.equal(csrCreates(), 1, 'one CSR');
    assert.ok(existsSync(kubeconfig), 'the kubeconfig was written');
    assert.match(readlinkSync(join(certDir, 'kubelet-client-current.pem')), /kubelet-client-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}\.pem$/);
    assert.ok(first.logs.some((line) => line.msg === 'Client certificate ready' && line.source === 'csr'));
    assert.ok(first.logs.some((line) => line.msg === 'certificate rotation scheduled'), 'rotateCertificates schedules the renewal');
  } finally {
    await first.stop();
  }

  const second = await start();
  try {
    await waitUntil(async () => second.logs.some((line) => line.msg === 'Client certificate ready'), 60_000, 'the certificate checked');
    assert.ok(second.logs.some((line) => line.msg === 'Client certificate ready' && line.source === 'kubeconfig'), 'the written kubeconfig is used as it is');
    assert.equal(csrCreates(), 1, 'no second CSR');
  } finally {
    await second.stop();
  }
});

testNoRefusals(() => [api]);
