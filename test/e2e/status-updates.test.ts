// Every status change the API server would store reaches it (issue 8, defect 5),
// not only those that change the one-line summary the kubelet logs: here a
// container stays waiting with the same reason (CreateContainerConfigError) while
// its message changes, as an operator fixing a Secret step by step would see it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import type { Pod } from '../../src/shared/types.js';
import { startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { testNoRefusals } from '../helpers/no-refusals.js';

const run = promisify(execFile);
const NODE = 'status-node';
const TIMEOUT_MS = 60_000;

let workDir: string;
let sim: SimRuntime;
let api: TestApiServer;
let kubelet: KubeletProcess;
let adminKubeconfig: string;

async function kubectlApply(object: Record<string, unknown>): Promise<void> {
  const file = join(workDir, `${(object.metadata as { name: string }).name}-${Date.now()}.yaml`);
  writeFileSync(file, stringify(object));
  await run('kubectl', ['--kubeconfig', adminKubeconfig, 'apply', '-f', file], { timeout: 60_000 });
}

async function waitingOf(name: string): Promise<{ reason?: string; message?: string } | undefined> {
  const { stdout } = await run('kubectl', ['--kubeconfig', adminKubeconfig, 'get', 'pod', name, '-o', 'json'], { timeout: 60_000 });
  return (JSON.parse(stdout) as Pod).status?.containerStatuses?.[0]?.state?.waiting;
}

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-status-'));
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  api = await startTestApiServer({ defaultNodeName: NODE });
  adminKubeconfig = await api.writeKubeconfig(join(workDir, 'admin.kubeconfig'), { user: 'admin' });
  const nodeKubeconfig = await api.writeKubeconfig(join(workDir, 'node.kubeconfig'), { user: 'kubelet', nodeName: NODE });
  kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 2, nodeName: NODE, workDir, extraArgs: [`--kubeconfig=${nodeKubeconfig}`] });
});

after(async () => {
  await run('kubectl', ['--kubeconfig', adminKubeconfig, 'delete', 'pod', '--all', '--wait=false']).catch(() => undefined);
  await waitUntil(async () => (await kubelet.pods()).length === 0, TIMEOUT_MS, 'pods removed').catch(() => undefined);
  await kubelet?.stop();
  await api?.stop();
  await sim?.close();
});

test('a new waiting message under the same reason reaches the API server', async () => {
  await kubectlApply({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'needs-password', namespace: 'default' },
    spec: {
      containers: [
        { name: 'main', image: 'busybox:1.35', command: ['sleep', '3600'], env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }] },
      ],
    },
  });
  const first = await waitUntil(async () => {
    const waiting = await waitingOf('needs-password');
    return waiting?.reason === 'CreateContainerConfigError' ? waiting : false;
  }, TIMEOUT_MS, 'CreateContainerConfigError');
  assert.equal(first.message, 'secret "db" not found');
  // The Secret appears, without the key the pod needs: same reason, new message.
  await kubectlApply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'default' }, data: { user: Buffer.from('app').toString('base64') } });
  const second = await waitUntil(async () => {
    const waiting = await waitingOf('needs-password');
    return waiting?.message !== first.message ? waiting : false;
  }, TIMEOUT_MS, 'the new message on the API server');
  assert.deepEqual(second, { reason: 'CreateContainerConfigError', message: "couldn't find key password in Secret default/db" });
});

testNoRefusals(() => [api]);
