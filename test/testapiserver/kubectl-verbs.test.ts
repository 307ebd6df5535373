// Everyday kubectl 1.32 verbs against the test API server, unchanged: the typed
// `create` commands send protobuf (kube-apiserver takes it for every built-in
// type), apply/patch/edit send JSON patches, get/delete read and answer as the
// client negotiates. Each case checks what the server stored.
//
// `create deployment`, `create rolebinding` and `auth can-i` need resources the
// authorization work serves (deployments.apps, rolebindings.rbac.authorization.k8s.io,
// selfsubjectaccessreviews.authorization.k8s.io); each is skipped, naming the
// missing resource, until discovery lists it.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it, type TestContext } from 'node:test';
import { eventually, startHarness, type Harness } from './harness.js';

const run = promisify(execFile);
/** Not UTF-8, and the protobuf magic inside, so only a bytes field carries it whole. */
const BINARY = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a, 0x6b, 0x38, 0x73, 0x00]);

describe('kubectl verbs over protobuf and JSON', () => {
  let h: Harness;
  let binaryFile: string;
  const kubectl = async (args: string[], env: Record<string, string> = {}): Promise<string> => {
    const { stdout } = await run('kubectl', ['--kubeconfig', h.adminKubeconfig, ...args], { timeout: 30_000, env: { ...process.env, ...env } });
    return stdout;
  };
  const get = async (urlPath: string): Promise<any> => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const answer = await h.request('GET', urlPath);
    assert.equal(answer.status, 200, `${urlPath}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  /** Skips the test unless discovery lists the resource, naming it. */
  const requireServed = async (t: TestContext, groupVersionPath: string, plural: string): Promise<boolean> => {
    const answer = await h.request('GET', groupVersionPath);
    const served = answer.status === 200 && (answer.body.resources as Array<{ name: string }>).some((r) => r.name === plural);
    if (!served) t.skip(`${plural} (${groupVersionPath}) is not served: it comes with the authorization branch`);
    return served;
  };

  before(async () => {
    h = await startHarness({ defaultNodeName: 'node-1' });
    binaryFile = path.join(h.dir, 'blob.bin');
    await writeFile(binaryFile, BINARY);
  });
  after(() => h.close());

  it('discovery: kubectl reads one aggregated document for all groups, as from kube-apiserver', async () => {
    const { stdout, stderr } = await run('kubectl', ['--kubeconfig', h.adminKubeconfig, '--cache-dir', path.join(h.dir, 'discovery-cache'), 'api-resources', '-v=6'], { timeout: 30_000 });
    assert.match(stdout, /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
    assert.match(stdout, /^pods\s+po\s+v1\s+true\s+Pod$/m);
    const fetched = [...stderr.matchAll(/GET https:\/\/[^/]+(\/[^?\s]*)/g)].map((m) => m[1]);
    assert.deepEqual(fetched, ['/api', '/apis']);
  });

  it('create secret generic: literal and binary data stored as base64', async () => {
    assert.match(await kubectl(['create', 'secret', 'generic', 's1', '--from-literal=password=s3cr3t', `--from-file=blob=${binaryFile}`]), /^secret\/s1 created$/m);
    const secret = await get('/api/v1/namespaces/default/secrets/s1');
    assert.deepEqual(secret.data, { blob: BINARY.toString('base64'), password: Buffer.from('s3cr3t').toString('base64') });
    assert.equal(secret.type, 'Opaque');
    assert.ok(secret.metadata.uid);
  });

  it('create configmap: UTF-8 files go to data, others to binaryData', async () => {
    assert.match(await kubectl(['create', 'configmap', 'c1', '--from-literal=mode=fast', `--from-file=blob=${binaryFile}`]), /^configmap\/c1 created$/m);
    const configMap = await get('/api/v1/namespaces/default/configmaps/c1');
    assert.deepEqual(configMap.data, { mode: 'fast' });
    assert.deepEqual(configMap.binaryData, { blob: BINARY.toString('base64') });
  });

  it('create namespace, serviceaccount and token', async () => {
    assert.match(await kubectl(['create', 'namespace', 'team-a']), /^namespace\/team-a created$/m);
    assert.match(await kubectl(['get', 'namespace', 'team-a']), /^team-a\s+Active\s/m);
    assert.deepEqual((await get('/api/v1/namespaces/team-a')).spec, { finalizers: ['kubernetes'] });
    assert.match(await kubectl(['create', 'serviceaccount', 'builder', '-n', 'team-a']), /^serviceaccount\/builder created$/m);
    const token = (await kubectl(['create', 'token', 'builder', '-n', 'team-a', '--duration=1h'])).trim();
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    assert.equal(claims.sub, 'system:serviceaccount:team-a:builder');
  });

  it('get -o yaml shows what was stored', async () => {
    const yaml = await kubectl(['get', 'secret', 's1', '-o', 'yaml']);
    assert.match(yaml, /^ {2}password: czNjcjN0$/m);
    assert.match(yaml, new RegExp(`^  blob: ${BINARY.toString('base64').replace(/[+/]/g, '\\$&')}$`, 'm'));
    assert.match(yaml, /^kind: Secret$/m);
    assert.match(yaml, /^type: Opaque$/m);
  });

  it('apply -f creates, then configures with a patch', async () => {
    const file = path.join(h.dir, 'cm.yaml');
    await writeFile(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c2\ndata:\n  colour: blue\n');
    assert.match(await kubectl(['apply', '-f', file]), /^configmap\/c2 created$/m);
    await writeFile(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c2\ndata:\n  colour: green\n  size: large\n');
    assert.match(await kubectl(['apply', '-f', file]), /^configmap\/c2 configured$/m);
    assert.deepEqual((await get('/api/v1/namespaces/default/configmaps/c2')).data, { colour: 'green', size: 'large' });
  });

  it('patch: strategic, merge and JSON patches', async () => {
    assert.match(await kubectl(['patch', 'configmap', 'c1', '-p', '{"data":{"mode":"slow"}}']), /^configmap\/c1 patched$/m);
    assert.match(await kubectl(['patch', 'configmap', 'c1', '--type=merge', '-p', '{"data":{"extra":"1"}}']), /^configmap\/c1 patched$/m);
    assert.match(await kubectl(['patch', 'configmap', 'c1', '--type=json', '-p', '[{"op":"remove","path":"/data/extra"}]']), /^configmap\/c1 patched$/m);
    assert.deepEqual((await get('/api/v1/namespaces/default/configmaps/c1')).data, { mode: 'slow' });
  });

  it('edit: KUBE_EDITOR changes the file and kubectl sends the difference', async () => {
    const editor = path.join(h.dir, 'editor.sh');
    await writeFile(editor, '#!/bin/sh\nsed -i "s/mode: slow/mode: edited/" "$1"\n');
    await chmod(editor, 0o755);
    assert.match(await kubectl(['edit', 'configmap', 'c1'], { KUBE_EDITOR: editor }), /^configmap\/c1 edited$/m);
    const configMap = await get('/api/v1/namespaces/default/configmaps/c1');
    assert.deepEqual(configMap.data, { mode: 'edited' });
    assert.deepEqual(configMap.binaryData, { blob: BINARY.toString('base64') });
  });

  it('events --watch: client-go lists and watches in protobuf, and reads the frames', async () => {
    const event = (name: string, reason: string): object => ({
      metadata: { name }, involvedObject: { kind: 'Pod', name: 'web', namespace: 'default' }, reason, message: `container ${reason.toLowerCase()}`,
      type: 'Normal', count: 1, source: { component: 'kubelet' }, firstTimestamp: '2024-05-01T10:00:00Z', lastTimestamp: '2024-05-01T10:00:00Z',
    });
    assert.equal((await h.request('POST', '/api/v1/namespaces/default/events', { body: event('e1', 'Pulled') })).status, 201);
    // -v=8 logs the response headers, so the test sees that the stream was protobuf, not JSON.
    const child = spawn('kubectl', ['--kubeconfig', h.adminKubeconfig, 'events', '--watch', '-v=8'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let log = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    try {
      await eventually(() => /Pulled\s+Pod\/web\s+container pulled/.test(output));
      assert.equal((await h.request('POST', '/api/v1/namespaces/default/events', { body: event('e2', 'Started') })).status, 201);
      await eventually(() => /Started\s+Pod\/web\s+container started/.test(output));
      assert.match(log, /GET https:\/\/\S+\/api\/v1\/namespaces\/default\/events\?\S*watch=true/);
      assert.match(log, /Content-Type: application\/vnd\.kubernetes\.protobuf;stream=watch$/m);
    } finally {
      child.kill();
    }
  });

  it('delete', async () => {
    assert.match(await kubectl(['delete', 'secret', 's1']), /^secret "s1" deleted$/m);
    assert.equal((await h.request('GET', '/api/v1/namespaces/default/secrets/s1')).status, 404);
  });

  it('create deployment: the whole pod template arrives', async (t) => {
    if (!(await requireServed(t, '/apis/apps/v1', 'deployments'))) return;
    assert.match(await kubectl(['create', 'deployment', 'web', '--image=busybox:1.36', '--replicas=2', '--port=8080', '--', 'sleep', '3600']), /^deployment\.apps\/web created$/m);
    const deployment = await get('/apis/apps/v1/namespaces/default/deployments/web');
    assert.equal(deployment.spec.replicas, 2);
    assert.deepEqual(deployment.spec.selector, { matchLabels: { app: 'web' } });
    assert.deepEqual(deployment.spec.template.metadata.labels, { app: 'web' });
    assert.deepEqual(deployment.spec.template.spec.containers[0].command, ['sleep', '3600']);
    assert.equal(deployment.spec.template.spec.containers[0].image, 'busybox:1.36');
    assert.deepEqual(deployment.spec.template.spec.containers[0].ports, [{ containerPort: 8080 }]);
    assert.match(await kubectl(['get', 'deployment', 'web', '-o', 'yaml']), /^ {8}image: busybox:1\.36$/m);
  });

  it('create rolebinding: users, groups and service accounts as subjects', async (t) => {
    if (!(await requireServed(t, '/apis/rbac.authorization.k8s.io/v1', 'rolebindings'))) return;
    assert.match(await kubectl(['create', 'rolebinding', 'rb1', '--clusterrole=view', '--user=alice', '--group=devs', '--serviceaccount=default:builder']), /^rolebinding\.rbac\.authorization\.k8s\.io\/rb1 created$/m);
    const binding = await get('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/rb1');
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' });
    assert.deepEqual(binding.subjects, [
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'default' },
    ]);
  });

  it('auth can-i: a SelfSubjectAccessReview answered for the admin', async (t) => {
    if (!(await requireServed(t, '/apis/authorization.k8s.io/v1', 'selfsubjectaccessreviews'))) return;
    assert.equal((await kubectl(['auth', 'can-i', 'create', 'pods'])).trim(), 'yes');
    assert.equal((await kubectl(['auth', 'can-i', 'get', 'nodes', '--subresource=proxy'])).trim(), 'yes');
  });
});
