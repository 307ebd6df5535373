// TLS bootstrap against the test API server over real HTTPS: a bootstrap-token
// kubeconfig and an empty cert dir become an issued client certificate and a
// kubeconfig that authenticates as system:node:<name>; a second start reuses it;
// a short-lived certificate is renewed before it expires; with auto-approval off
// the bootstrap waits until kubectl approves the request.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readlink, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { ClientCertificateRotation, ensureClientCertificate, ensureServingCertificate } from '../../../../src/main/cluster/bootstrap/index.js';
import { bootstrapTokenSecret, type KubeObject } from '../../../../src/testapiserver/index.js';
import { eventually, startHarness, type Harness } from '../../../testapiserver/harness.js';

const run = promisify(execFile);
const logger = pino({ level: 'silent' });
const TOKEN = 'abcdef.0123456789abcdef';
const CSRS = { key: 'certificatesigningrequests.certificates.k8s.io', group: 'certificates.k8s.io', plural: 'certificatesigningrequests' };

interface Node {
  h: Harness;
  bootstrapKubeconfig: string;
  kubeconfig: string;
  certDir: string;
}

async function startCluster(options: Parameters<typeof startHarness>[0] = {}): Promise<Node> {
  const h = await startHarness(options);
  assert.equal((await h.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: bootstrapTokenSecret(TOKEN) })).status, 201);
  const bootstrapKubeconfig = await h.server.writeKubeconfig(path.join(h.dir, 'bootstrap-kubelet.conf'), { user: 'kubelet', token: TOKEN });
  return { h, bootstrapKubeconfig, kubeconfig: path.join(h.dir, 'kubelet.conf'), certDir: await mkdtemp(path.join(tmpdir(), 'shardlet-certdir-')) };
}

function csrs(h: Harness): KubeObject[] {
  return h.server.store.list(CSRS).items;
}

function subjectOf(certPem: string): string {
  return new X509Certificate(certPem).subject.replace(/\n/g, ',');
}

describe('TLS bootstrap', () => {
  let node: Node;
  before(async () => {
    node = await startCluster();
  });
  after(async () => {
    await node.h.close();
    await rm(node.certDir, { recursive: true, force: true });
  });

  it('turns a bootstrap token into a node client certificate and a kubeconfig that authenticates as the node', async () => {
    const outcome = await ensureClientCertificate({ kubeconfigPath: node.kubeconfig, bootstrapKubeconfigPath: node.bootstrapKubeconfig, certDir: node.certDir, nodeName: 'n1', logger });
    assert.equal(outcome.source, 'csr');
    const [csr] = csrs(node.h);
    const spec = csr.spec as { username: string; groups: string[]; signerName: string; usages: string[] };
    assert.equal(spec.username, 'system:bootstrap:abcdef');
    assert.ok(spec.groups.includes('system:bootstrappers'));
    assert.equal(spec.signerName, 'kubernetes.io/kube-apiserver-client-kubelet');
    assert.deepEqual(spec.usages, ['digital signature', 'client auth']);
    const current = path.join(node.certDir, 'kubelet-client-current.pem');
    assert.match(path.basename(await readlink(current)), /^kubelet-client-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}\.pem$/);
    assert.equal(subjectOf(await readFile(current, 'utf8')), 'O=system:nodes,CN=system:node:n1');
    // The kubeconfig works with the new certificate: the node object is created as
    // system:node:n1, and a CSR created through it records that requester.
    const config = new KubeConfig();
    config.loadFromFile(node.kubeconfig);
    assert.equal(config.getCurrentUser()?.certFile, current);
    await config.makeApiClient(CoreV1Api).createNode({ body: { metadata: { name: 'n1' } } });
    assert.ok(node.h.server.store.get({ key: 'nodes', group: '', plural: 'nodes' }, undefined, 'n1'));
  });

  it('reuses the kubeconfig on the next start: no new CSR', async () => {
    const before = csrs(node.h).length;
    const outcome = await ensureClientCertificate({ kubeconfigPath: node.kubeconfig, bootstrapKubeconfigPath: node.bootstrapKubeconfig, certDir: node.certDir, nodeName: 'n1', logger });
    assert.equal(outcome.source, 'kubeconfig');
    assert.equal(csrs(node.h).length, before);
  });

  it('rewrites a lost kubeconfig from the valid certificate in the cert dir, without a CSR', async () => {
    const before = csrs(node.h).length;
    await rm(node.kubeconfig);
    const outcome = await ensureClientCertificate({ kubeconfigPath: node.kubeconfig, bootstrapKubeconfigPath: node.bootstrapKubeconfig, certDir: node.certDir, nodeName: 'n1', logger });
    assert.equal(outcome.source, 'cert-dir');
    assert.equal(csrs(node.h).length, before);
  });
});

describe('client certificate rotation', () => {
  let node: Node;
  before(async () => {
    node = await startCluster({ clusterSigningDurationMs: 10_000 });
  });
  after(async () => {
    await node.h.close();
    await rm(node.certDir, { recursive: true, force: true });
  });

  it('renews a short-lived certificate before it expires, asking as the node itself', async () => {
    const first = await ensureClientCertificate({ kubeconfigPath: node.kubeconfig, bootstrapKubeconfigPath: node.bootstrapKubeconfig, certDir: node.certDir, nodeName: 'n1', logger });
    const firstCert = first.certificate;
    assert.ok(firstCert);
    const rotation = new ClientCertificateRotation({ certDir: node.certDir, kubeconfigPath: node.kubeconfig, bootstrapKubeconfigPath: node.bootstrapKubeconfig, nodeName: 'n1', logger });
    const rotated = new Promise<{ notAfter: Date; at: number }>((resolve) => rotation.once('rotated', (cert) => resolve({ notAfter: cert.notAfter, at: Date.now() })));
    const linkBefore = await readlink(path.join(node.certDir, 'kubelet-client-current.pem'));
    await rotation.start();
    try {
      const renewed = await rotated;
      assert.ok(renewed.at < firstCert.notAfter.getTime(), 'renewed before the old certificate expired');
      assert.ok(renewed.notAfter > firstCert.notAfter);
      assert.notEqual(await readlink(path.join(node.certDir, 'kubelet-client-current.pem')), linkBefore);
      assert.equal(rotation.current()?.notAfter.getTime(), renewed.notAfter.getTime());
      const renewal = csrs(node.h).find((c) => (c.spec as { username: string }).username === 'system:node:n1');
      assert.ok(renewal, 'the renewal CSR was made with the current certificate (selfnodeclient)');
      // The unchanged kubeconfig now presents the new certificate.
      const config = new KubeConfig();
      config.loadFromFile(node.kubeconfig);
      await config.makeApiClient(CoreV1Api).createNode({ body: { metadata: { name: 'n1' } } });
    } finally {
      rotation.stop();
    }
  });
});

describe('TLS bootstrap with auto-approval off', () => {
  let node: Node;
  before(async () => {
    node = await startCluster({ autoApproveCsrs: false });
  });
  after(async () => {
    await node.h.close();
    await rm(node.certDir, { recursive: true, force: true });
  });

  it('waits until kubectl certificate approve, then gets its certificate', async () => {
    const kubectl = async (...args: string[]): Promise<string> => (await run('kubectl', ['--kubeconfig', node.h.adminKubeconfig, ...args], { timeout: 30_000 })).stdout;
    let settled = false;
    const abort = new AbortController();
    const bootstrapping = ensureClientCertificate({ kubeconfigPath: node.kubeconfig, bootstrapKubeconfigPath: node.bootstrapKubeconfig, certDir: node.certDir, nodeName: 'n2', logger, signal: abort.signal });
    bootstrapping.then(() => (settled = true), () => (settled = true));
    try {
      const name = await eventually(() => csrs(node.h)[0]?.metadata.name);
      const pending = await kubectl('get', 'csr');
      assert.match(pending, /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION/m);
      assert.match(pending, new RegExp(`^${name}\\s+\\S+\\s+kubernetes.io/kube-apiserver-client-kubelet\\s+system:bootstrap:abcdef\\s+<none>\\s+Pending`, 'm'));
      assert.equal(settled, false, 'still waiting while the CSR is pending');
      assert.match(await kubectl('certificate', 'approve', name), new RegExp(`certificatesigningrequest.certificates.k8s.io/${name} approved`));
      const outcome = await bootstrapping;
      assert.equal(outcome.source, 'csr');
      assert.match(await kubectl('get', 'csr', name), /Approved,Issued/);
      const approved = (csrs(node.h)[0].status as { conditions: Array<{ type: string; reason: string }> }).conditions;
      assert.deepEqual(approved.map((c) => [c.type, c.reason]), [['Approved', 'KubectlApprove']]);
    } finally {
      abort.abort();
    }
  });
});

describe('serving certificate (serverTLSBootstrap)', () => {
  let node: Node;
  before(async () => {
    node = await startCluster();
  });
  after(async () => {
    await node.h.close();
    await rm(node.certDir, { recursive: true, force: true });
  });

  it('gets a kubelet-serving certificate for the node\'s names and addresses, asked as the node', async () => {
    await ensureClientCertificate({ kubeconfigPath: node.kubeconfig, bootstrapKubeconfigPath: node.bootstrapKubeconfig, certDir: node.certDir, nodeName: 'n3', logger });
    const serving = await ensureServingCertificate({ kubeconfigPath: node.kubeconfig, certDir: node.certDir, nodeName: 'n3', dnsNames: ['n3'], ipAddresses: ['10.0.0.3'], logger });
    const cert = new X509Certificate(serving.certPem);
    assert.equal(cert.subject.replace(/\n/g, ','), 'O=system:nodes,CN=system:node:n3');
    assert.equal(cert.subjectAltName, 'DNS:n3, IP Address:10.0.0.3');
    assert.ok(cert.checkHost('n3'));
    const csr = csrs(node.h).find((c) => (c.spec as { signerName: string }).signerName === 'kubernetes.io/kubelet-serving');
    assert.equal((csr?.spec as { username: string }).username, 'system:node:n3');
    assert.equal(path.basename(serving.file), 'kubelet-server-current.pem');
  });
});
