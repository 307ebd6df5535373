import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashContainer } from '../../../src/shared/kuberuntime/container-hash.js';
import type { Container } from '../../../src/shared/types.js';

const base: Container = {
  name: 'app',
  image: 'registry.local/app:1',
  command: ['/bin/app', '--serve'],
  env: [{ name: 'MODE', value: 'prod' }],
  ports: [{ containerPort: 8080, protocol: 'TCP' }],
  resources: { limits: { cpu: '1' } },
};

test('container hash: short hex, the same for the same spec', () => {
  assert.match(hashContainer(base), /^[0-9a-f]{8}$/);
  assert.equal(hashContainer(base), hashContainer(structuredClone(base)));
});

test('container hash: known containers keep their hash (pinned: a change here restarts every container on upgrade)', () => {
  assert.equal(hashContainer(base), '56050b31');
  const withNestedEmpties = {
    ...base,
    args: ['a', ''],
    securityContext: { runAsUser: 0, privileged: false },
    volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: true }],
    stdin: false,
    env: [{ name: 'E', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'N', value: null }],
    livenessProbe: {},
    workingDir: null,
  } as unknown as Container;
  assert.equal(hashContainer(withNestedEmpties), 'cfc1e360');
});

test('container hash: key order does not matter, at any depth', () => {
  const reordered: Container = {
    resources: { limits: { cpu: '1' } },
    ports: [{ protocol: 'TCP', containerPort: 8080 }],
    env: [{ value: 'prod', name: 'MODE' }],
    command: ['/bin/app', '--serve'],
    image: 'registry.local/app:1',
    name: 'app',
  };
  assert.equal(hashContainer(reordered), hashContainer(base));
});

test('container hash: absent, undefined and empty values hash alike', () => {
  const withEmpties: Container = { ...base, args: [], volumeMounts: undefined, securityContext: {} };
  assert.equal(hashContainer(withEmpties), hashContainer(base));
});

const changes: Array<{ name: string; change: Partial<Container>; differs: boolean }> = [
  { name: 'command', change: { command: ['/bin/app', '--debug'] }, differs: true },
  { name: 'command order', change: { command: ['--serve', '/bin/app'] }, differs: true },
  { name: 'image', change: { image: 'registry.local/app:2' }, differs: true },
  { name: 'env value', change: { env: [{ name: 'MODE', value: 'dev' }] }, differs: true },
  { name: 'args added', change: { args: ['-v'] }, differs: true },
  { name: 'resources (left to in-place resize, as upstream)', change: { resources: { limits: { cpu: '2' } } }, differs: false },
  { name: 'resizePolicy', change: { resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] }, differs: false },
];

for (const { name, change, differs } of changes) {
  test(`container hash: changing ${name} ${differs ? 'changes' : 'keeps'} the hash`, () => {
    const changed = hashContainer({ ...base, ...change });
    if (differs) assert.notEqual(changed, hashContainer(base));
    else assert.equal(changed, hashContainer(base));
  });
}
