// The kubelet's API clients share connections: requests one after another reuse a
// TLS connection (client-node alone opens one per request), a new client
// certificate (rotation) is used at once, and a watch shaped as a reflector's asks
// the server to end it and to send bookmarks.
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadKubeClients } from '../../../../src/main/cluster/apiclient/kube-client.js';
import { MIN_WATCH_TIMEOUT_SECONDS, ReflectorWatch } from '../../../../src/main/cluster/apiclient/reflector-watch.js';
import { startTestApiServer, type TestApiServer } from '../../../../src/testapiserver/server.js';

let workDir: string;
let api: TestApiServer;
let connections = 0;
const onConnected = (): void => {
  connections++;
};

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-shared-dispatcher-'));
  // About connections, not authorization: the nodes here read objects no pod of theirs references.
  api = await startTestApiServer({ enforce: false });
  diagnosticsChannel.subscribe('undici:client:connected', onConnected);
});

after(async () => {
  diagnosticsChannel.unsubscribe('undici:client:connected', onConnected);
  await api?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

test('requests one after another share a connection', async () => {
  const clients = loadKubeClients(await api.writeKubeconfig(join(workDir, 'a.kubeconfig'), { user: 'kubelet', nodeName: 'node-a' }), 5, 10);
  connections = 0;
  for (let i = 0; i < 10; i++) await clients.core.listNamespacedSecret({ namespace: 'default', fieldSelector: 'metadata.name=x' });
  await clients.core.readNamespace({ name: 'default' });
  // undici 8 opens a second connection after the first one's TLS 1.3 handshake, then keeps it;
  // client-node alone opens one per request (11 here).
  assert.ok(connections <= 2, `${connections} connections for 11 requests`);
});

test('a rotated client certificate is used from the next request on', async () => {
  const kubeconfig = join(workDir, 'rotating.kubeconfig');
  await api.writeKubeconfig(kubeconfig, { user: 'kubelet', nodeName: 'node-b' });
  const clients = loadKubeClients(kubeconfig, 5, 10);
  api.clearRequestLog();
  await clients.core.readNamespace({ name: 'default' });
  // As a rotation: the kubeconfig now names another certificate (here of another identity, to tell them apart).
  await api.writeKubeconfig(kubeconfig, { user: 'kubelet', nodeName: 'node-b2' });
  clients.config.loadFromFile(kubeconfig);
  await clients.core.readNamespace({ name: 'default' });
  await clients.core.readNamespace({ name: 'default' });
  assert.deepEqual(api.requestLog().map((r) => r.user), ['system:node:node-b', 'system:node:node-b2', 'system:node:node-b2']);
});

test('a reflector watch asks for a timeout of 5 to 10 minutes and for bookmarks', async () => {
  const clients = loadKubeClients(await api.writeKubeconfig(join(workDir, 'c.kubeconfig'), { user: 'kubelet', nodeName: 'node-c' }), 5, 10);
  api.clearRequestLog();
  for (const draw of [0, 0.999]) {
    const watch = new ReflectorWatch(clients.config, () => draw);
    let received = false;
    const controller = await watch.watch('/api/v1/namespaces/default/configmaps', { fieldSelector: 'metadata.name=kube-root-ca.crt' }, (phase) => {
      if (phase === 'ADDED') received = true;
    }, () => {});
    const deadline = Date.now() + 10_000;
    while (!received && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    assert.ok(received, 'the watch streamed the object');
  }
  const watches = api.requestLog().filter((r) => r.verb === 'watch');
  assert.deepEqual(
    watches.map((r) => [r.timeoutSeconds, r.allowWatchBookmarks, r.fieldSelector]),
    [
      [String(MIN_WATCH_TIMEOUT_SECONDS), true, 'metadata.name=kube-root-ca.crt'],
      [String(2 * MIN_WATCH_TIMEOUT_SECONDS - 1), true, 'metadata.name=kube-root-ca.crt'],
    ],
  );
});
