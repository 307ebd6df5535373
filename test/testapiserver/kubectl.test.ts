// The proof that the test API server behaves like kube-apiserver for the real
// client: kubectl 1.32, always with an explicit --kubeconfig written by the server.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { eventually, startHarness, type Harness } from './harness.js';

const run = promisify(execFile);

const POD_YAML = `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
spec:
  containers:
  - name: web
    image: busybox:1.36
    command: ["sleep", "3600"]
`;

const NODE = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1', 'node-role.kubernetes.io/worker': '' } },
  status: {
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
    addresses: [{ type: 'InternalIP', address: '192.168.10.5' }, { type: 'Hostname', address: 'node-1' }],
    nodeInfo: { kubeletVersion: 'v1.32.0-shardlet', osImage: 'Debian GNU/Linux 12', kernelVersion: '6.1.0', containerRuntimeVersion: 'sim://0.1.0' },
  },
};

describe('kubectl against the test apiserver', () => {
  let h: Harness;
  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await run('kubectl', ['--kubeconfig', h.adminKubeconfig, ...args], { timeout: 30_000 });
    return stdout;
  };

  before(async () => {
    h = await startHarness({ defaultNodeName: 'node-1' });
  });
  after(() => h.close());

  it('gets nodes with their status and addresses', async () => {
    assert.equal((await h.request('POST', '/api/v1/nodes', { body: NODE })).status, 201);
    const out = await kubectl('get', 'nodes', '-o', 'wide');
    assert.match(out, /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP/m);
    assert.match(out, /^node-1\s+Ready\s+worker\s+\S+\s+v1\.32\.0-shardlet\s+192\.168\.10\.5\s/m);
  });

  it('applies a pod, which lands on the default node', async () => {
    const file = path.join(h.dir, 'pod.yaml');
    await writeFile(file, POD_YAML);
    assert.match(await kubectl('apply', '-f', file), /pod\/web created/);
    const out = await kubectl('get', 'pods', '-o', 'wide');
    assert.match(out, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE/m);
    assert.match(out, /^web\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+node-1\s/m);
    // Applying a changed manifest sends a strategic merge patch.
    await writeFile(file, POD_YAML.replace('app: web', 'app: web\n    tier: frontend'));
    assert.match(await kubectl('apply', '-f', file), /pod\/web configured/);
    assert.match(await kubectl('get', 'pod', 'web', '--show-labels'), /app=web,tier=frontend/);
  });

  it('watches a pod go Running with an IP (get -w)', async () => {
    const child = spawn('kubectl', ['--kubeconfig', h.adminKubeconfig, 'get', 'pods', '-o', 'wide', '-w'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await eventually(() => /^web\s+0\/1\s+Pending/m.test(output));
      const status = {
        phase: 'Running',
        podIP: '10.88.0.12',
        podIPs: [{ ip: '10.88.0.12' }],
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [{ name: 'web', ready: true, started: true, restartCount: 0, image: 'busybox:1.36', imageID: '', state: { running: { startedAt: new Date().toISOString() } } }],
      };
      const patched = await h.request('PATCH', '/api/v1/namespaces/default/pods/web/status', { body: { status }, contentType: 'application/strategic-merge-patch+json' });
      assert.equal(patched.status, 200);
      await eventually(() => /^web\s+1\/1\s+Running\s+0\s+\S+\s+10\.88\.0\.12\s+node-1/m.test(output));
    } finally {
      child.kill();
    }
  });

  it('describes the pod, with its events', async () => {
    const pod = (await h.request('GET', '/api/v1/namespaces/default/pods/web')).body;
    const event = {
      metadata: { generateName: 'web.' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'web', uid: pod.metadata.uid, apiVersion: 'v1', fieldPath: 'spec.containers{web}' },
      reason: 'Pulled', message: 'Container image "busybox:1.36" already present on machine', type: 'Normal', count: 1,
      source: { component: 'kubelet', host: 'node-1' }, firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    assert.equal((await h.request('POST', '/api/v1/namespaces/default/events', { body: event })).status, 201);
    const out = await kubectl('describe', 'pod', 'web');
    assert.match(out, /Normal\s+Pulled\s+\S+\s+kubelet\s+Container image "busybox:1\.36" already present on machine/);
    assert.match(out, /^Name:\s+web$/m);
    assert.match(out, /^Node:\s+node-1/m);
    assert.match(out, /^Status:\s+Running$/m);
    assert.match(out, /^IP:\s+10\.88\.0\.12$/m);
    assert.match(out, /^QoS Class:\s+BestEffort$/m);
  });

  it('deletes gracefully, then forcibly', async () => {
    assert.match(await kubectl('delete', 'pod', 'web', '--wait=false'), /pod "web" deleted/);
    const marked = await h.request('GET', '/api/v1/namespaces/default/pods/web');
    assert.equal(marked.status, 200);
    assert.ok(marked.body.metadata.deletionTimestamp);
    assert.equal(marked.body.metadata.deletionGracePeriodSeconds, 30);
    assert.match(await kubectl('get', 'pods'), /^web\s+1\/1\s+Terminating/m);

    assert.match(await kubectl('delete', 'pod', 'web', '--grace-period=0', '--force'), /pod "web" force deleted/);
    assert.equal((await h.request('GET', '/api/v1/namespaces/default/pods/web')).status, 404);
    const { stderr } = await run('kubectl', ['--kubeconfig', h.adminKubeconfig, 'get', 'pods']);
    assert.match(stderr, /No resources found in default namespace/);
  });
});
