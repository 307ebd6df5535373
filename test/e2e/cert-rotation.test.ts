// Client certificate rotation through the real process, with certificates that
// live 30 s: shardlet renews its certificate before it expires (a second CSR), and
// after the first certificate has expired the node keeps working with the new one:
// its Lease is renewed and a pod created then is run and reported Running to the
// API server. No status update is lost to the rotation.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import type { Pod } from '../../src/shared/types.js';
import { startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { testNoRefusals } from '../helpers/no-refusals.js';
import { kubectlOutput } from '../helpers/kubectl.js';

const NODE = 'rotating-node';
const BOOTSTRAP_TOKEN = 'rotate.0123456789abcdef';
const LIFETIME_MS = 30_000;
let workDir: string;
let sim: SimRuntime;
let api: TestApiServer;
let kubelet: KubeletProcess;
let adminKubeconfig: string;

async function kubectl(...args: string[]): Promise<string> {
  return kubectlOutput(adminKubeconfig, args);
}

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-rotation-'));
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  api = await startTestApiServer({ clusterSigningDurationMs: LIFETIME_MS });
  api.addToken(BOOTSTRAP_TOKEN, 'system:bootstrap:rotate', ['system:bootstrappers']);
  adminKubeconfig = await api.writeKubeconfig(join(workDir, 'admin.kubeconfig'), { user: 'admin' });
});

after(async () => {
  await kubelet?.stop();
  await api?.stop();
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

const csrCreates = () => api.requestCount()['create certificatesigningrequests.certificates.k8s.io'] ?? 0;

test('a certificate renewed before it expires; after the first one expired, the lease and pod statuses still reach the API server', async () => {
  const bootstrapKubeconfig = await api.writeKubeconfig(join(workDir, 'bootstrap-kubelet.conf'), { user: 'kubelet', nodeName: NODE, token: BOOTSTRAP_TOKEN });
  const certDir = join(workDir, 'pki');
  kubelet = await startKubelet({
    runtimeEndpoint: sim.endpoint,
    workers: 1,
    nodeName: NODE,
    workDir,
    extraArgs: [`--bootstrap-kubeconfig=${bootstrapKubeconfig}`, `--kubeconfig=${join(workDir, 'kubelet.conf')}`, `--cert-dir=${certDir}`, '--rotate-certificates'],
  });
  await waitUntil(async () => (api.requestCount()['create nodes'] ?? 0) >= 1, 60_000, 'the node registered');
  const first = new X509Certificate(readFileSync(join(certDir, 'kubelet-client-current.pem')));
  await waitUntil(async () => kubelet.logs.some((line) => line.msg === 'certificate rotated'), LIFETIME_MS * 2, 'the certificate rotated');
  assert.equal(csrCreates(), 2, 'one CSR at bootstrap, one for the renewal');
  const second = new X509Certificate(readFileSync(join(certDir, 'kubelet-client-current.pem')));
  assert.notEqual(second.serialNumber, first.serialNumber);

  // Past the first certificate's end: anything still using it would be refused now.
  const expiredAtMs = new Date(first.validTo).getTime();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiredAtMs - Date.now()) + 2_000));
  const leaseBefore = JSON.parse(await kubectl('get', 'lease', NODE, '-n', 'kube-node-lease', '-o', 'json')).spec.renewTime as string;
  writeFileSync(join(workDir, 'late.yaml'), stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'after-expiry', namespace: 'default' }, spec: { nodeName: NODE, containers: [{ name: 'main', image: 'busybox:1.35', command: ['sleep', '3600'] }] } }));
  await kubectl('apply', '-f', join(workDir, 'late.yaml'));
  await waitUntil(async () => {
    const pod = JSON.parse(await kubectl('get', 'pod', 'after-expiry', '-o', 'json')) as Pod;
    return pod.status?.phase === 'Running';
  }, 60_000, 'the pod created after the first certificate expired reported Running');
  await waitUntil(async () => JSON.parse(await kubectl('get', 'lease', NODE, '-n', 'kube-node-lease', '-o', 'json')).spec.renewTime !== leaseBefore, 60_000, 'the Lease renewed with the new certificate');
  assert.equal(kubelet.logs.filter((line) => typeof line.msg === 'string' && /certificate has expired|Unauthorized/i.test(line.msg as string)).length, 0, 'no request refused');
});

testNoRefusals(() => [api]);
