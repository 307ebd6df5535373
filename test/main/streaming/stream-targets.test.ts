// Which container an exec, attach or run reaches: always one of the pod the path
// names by namespace and name. A UID in the path that belongs to another pod is
// refused (it once redirected exec and run to that other pod); the pod's own UID,
// or its mirror pod's, is accepted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attachUrl, execUrl, findContainer, type StreamingHost } from '../../../src/main/streaming/stream-targets.js';
import type { StreamTarget } from '../../../src/main/streaming/stream-request.js';
import type { CriClient } from '../../../src/shared/cri/client.js';
import { CONTAINER_NAME_LABEL, POD_UID_LABEL } from '../../../src/shared/labels.js';
import type { Pod } from '../../../src/shared/types.js';

const pod = (name: string, uid: string): Pod => ({ metadata: { name, namespace: 'default', uid }, spec: { containers: [{ name: 'main', image: 'busybox' }] } }) as Pod;
const WEB = pod('web', 'uid-web');
const DB = pod('db', 'uid-db');
/** The API server's mirror pod of the static pod `web`. */
const WEB_MIRROR = pod('web', 'uid-web-mirror');

/** A runtime that runs container `main` in every pod and records whose containers were asked for and used. */
function host(): StreamingHost & { listedUids: string[]; usedContainers: string[] } {
  const listedUids: string[] = [];
  const usedContainers: string[] = [];
  const cri = {
    listContainers: async (req: { filter?: { label_selector?: Record<string, string> } }) => {
      const selector = req.filter?.label_selector ?? {};
      listedUids.push(selector[POD_UID_LABEL] ?? '');
      return { containers: [{ id: `ctr-${selector[POD_UID_LABEL]}-${selector[CONTAINER_NAME_LABEL]}`, created_at: '1' }] };
    },
    exec: async (req: { container_id: string }) => (usedContainers.push(req.container_id), { url: `http://runtime/exec/${req.container_id}` }),
    attach: async (req: { container_id: string }) => (usedContainers.push(req.container_id), { url: `http://runtime/attach/${req.container_id}` }),
  } as unknown as CriClient;
  return { listedUids, usedContainers, pods: () => [WEB, DB], mirrorPods: () => [WEB_MIRROR], cri: () => cri };
}

const target = (kind: StreamTarget['kind'], podUid: string): StreamTarget => ({ kind, namespace: 'default', podName: 'web', podUid, containerName: 'main' });
const OPTIONS = { stdin: false, stdout: true, stderr: false, tty: false };

test('exec with the UID of another pod in the path: refused, and that pod\'s containers are never looked up', async () => {
  const streaming = host();
  assert.deepEqual(await execUrl(streaming, WEB, target('exec', 'uid-db'), OPTIONS, ['id']), { statusCode: 500, message: 'pod web_default not found' });
  assert.deepEqual(streaming.listedUids, []);
  assert.deepEqual(streaming.usedContainers, []);
});

test('run (findContainer) and attach refuse another pod\'s UID the same way', async () => {
  const streaming = host();
  assert.deepEqual(await findContainer(streaming, WEB, target('run', 'uid-db')), { statusCode: 500, message: 'pod web_default not found' });
  assert.deepEqual(await attachUrl(streaming, WEB, target('attach', 'uid-db'), OPTIONS), { statusCode: 500, message: 'pod web_default not found' });
  assert.deepEqual(streaming.usedContainers, []);
});

test('the pod\'s own UID, its mirror pod\'s UID, or none: the named pod\'s container', async () => {
  for (const uid of ['uid-web', 'uid-web-mirror', '']) {
    const streaming = host();
    assert.deepEqual(await execUrl(streaming, WEB, target('exec', uid), OPTIONS, ['id']), { url: 'http://runtime/exec/ctr-uid-web-main' }, uid);
    assert.deepEqual(streaming.listedUids, ['uid-web']);
  }
});
