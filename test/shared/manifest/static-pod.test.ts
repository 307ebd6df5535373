import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCodes, ShardletError } from '../../../src/shared/errors.js';
import { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from '../../../src/shared/labels.js';
import { parsePodManifest } from '../../../src/shared/manifest/parse-manifest.js';
import { defaultImagePullPolicy } from '../../../src/shared/manifest/pod-defaults.js';
import { sortedKeysJson } from '../../../src/shared/canonical-json.js';
import { applyStaticPodDefaults, type StaticPodOrigin } from '../../../src/shared/manifest/static-pod.js';
import type { Pod } from '../../../src/shared/types.js';

const FILE_ORIGIN: StaticPodOrigin = { source: 'file', location: '/etc/kubernetes/manifests/web.yaml', nodeName: 'Node-1' };

function webPod(image = 'nginx:1.25'): Pod {
  return parsePodManifest(
    `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: { app: web }
spec:
  containers:
    - name: web
      image: ${image}
      resources: { limits: { cpu: 500m, memory: 64Mi } }
      livenessProbe: { httpGet: { port: 80 } }
      ports: [{ containerPort: 80 }]
`,
    'web.yaml',
  );
}

test('naming, namespace, node and annotations follow upstream applyDefaults', () => {
  const pod = applyStaticPodDefaults(webPod(), FILE_ORIGIN);
  assert.equal(pod.metadata?.name, 'web-node-1');
  assert.equal(pod.metadata?.namespace, 'default');
  assert.equal(pod.spec?.nodeName, 'Node-1');
  assert.match(pod.metadata?.uid ?? '', /^[0-9a-f]{32}$/);
  assert.equal(pod.metadata?.annotations?.[CONFIG_HASH_ANNOTATION], pod.metadata?.uid);
  assert.equal(pod.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION], 'file');
  assert.equal(pod.status?.phase, 'Pending');
  const kept = applyStaticPodDefaults({ ...webPod(), metadata: { name: 'web', namespace: 'kube-system', uid: 'given-uid' } }, FILE_ORIGIN);
  assert.equal(kept.metadata?.uid, 'given-uid', 'an explicit uid is kept');
  assert.equal(kept.metadata?.annotations?.[CONFIG_HASH_ANNOTATION], 'given-uid');
  assert.equal(kept.metadata?.namespace, 'kube-system');
});

test('API defaults are applied', () => {
  const pod = applyStaticPodDefaults(webPod(), FILE_ORIGIN);
  const spec = pod.spec!;
  const container = spec.containers[0]!;
  assert.equal(spec.restartPolicy, 'Always');
  assert.equal(spec.dnsPolicy, 'ClusterFirst');
  assert.equal(spec.terminationGracePeriodSeconds, 30);
  assert.equal(spec.schedulerName, 'default-scheduler');
  assert.equal(spec.enableServiceLinks, true);
  assert.equal(container.imagePullPolicy, 'IfNotPresent');
  assert.equal(container.terminationMessagePath, '/dev/termination-log');
  assert.equal(container.terminationMessagePolicy, 'File');
  assert.equal(container.ports?.[0]?.protocol, 'TCP');
  assert.deepEqual(container.resources?.requests, { cpu: '500m', memory: '64Mi' }, 'requests default to limits');
  assert.deepEqual(container.livenessProbe, { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
});

test('image pull policy defaults by tag', () => {
  const cases: Array<[string, string]> = [
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['nginx:1.25', 'IfNotPresent'],
    ['localhost:5000/busybox', 'Always'],
    ['localhost:5000/busybox:1.36', 'IfNotPresent'],
    ['registry.local/pause@sha256:3c20534a', 'IfNotPresent'],
  ];
  for (const [image, want] of cases) assert.equal(defaultImagePullPolicy(image), want, image);
  const pod = applyStaticPodDefaults(webPod('busybox'), FILE_ORIGIN);
  assert.equal(pod.spec?.containers[0]?.imagePullPolicy, 'Always');
});

test('file pods tolerate every NoExecute taint; URL pods do not get the toleration, as upstream', () => {
  const fromFile = applyStaticPodDefaults(webPod(), FILE_ORIGIN);
  assert.deepEqual(fromFile.spec?.tolerations, [{ operator: 'Exists', effect: 'NoExecute' }]);
  const again = applyStaticPodDefaults(fromFile, FILE_ORIGIN);
  assert.equal(again.spec?.tolerations?.length, 1, 'the toleration is not added twice');
  const fromUrl = applyStaticPodDefaults(webPod(), { source: 'http', location: 'http://cfg/pods', nodeName: 'node-1' });
  assert.equal(fromUrl.spec?.tolerations, undefined);
  assert.equal(fromUrl.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION], 'http');
});

test('the UID is stable for the same manifest and changes with content, file, node or URL', () => {
  const uid = (pod: Pod, origin: StaticPodOrigin = FILE_ORIGIN) => applyStaticPodDefaults(pod, origin).metadata!.uid;
  const base = uid(webPod());
  assert.equal(uid(webPod()), base, 'same content, same file');
  // Key order in the manifest does not matter.
  const reordered = JSON.parse(sortedKeysJson(webPod())) as Pod;
  assert.equal(uid({ spec: reordered.spec, metadata: reordered.metadata, kind: 'Pod', apiVersion: 'v1' }), base);
  const distinct = new Set([
    base,
    uid(webPod('nginx:1.26')),
    uid(webPod(), { ...FILE_ORIGIN, location: '/etc/kubernetes/manifests/web2.yaml' }),
    uid(webPod(), { ...FILE_ORIGIN, nodeName: 'node-2' }),
    uid(webPod(), { source: 'http', location: 'http://cfg/pods', nodeName: 'Node-1' }),
    uid(webPod(), { source: 'http', location: 'http://cfg/other', nodeName: 'Node-1' }),
  ]);
  assert.equal(distinct.size, 6);
  assert.equal(webPod().metadata?.uid, undefined, 'the input pod is not modified');
});

test('a known manifest keeps its UID (pinned: a change here renames every static pod on upgrade)', () => {
  assert.equal(applyStaticPodDefaults(webPod(), FILE_ORIGIN).metadata?.uid, '44c2f86b3a996976f0097b569d9685ed');
  const fromUrl = applyStaticPodDefaults(webPod(), { source: 'http', location: 'http://cfg/pods', nodeName: 'Node-1' });
  assert.equal(fromUrl.metadata?.uid, '40720a5d7c523e5c8c5a1a18a3333fa7');
});

test('a name too long once suffixed is refused', () => {
  const pod = webPod();
  pod.metadata!.name = 'a'.repeat(250);
  assert.throws(
    () => applyStaticPodDefaults(pod, FILE_ORIGIN),
    (err: unknown) => err instanceof ShardletError && err.code === ErrorCodes.MANIFEST_INVALID && err.message.includes('metadata.name'),
  );
});
