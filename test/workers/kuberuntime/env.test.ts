import assert from 'node:assert/strict';
import { test } from 'node:test';
import { totalmem } from 'node:os';
import type { PodApiData } from '../../../src/shared/shard-protocol.js';
import { isEnvVarName, makeEnvironmentVariables } from '../../../src/workers/kuberuntime/env.js';
import { makeContainer, makePod, makeSettings, POD_UID } from './fixtures.js';

const settings = makeSettings();

function envOf(container: ReturnType<typeof makeContainer>, pod = makePod({ containers: [container] }), podIPs = ['10.244.1.7']) {
  return Object.fromEntries(makeEnvironmentVariables({ pod, container, podIPs, settings }).map((e) => [e.name, e.value]));
}

test('env: values expand earlier variables only, unknown refs stay', () => {
  const container = makeContainer({
    env: [
      { name: 'GREETING', value: 'hello' },
      { name: 'MESSAGE', value: '$(GREETING) $(TARGET) $$(GREETING)' },
      { name: 'TARGET', value: 'world' },
      { name: 'LATER', value: '$(TARGET)!' },
    ],
  });
  const env = envOf(container);
  assert.equal(env.MESSAGE, 'hello $(TARGET) $(GREETING)');
  assert.equal(env.LATER, 'world!');
});

test('env: a name defined twice keeps its first position and last value', () => {
  const container = makeContainer({ env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }, { name: 'A', value: '$(A)3' }] });
  const list = makeEnvironmentVariables({ pod: makePod({ containers: [container] }), container, podIPs: [], settings });
  assert.deepEqual(list, [{ name: 'A', value: '13' }, { name: 'B', value: '2' }]);
});

test('env: fieldRefs resolve from the pod, the node and the sandbox', () => {
  const fieldEnv = (name: string, fieldPath: string) => ({ name, valueFrom: { fieldRef: { fieldPath } } });
  const container = makeContainer({
    env: [
      fieldEnv('POD_NAME', 'metadata.name'),
      fieldEnv('POD_NAMESPACE', 'metadata.namespace'),
      fieldEnv('POD_UID', 'metadata.uid'),
      fieldEnv('NODE_NAME', 'spec.nodeName'),
      fieldEnv('SA', 'spec.serviceAccountName'),
      fieldEnv('POD_IP', 'status.podIP'),
      fieldEnv('POD_IPS', 'status.podIPs'),
      fieldEnv('HOST_IP', 'status.hostIP'),
      fieldEnv('HOST_IPS', 'status.hostIPs'),
      fieldEnv('APP', "metadata.labels['app']"),
      fieldEnv('OWNER', "metadata.annotations['example.com/owner']"),
      fieldEnv('MISSING', "metadata.labels['nope']"),
      fieldEnv('LABELS', 'metadata.labels'),
      { name: 'URL', value: 'http://$(POD_IP):8080/$(POD_NAME)' },
    ],
  });
  const pod = makePod({ containers: [container], serviceAccountName: 'builder' }, { labels: { app: 'web', tier: 'front' } });
  const env = envOf(container, pod, ['10.244.1.7', 'fd00::7']);
  assert.deepEqual(env, {
    POD_NAME: 'web-0',
    POD_NAMESPACE: 'shop',
    POD_UID,
    NODE_NAME: 'node-a',
    SA: 'builder',
    POD_IP: '10.244.1.7',
    POD_IPS: '10.244.1.7,fd00::7',
    HOST_IP: '192.168.1.10',
    HOST_IPS: '192.168.1.10',
    APP: 'web',
    OWNER: 'team-a',
    MISSING: '',
    LABELS: 'app="web"\ntier="front"',
    URL: 'http://10.244.1.7:8080/web-0',
  });
});

test('env: a host-network pod sees the node IP as its pod IP', () => {
  const container = makeContainer({ env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }] });
  const pod = makePod({ containers: [container], hostNetwork: true });
  assert.equal(envOf(container, pod, []).POD_IP, '192.168.1.10');
});

test('env: resourceFieldRef with divisors, limits defaulting to node capacity', () => {
  const resourceEnv = (name: string, resource: string, divisor?: string) => ({
    name,
    valueFrom: { resourceFieldRef: { resource, ...(divisor ? { divisor } : {}) } },
  });
  const container = makeContainer({
    resources: { limits: { cpu: '1500m', memory: '256Mi' }, requests: { cpu: '250m' } },
    env: [
      resourceEnv('CPU_LIMIT', 'limits.cpu'),
      resourceEnv('CPU_LIMIT_M', 'limits.cpu', '1m'),
      resourceEnv('CPU_REQUEST_M', 'requests.cpu', '1m'),
      resourceEnv('MEM_LIMIT_MI', 'limits.memory', '1Mi'),
      resourceEnv('MEM_REQUEST', 'requests.memory'),
    ],
  });
  assert.deepEqual(envOf(container), {
    CPU_LIMIT: '2',
    CPU_LIMIT_M: '1500',
    CPU_REQUEST_M: '250',
    MEM_LIMIT_MI: '256',
    MEM_REQUEST: String(256 * 1024 * 1024),
  });
  const unlimited = makeContainer({ env: [resourceEnv('MEM', 'limits.memory')] });
  assert.equal(envOf(unlimited).MEM, String(totalmem()));
});

test('env: configMap, secret and envFrom are refused as needing the API server', () => {
  const refs = [
    makeContainer({ env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } }] }),
    makeContainer({ env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }),
    makeContainer({ envFrom: [{ configMapRef: { name: 'cm' } }] }),
  ];
  for (const container of refs) {
    assert.throws(() => envOf(container), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'SHARDLET_CREATE_CONTAINER_CONFIG');
      assert.match(err.message, /needs the API server/);
      return true;
    });
  }
});

test('env: an unsupported fieldPath is a config error', () => {
  const container = makeContainer({ env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.bogus' } } }] });
  assert.throws(() => envOf(container), { code: 'SHARDLET_CREATE_CONTAINER_CONFIG', message: /unsupported fieldPath: spec.bogus/ });
});

const b64 = (text: string) => Buffer.from(text).toString('base64');
const clusterData: PodApiData = {
  configMaps: {
    app: { data: { LEVEL: 'debug', 'db.host': 'pg', '1BAD': 'x', 'has space': 'y' }, binaryData: { BLOB: b64('bin') } },
    gone: null,
  },
  secrets: { db: { type: 'Opaque', data: { PASSWORD: b64('hunter2'), USER: b64('app') } }, later: null },
  serviceAccountTokens: {},
};

function clusterEnv(container: ReturnType<typeof makeContainer>, warnings: string[] = []) {
  const pod = makePod({ containers: [container] });
  const list = makeEnvironmentVariables({
    pod,
    container,
    podIPs: [],
    settings,
    apiData: clusterData,
    recordWarning: (reason, message) => warnings.push(`${reason}: ${message}`),
  });
  return list;
}

test('env: configMapKeyRef and secretKeyRef read the API objects; optional misses leave the variable unset', () => {
  const container = makeContainer({
    env: [
      { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'app', key: 'LEVEL' } } },
      { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'PASSWORD' } } },
      { name: 'URL', value: 'pg://$(DB_PASSWORD)@$(LEVEL)' },
      { name: 'OPT_KEY', valueFrom: { configMapKeyRef: { name: 'app', key: 'missing', optional: true } } },
      { name: 'OPT_CM', valueFrom: { configMapKeyRef: { name: 'gone', key: 'k', optional: true } } },
      { name: 'OPT_SECRET', valueFrom: { secretKeyRef: { name: 'later', key: 'k', optional: true } } },
      { name: 'BINARY', valueFrom: { configMapKeyRef: { name: 'app', key: 'BLOB', optional: true } } },
    ],
  });
  assert.deepEqual(clusterEnv(container), [
    { name: 'LEVEL', value: 'debug' },
    { name: 'DB_PASSWORD', value: 'hunter2' },
    { name: 'URL', value: 'pg://hunter2@debug' },
  ]);
});

test('env: envFrom adds prefixed keys before env, skips invalid names with a warning, env wins', () => {
  const warnings: string[] = [];
  const container = makeContainer({
    envFrom: [
      { configMapRef: { name: 'app' } },
      { prefix: 'DB_', secretRef: { name: 'db' } },
      { configMapRef: { name: 'gone', optional: true } },
    ],
    env: [{ name: 'LEVEL', value: 'warn-$(DB_USER)' }],
  });
  const env = Object.fromEntries(clusterEnv(container, warnings).map((e) => [e.name, e.value]));
  assert.deepEqual(env, { LEVEL: 'warn-app', 'db.host': 'pg', DB_PASSWORD: 'hunter2', DB_USER: 'app' });
  assert.deepEqual(warnings, [
    'InvalidEnvironmentVariableNames: Keys [1BAD, has space] from the EnvFrom configMap shop/app were skipped since they are considered invalid environment variable names.',
  ]);
});

test('env: a missing ConfigMap, Secret or key is CreateContainerConfigError with upstream messages', () => {
  const cases: Array<[ReturnType<typeof makeContainer>, string]> = [
    [makeContainer({ env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'gone', key: 'k' } } }] }), 'configmap "gone" not found'],
    [makeContainer({ env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'unknown', key: 'k' } } }] }), 'configmap "unknown" not found'],
    [makeContainer({ env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'app', key: 'k' } } }] }), "couldn't find key k in ConfigMap shop/app"],
    [makeContainer({ env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'later', key: 'k' } } }] }), 'secret "later" not found'],
    [makeContainer({ env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'db', key: 'k' } } }] }), "couldn't find key k in Secret shop/db"],
    [makeContainer({ envFrom: [{ configMapRef: { name: 'gone' } }] }), 'configmap "gone" not found'],
    [makeContainer({ envFrom: [{ secretRef: { name: 'later' } }] }), 'secret "later" not found'],
  ];
  for (const [container, message] of cases) {
    assert.throws(() => clusterEnv(container), (err: Error & { code?: string; details?: Record<string, unknown> }) => {
      assert.equal(err.code, 'SHARDLET_CREATE_CONTAINER_CONFIG');
      assert.equal(err.message, message);
      assert.equal(err.details?.reason, 'CreateContainerConfigError');
      return true;
    });
  }
});

test('env: isEnvVarName as upstream validation.IsEnvVarName', () => {
  for (const name of ['A', 'my.env-name', 'MY_ENV.NAME', '_x', '.a', '-a']) assert.equal(isEnvVarName(name), true, name);
  for (const name of ['', '1A', 'a b', '.', '..', '..a', 'a=b', 'ü']) assert.equal(isEnvVarName(name), false, name);
});
