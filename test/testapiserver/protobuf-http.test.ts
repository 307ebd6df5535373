// The test API server speaking Kubernetes protobuf over HTTP as kube-apiserver
// does: protobuf bodies decoded for every kind (kubectl's own captured bytes),
// refused with upstream's 400s when they are not the resource's kind or not
// protobuf at all; answers, lists, errors, discovery and watch streams in
// protobuf when the Accept header prefers it; Tables still JSON.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { projectProtoPath } from '../../src/shared/project-path.js';
import { PROTOBUF_MAGIC, readEnvelope } from '../../src/testapiserver/protobuf/envelope.js';
import { decodeEnveloped, encodeEnveloped } from '../../src/testapiserver/protobuf/object-codec.js';
import { kubeSchema } from '../../src/testapiserver/protobuf/schema.js';
import { decodeMessage } from '../../src/testapiserver/protobuf/decode.js';
import { eventually, startHarness, type Harness } from './harness.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const CLIENT_GO_ACCEPT = `${PROTOBUF},application/json`;
const FIXTURES = projectProtoPath(path.join('test', 'fixtures', 'kubectl-protobuf'));

interface RawAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

describe('protobuf over HTTP', () => {
  let h: Harness;
  let raw: (method: string, urlPath: string, options?: { body?: Buffer | string; contentType?: string; accept?: string }) => Promise<RawAnswer>;

  before(async () => {
    h = await startHarness({ defaultNodeName: 'node-1' });
    const admin = await h.server.clientCredentials({ user: 'admin' });
    raw = (method, urlPath, options = {}) =>
      new Promise((resolve, reject) => {
        const headers: Record<string, string> = { Accept: options.accept ?? CLIENT_GO_ACCEPT };
        if (options.body !== undefined) {
          headers['Content-Type'] = options.contentType ?? PROTOBUF;
          // Node sends a DELETE's body unframed unless told its length.
          headers['Content-Length'] = String(Buffer.byteLength(options.body));
        }
        const req = https.request(new URL(urlPath, h.server.url), { method, headers, agent: false, ca: admin.caPem, cert: admin.certPem, key: admin.keyPem }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
        });
        req.on('error', reject);
        req.end(options.body);
      });
  });
  after(() => h.close());

  it('creates a Secret from kubectl\'s bytes and answers in protobuf; JSON clients read the same object', async () => {
    const created = await raw('POST', '/api/v1/namespaces/default/secrets', { body: readFileSync(path.join(FIXTURES, 'create-secret.pb')) });
    assert.equal(created.status, 201, created.body.toString());
    assert.equal(created.contentType, PROTOBUF);
    const answer = decodeEnveloped(created.body) as { metadata: { uid?: string; creationTimestamp?: string }; data: Record<string, string>; type: string };
    assert.ok(answer.metadata.uid);
    assert.match(answer.metadata.creationTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const stored = (await h.request('GET', '/api/v1/namespaces/default/secrets/s1')).body;
    assert.deepEqual(stored.data, { blob: 'AP/+gAprOHMA', empty: '', username: 'YWRtaW4=' });
    assert.equal(stored.type, 'example.com/basic');
    assert.deepEqual(answer.data, stored.data);
  });

  it('refuses a ConfigMap sent to secrets, as the create handler\'s conversion does', async () => {
    const answer = await raw('POST', '/api/v1/namespaces/default/secrets', { body: readFileSync(path.join(FIXTURES, 'create-configmap.pb')) });
    assert.equal(answer.status, 400);
    const status = decodeEnveloped(answer.body) as { reason: string; message: string; code: number };
    assert.equal(status.reason, 'BadRequest');
    assert.equal(status.code, 400);
    assert.equal(status.message, 'ConfigMap in version "v1" cannot be handled as a Secret: converting (v1.ConfigMap) to (core.Secret): unknown conversion');
  });

  it('refuses a body without the k8s envelope, showing its first bytes as upstream does', async () => {
    const answer = await raw('POST', '/api/v1/namespaces/default/configmaps', { body: 'hello', accept: 'application/json' });
    assert.equal(answer.status, 400);
    assert.equal(JSON.parse(answer.body.toString()).message, 'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (68656c6c6f)');
  });

  it('refuses a kind the scheme does not have, and a cut body', async () => {
    const foo = encodeEnveloped({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    const renamed = Buffer.from(foo.toString('latin1').replace('ConfigMap', 'ConfigMop'), 'latin1');
    const unknown = await raw('POST', '/api/v1/namespaces/default/configmaps', { body: renamed, accept: 'application/json' });
    assert.equal(unknown.status, 400);
    assert.equal(JSON.parse(unknown.body.toString()).message, 'ConfigMop in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMop" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"');
    const cut = await raw('POST', '/api/v1/namespaces/default/configmaps', { body: foo.subarray(0, foo.length - 12), accept: 'application/json' });
    assert.equal(cut.status, 400);
    assert.match(JSON.parse(cut.body.toString()).message, /^the object provided is unrecognized \(must be of type ConfigMap\): unexpected EOF \(6b387300/);
  });

  it('takes the resource\'s kind when the envelope names none (copyKindDefaults)', async () => {
    const schema = kubeSchema().get('k8s.io.api.core.v1.ConfigMap');
    const { raw: message } = readEnvelope(encodeEnveloped({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'untyped' }, data: { a: 'b' } }));
    const body = Buffer.concat([PROTOBUF_MAGIC, Buffer.from([0x12, message.length]), message]);
    const created = await raw('POST', '/api/v1/namespaces/default/configmaps', { body });
    assert.equal(created.status, 201, created.body.toString());
    assert.deepEqual(decodeMessage(schema, readEnvelope(created.body).raw, () => undefined).data, { a: 'b' });
  });

  it('answers a missing object with a protobuf Status', async () => {
    const answer = await raw('GET', '/api/v1/namespaces/default/secrets/nope');
    assert.equal(answer.status, 404);
    assert.equal(answer.contentType, PROTOBUF);
    assert.deepEqual(decodeEnveloped(answer.body), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'secrets "nope" not found', reason: 'NotFound',
      details: { name: 'nope', kind: 'secrets' }, code: 404,
    });
  });

  it('lists in protobuf, with the list kind and resourceVersion', async () => {
    const answer = await raw('GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(answer.status, 200);
    const list = decodeEnveloped(answer.body) as { kind: string; apiVersion: string; metadata: { resourceVersion: string }; items: Array<{ metadata: { name: string } }> };
    assert.equal(list.kind, 'ConfigMapList');
    assert.equal(list.apiVersion, 'v1');
    assert.match(list.metadata.resourceVersion, /^\d+$/);
    assert.deepEqual(list.items.map((i) => i.metadata.name).sort(), ['kube-root-ca.crt', 'untyped']);
  });

  it('keeps kubectl\'s Table JSON, and skips a protobuf Table for the next clause', async () => {
    const table = await raw('GET', '/api/v1/namespaces/default/configmaps', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    assert.equal(table.contentType, 'application/json');
    assert.equal(JSON.parse(table.body.toString()).kind, 'Table');
    const list = await raw('GET', '/api/v1/namespaces/default/configmaps', { accept: `${PROTOBUF};as=Table;v=v1;g=meta.k8s.io,${PROTOBUF}` });
    assert.equal(list.contentType, PROTOBUF);
    assert.equal(decodeEnveloped(list.body).kind, 'ConfigMapList');
  });

  it('serves discovery in protobuf when asked, and /version always as JSON', async () => {
    const resources = decodeEnveloped((await raw('GET', '/api/v1')).body) as { kind: string; groupVersion: string; resources: Array<{ name: string; verbs: string[] }> };
    assert.equal(resources.kind, 'APIResourceList');
    assert.equal(resources.groupVersion, 'v1');
    assert.deepEqual(resources.resources.find((r) => r.name === 'secrets')?.verbs, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    const groups = decodeEnveloped((await raw('GET', '/apis')).body) as { kind: string; groups: Array<{ name: string }> };
    assert.equal(groups.kind, 'APIGroupList');
    assert.ok(groups.groups.some((g) => g.name === 'coordination.k8s.io'));
    const version = await raw('GET', '/version');
    assert.equal(version.contentType, 'application/json');
  });

  it('deletes with a protobuf DeleteOptions whose gracePeriodSeconds is a pointer to 0', async () => {
    await h.request('POST', '/api/v1/namespaces/default/pods', { body: { metadata: { name: 'p0' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } });
    const options = encodeEnveloped({ apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 });
    const answer = await raw('DELETE', '/api/v1/namespaces/default/pods/p0', { body: options, accept: 'application/json' });
    assert.equal(answer.status, 200, answer.body.toString());
    // Bound to node-1, the pod would only be marked for deletion had the zero been lost.
    assert.equal((await h.request('GET', '/api/v1/namespaces/default/pods/p0')).status, 404);
  });

  it('evicts with a protobuf Eviction (policy/v1)', async () => {
    await h.request('POST', '/api/v1/namespaces/default/pods', { body: { metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } });
    const eviction = encodeEnveloped({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p1', namespace: 'default' }, deleteOptions: { gracePeriodSeconds: 0 } });
    const answer = await raw('POST', '/api/v1/namespaces/default/pods/p1/eviction', { body: eviction });
    assert.equal(answer.status, 201, answer.body.toString());
    assert.equal((await h.request('GET', '/api/v1/namespaces/default/pods/p1')).status, 404);
  });

  it('refuses a protobuf patch with 415, as the patch handler does', async () => {
    const answer = await raw('PATCH', '/api/v1/namespaces/default/configmaps/untyped', { body: encodeEnveloped({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'untyped' } }), accept: 'application/json' });
    assert.equal(answer.status, 415);
  });

  it('names the field when a stored object cannot be written as protobuf', async () => {
    assert.equal((await h.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'bad' }, data: { count: 3 } } })).status, 201);
    const answer = await raw('GET', '/api/v1/namespaces/default/configmaps/bad');
    assert.equal(answer.status, 500);
    assert.match((decodeEnveloped(answer.body) as { message: string }).message, /data\["count"\]: expected a string, got number/);
  });

  it('watches in protobuf: length-prefixed WatchEvents whose objects are enveloped', async () => {
    const admin = await h.server.clientCredentials({ user: 'admin' });
    const frames: Array<{ type: string; object: Record<string, unknown> }> = [];
    let contentType = '';
    const eventSchema = kubeSchema().get('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent');
    // A namespace of its own: default holds a ConfigMap with no protobuf form by now.
    assert.equal((await h.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'watched' } } })).status, 201);
    const req = https.request(new URL('/api/v1/namespaces/watched/configmaps?watch=true', h.server.url), {
      headers: { Accept: CLIENT_GO_ACCEPT }, agent: false, ca: admin.caPem, cert: admin.certPem, key: admin.keyPem,
    }, (res) => {
      contentType = String(res.headers['content-type']);
      let pending = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
          const event = pending.subarray(4, 4 + pending.readUInt32BE(0));
          pending = pending.subarray(4 + event.length);
          // The frame itself has no envelope; its object does.
          assert.ok(!event.subarray(0, 4).equals(PROTOBUF_MAGIC));
          const decoded = decodeMessage(eventSchema, event, (enveloped) => decodeEnveloped(enveloped)) as { type: string; object: Record<string, unknown> };
          frames.push(decoded);
        }
      });
    });
    req.end();
    try {
      await eventually(() => frames.length >= 1);
      assert.equal(contentType, `${PROTOBUF};stream=watch`);
      assert.deepEqual(frames.map((f) => [f.type, (f.object.metadata as { name: string }).name]), [['ADDED', 'kube-root-ca.crt']]);
      await h.request('POST', '/api/v1/namespaces/watched/configmaps', { body: { metadata: { name: 'watched' }, data: { k: 'v' } } });
      const added = await eventually(() => frames.find((f) => (f.object.metadata as { name: string }).name === 'watched'));
      assert.equal(added.type, 'ADDED');
      assert.equal(added.object.kind, 'ConfigMap');
      assert.deepEqual(added.object.data, { k: 'v' });
      // A stored object with no protobuf form ends the stream with an ERROR event.
      await h.request('POST', '/api/v1/namespaces/watched/configmaps', { body: { metadata: { name: 'bad-too' }, data: { n: 1 } } });
      const error = await eventually(() => frames.find((f) => f.type === 'ERROR'));
      assert.equal((error.object as { code: number }).code, 500);
    } finally {
      req.destroy();
    }
  });
});
