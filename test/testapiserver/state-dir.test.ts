// --state-dir: the test API server stopped and started again with the same
// directory comes back as a control plane does: same port and CA (kubeconfigs
// written before still work), same objects and UIDs, resourceVersions that go on.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { startTestApiServer } from '../../src/testapiserver/index.js';

const run = promisify(execFile);

test('a server started again on its state dir keeps its port, CA, objects and resourceVersions', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'shardlet-apiserver-state-'));
  const stateDir = path.join(dir, 'state');
  const first = await startTestApiServer({ stateDir });
  const kubeconfig = await first.writeKubeconfig(path.join(dir, 'admin.kubeconfig'), { user: 'admin' });
  const kubectl = async (...args: string[]) => (await run('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000 })).stdout;
  writeFileSync(path.join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\n  namespace: default\ndata:\n  a: "1"\n');
  await kubectl('apply', '-f', path.join(dir, 'cm.yaml'));
  const before = JSON.parse(await kubectl('get', 'configmap', 'kept', '-o', 'json'));
  await first.stop();

  const second = await startTestApiServer({ stateDir });
  try {
    assert.equal(second.port, first.port, 'same port');
    const after = JSON.parse(await kubectl('get', 'configmap', 'kept', '-o', 'json'));
    assert.equal(after.metadata.uid, before.metadata.uid, 'same object, through the kubeconfig written before the restart');
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
    await kubectl('label', 'configmap', 'kept', 'changed=yes');
    const changed = JSON.parse(await kubectl('get', 'configmap', 'kept', '-o', 'json'));
    assert.ok(Number(changed.metadata.resourceVersion) > Number(before.metadata.resourceVersion), 'resourceVersions go on');
    assert.match(await kubectl('get', 'namespaces'), /kube-node-lease/, 'seeded once, kept');
  } finally {
    await second.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
