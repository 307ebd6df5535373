import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1PodSpec } from '@kubernetes/client-node';
import { referencedObjects, type TokenReference } from '../../../../src/main/cluster/apidata/referenced-objects.js';

interface Case {
  name: string;
  spec: V1PodSpec;
  configMaps?: string[];
  secrets?: string[];
  tokens?: TokenReference[];
}

const CASES: Case[] = [
  { name: 'no references', spec: { containers: [{ name: 'c', image: 'busybox' }] } },
  {
    name: 'configMap and secret volumes',
    spec: {
      containers: [{ name: 'c' }],
      volumes: [
        { name: 'a', configMap: { name: 'cm-a' } },
        { name: 'b', secret: { secretName: 'secret-b' } },
        { name: 'd', downwardAPI: { items: [] } },
        { name: 'e', emptyDir: {} },
      ],
    },
    configMaps: ['cm-a'],
    secrets: ['secret-b'],
  },
  {
    name: 'projected sources, token defaults (audience of the API server, 3600 s, service account default)',
    spec: {
      containers: [{ name: 'c' }],
      volumes: [
        {
          name: 'kube-api-access',
          projected: {
            sources: [
              { serviceAccountToken: { path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt' } },
              { secret: { name: 'proj-secret' } },
              { downwardAPI: { items: [] } },
            ],
          },
        },
      ],
    },
    configMaps: ['kube-root-ca.crt'],
    secrets: ['proj-secret'],
    tokens: [{ serviceAccountName: 'default', audience: '', expirationSeconds: 3600 }],
  },
  {
    name: 'tokens with audience and lifetime, one per distinct key, for the pod service account',
    spec: {
      serviceAccountName: 'builder',
      containers: [{ name: 'c' }],
      volumes: [
        { name: 'a', projected: { sources: [{ serviceAccountToken: { path: 't', audience: 'vault', expirationSeconds: 600 } }] } },
        { name: 'b', projected: { sources: [{ serviceAccountToken: { path: 't2', audience: 'vault', expirationSeconds: 600 } }] } },
        { name: 'c', projected: { sources: [{ serviceAccountToken: { path: 't', audience: 'vault', expirationSeconds: 7200 } }] } },
      ],
    },
    tokens: [
      { serviceAccountName: 'builder', audience: 'vault', expirationSeconds: 600 },
      { serviceAccountName: 'builder', audience: 'vault', expirationSeconds: 7200 },
    ],
  },
  {
    name: 'env and envFrom of init, app and ephemeral containers',
    spec: {
      initContainers: [{ name: 'init', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'init-cm', key: 'k' } } }] }],
      containers: [
        {
          name: 'app',
          env: [
            { name: 'B', valueFrom: { secretKeyRef: { name: 'app-secret', key: 'k', optional: true } } },
            { name: 'C', value: 'plain' },
            { name: 'D', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          ],
          envFrom: [{ configMapRef: { name: 'from-cm' } }, { secretRef: { name: 'from-secret' }, prefix: 'S_' }],
        },
      ],
      ephemeralContainers: [{ name: 'debug', envFrom: [{ configMapRef: { name: 'debug-cm' } }] }],
    },
    configMaps: ['debug-cm', 'from-cm', 'init-cm'],
    secrets: ['app-secret', 'from-secret'],
  },
  {
    name: 'imagePullSecrets, and a name referred to twice counts once',
    spec: {
      imagePullSecrets: [{ name: 'registry' }, { name: 'shared' }],
      containers: [{ name: 'c', envFrom: [{ secretRef: { name: 'shared' } }] }],
      volumes: [{ name: 's', secret: { secretName: 'shared' } }],
    },
    secrets: ['registry', 'shared'],
  },
  {
    name: 'the deprecated serviceAccount field names the service account',
    spec: {
      serviceAccount: 'legacy',
      containers: [{ name: 'c' }],
      volumes: [{ name: 'a', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }],
    },
    tokens: [{ serviceAccountName: 'legacy', audience: '', expirationSeconds: 3600 }],
  },
];

for (const c of CASES) {
  test(`referencedObjects: ${c.name}`, () => {
    const refs = referencedObjects({ metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: c.spec });
    assert.deepEqual([...refs.configMaps].sort(), c.configMaps ?? []);
    assert.deepEqual([...refs.secrets].sort(), c.secrets ?? []);
    assert.deepEqual(refs.tokens, c.tokens ?? []);
  });
}

test('referencedObjects: a pod without a spec refers to nothing', () => {
  const refs = referencedObjects({ metadata: { name: 'p' } });
  assert.equal(refs.configMaps.size + refs.secrets.size + refs.tokens.length, 0);
});
