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

test('a metadata.uid that is not a plain token is an invalid manifest, naming the file and the field', () => {
  const withUid = (uid: string) => POD_YAML.replace('  name: etcd\n', `  name: etcd\n  uid: ${JSON.stringify(uid)}\n`);
  const origin = '/etc/kubernetes/manifests/etcd.yaml';
  for (const uid of ['x/../../../../../../../../../../tmp/victim', '..', '/tmp/victim', 'a_b', 'a.b', 'é', 'a\u0000b', 'a'.repeat(129)]) {
    assert.throws(() => parsePodManifest(withUid(uid), origin), invalid(origin, 'metadata.uid: Invalid value'), JSON.stringify(uid));
  }
  assert.throws(() => parsePodManifest(withUid('x/../../tmp/victim'), origin), invalid("must consist of letters, digits and '-'"));
  for (const uid of ['6f1c6c0e-8d1a-4b7e-9a55-1d2c3b4a5f60', 'd41d8cd98f00b204e9800998ecf8427e', 'My-Pod-1', 'a'.repeat(128)]) {
    assert.equal(parsePodManifest(withUid(uid), origin).metadata?.uid, uid);
  }
  assert.equal(parsePodManifest(withUid(''), origin).metadata?.uid, '', 'an empty UID is generated later, as upstream');
});

test('seccomp profiles as upstream validates them: a known type, a descending localhostProfile for Localhost only', () => {
  const withProfile = (profile: string, where: 'pod' | 'container') => {
    const container: Record<string, unknown> = { name: 'c', image: 'busybox' };
    const spec: Record<string, unknown> = { containers: [container] };
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec };
    const context = { seccompProfile: JSON.parse(profile) as unknown };
    if (where === 'pod') spec.securityContext = context;
    else container.securityContext = context;
    return JSON.stringify(pod);
  };
  const refused: Array<[string, string]> = [
    ['{"type":"Localhost","localhostProfile":"../../../../etc/shadow"}', "localhostProfile: Invalid value: \"../../../../etc/shadow\": must not contain '..'"],
    ['{"type":"Localhost","localhostProfile":"/etc/shadow"}', 'must be a relative path'],
    ['{"type":"Localhost","localhostProfile":"a/../../b"}', "must not contain '..'"],
    ['{"type":"Localhost"}', 'localhostProfile: Required value'],
    ['{"type":"RuntimeDefault","localhostProfile":"x.json"}', 'can only be set when seccomp type is Localhost'],
    ['{"type":"Bogus"}', 'type: Unsupported value: "Bogus"'],
    ['{}', 'type: Required value'],
  ];
  for (const where of ['pod', 'container'] as const) {
    const field = where === 'pod' ? 'spec.securityContext.seccompProfile' : 'spec.containers[0].securityContext.seccompProfile';
    for (const [profile, reason] of refused) assert.throws(() => parsePodManifest(withProfile(profile, where), 'p.json'), invalid(field, reason), `${where} ${profile}`);
    for (const profile of ['{"type":"Localhost","localhostProfile":"profiles/audit.json"}', '{"type":"RuntimeDefault"}', '{"type":"Unconfined"}']) {
      assert.doesNotThrow(() => parsePodManifest(withProfile(profile, where), 'p.json'), `${where} ${profile}`);
    }
  }
});
