import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCodes, ShardletError } from '../../../src/shared/errors.js';
import { parseManifest, parsePodManifest } from '../../../src/shared/manifest/parse-manifest.js';

const POD_YAML = `apiVersion: v1
kind: Pod
metadata:
  name: etcd
  namespace: kube-system
spec:
  containers:
    - name: etcd
      image: registry.local/etcd:3.5
`;

function invalid(...mentions: string[]) {
  return (err: unknown) => {
    assert.ok(err instanceof ShardletError, String(err));
    assert.equal(err.code, ErrorCodes.MANIFEST_INVALID);
    for (const text of mentions) assert.ok(err.message.includes(text), `${JSON.stringify(err.message)} mentions ${JSON.stringify(text)}`);
    return true;
  };
}

test('a YAML or JSON Pod parses', () => {
  const fromYaml = parsePodManifest(POD_YAML, '/etc/kubernetes/manifests/etcd.yaml');
  assert.equal(fromYaml.metadata?.name, 'etcd');
  assert.equal(fromYaml.spec?.containers[0]?.image, 'registry.local/etcd:3.5');
  const json = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  assert.equal(parsePodManifest(json, 'web.json').metadata?.name, 'web');
  assert.equal(parsePodManifest(`---\n${POD_YAML}---\n`, 'etcd.yaml').metadata?.name, 'etcd', 'document markers around one pod are fine');
});

test('a PodList parses to its pods, and is refused where one Pod is wanted', () => {
  const list = JSON.stringify({
    apiVersion: 'v1',
    kind: 'PodList',
    items: [
      { metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    ],
  });
  const parsed = parseManifest(list, 'http://cfg/pods');
  assert.equal(parsed.kind, 'PodList');
  assert.deepEqual(parsed.pods.map((pod) => pod.metadata?.name), ['a', 'b']);
  assert.ok(parsed.pods.every((pod) => pod.kind === 'Pod' && pod.apiVersion === 'v1'));
  assert.throws(() => parsePodManifest(list, 'list.yaml'), invalid('list.yaml', 'PodList'));
});

test('invalid manifests are refused with the origin and a reason', () => {
  const pod = (spec: string, metadata = 'metadata:\n  name: web\n') => `apiVersion: v1\nkind: Pod\n${metadata}${spec}`;
  const container = (fields: string) => `spec:\n  containers:\n    - ${fields}\n`;
  const cases: Array<{ text: string; mentions: string }> = [
    { text: 'kind: Pod\n  bad: [indent\n', mentions: 'invalid YAML' },
    { text: '', mentions: 'empty manifest' },
    { text: '- a\n- b\n', mentions: 'not a Kubernetes object' },
    { text: `${POD_YAML}---\n${POD_YAML}`, mentions: '2 YAML documents' },
    { text: POD_YAML.replace('kind: Pod', 'kind: Deployment'), mentions: 'kind: must be "Pod" or "PodList"' },
    { text: POD_YAML.replace('apiVersion: v1', 'apiVersion: apps/v1'), mentions: 'apiVersion: must be "v1"' },
    { text: POD_YAML.replace('name: etcd\n  namespace', 'namespace'), mentions: 'metadata.name: Required value' },
    { text: POD_YAML.replace('name: etcd\n  namespace', 'name: Etcd_1\n  namespace'), mentions: 'metadata.name: Invalid value: "Etcd_1"' },
    { text: POD_YAML.replace('namespace: kube-system', 'namespace: Kube.System'), mentions: 'metadata.namespace: Invalid value' },
    { text: pod('spec: {}\n'), mentions: 'spec.containers: Required value' },
    { text: pod('spec:\n  containers: []\n'), mentions: 'spec.containers: Required value' },
    { text: pod(''), mentions: 'spec: Required value' },
    { text: pod(container('name: c')), mentions: 'spec.containers[0].image: Required value' },
    { text: pod(container('image: busybox')), mentions: 'spec.containers[0].name: Required value' },
    { text: pod(container('name: C_1\n      image: busybox')), mentions: 'spec.containers[0].name: Invalid value' },
    {
      text: pod('spec:\n  containers:\n    - name: c\n      image: a\n    - name: c\n      image: b\n'),
      mentions: 'spec.containers[1].name: Duplicate value: "c"',
    },
    {
      text: pod('spec:\n  initContainers:\n    - name: c\n      image: a\n  containers:\n    - name: c\n      image: b\n'),
      mentions: 'spec.containers[0].name: Duplicate value: "c"',
    },
    { text: pod(`${container('name: c\n      image: a')}  restartPolicy: Sometimes\n`), mentions: 'spec.restartPolicy: Unsupported value: "Sometimes"' },
    { text: pod(`${container('name: c\n      image: a')}  dnsPolicy: Custom\n`), mentions: 'spec.dnsPolicy: Unsupported value' },
    { text: pod(container('name: c\n      image: a\n      imagePullPolicy: Sometimes')), mentions: 'imagePullPolicy: Unsupported value' },
    { text: pod(container('name: c\n      image: a\n      ports: [{ containerPort: 0 }]')), mentions: 'spec.containers[0].ports[0].containerPort' },
    { text: pod(container('name: c\n      image: a\n      volumeMounts: [{ name: data, mountPath: /d }]')), mentions: 'volumeMounts[0].name: Not found: "data"' },
    { text: pod(`${container('name: c\n      image: a')}  terminationGracePeriodSeconds: -1\n`), mentions: 'terminationGracePeriodSeconds' },
  ];
  for (const { text, mentions } of cases) assert.throws(() => parseManifest(text, 'web.yaml'), invalid('web.yaml: ', mentions), mentions);
  const badList = JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [{ metadata: { name: 'a' }, spec: { containers: [{ name: 'c' }] } }] });
  assert.throws(() => parseManifest(badList, 'http://cfg'), invalid('items[0].spec.containers[0].image: Required value'));
});
