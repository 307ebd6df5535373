// The kubelet API server's settings as upstream resolves them: v1beta1 defaults
// with --config (anonymous off, webhook on, mode Webhook), the legacy ones
// without (anonymous on, webhook off, AlwaysAllow), flags over both, and bad
// names refused naming the field or flag they came from.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCodes, ShardletError } from '../../../src/shared/errors.js';
import { parseFlags } from '../../../src/main/options/flags.js';
import { mergeFlags, parseKubeletConfig } from '../../../src/main/options/kubelet-config.js';

const env = { hostname: () => 'node-a' };
const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

function fails(code: string, ...mentions: string[]) {
  return (err: unknown) => {
    assert.ok(err instanceof ShardletError, String(err));
    assert.equal(err.code, code);
    for (const mention of mentions) assert.ok(err.message.includes(mention), `${err.message} should mention ${mention}`);
    return true;
  };
}

test('with --config: v1beta1 defaults (anonymous off, webhook authn on for 2m, Webhook authz 5m/30s, :10250, healthz 127.0.0.1:10248)', () => {
  const server = mergeFlags(parseKubeletConfig(HEADER, 'k.yaml'), parseFlags([]), env).kubeletServer;
  assert.equal(server.enableServer, true);
  assert.equal(server.address, '0.0.0.0');
  assert.equal(server.port, 10_250);
  assert.equal(server.anonymousAuth, false);
  assert.equal(server.webhookAuthentication, true);
  assert.equal(server.webhookAuthenticationCacheTtlMs, 120_000);
  assert.equal(server.authorizationMode, 'Webhook');
  assert.equal(server.webhookAuthorizedCacheTtlMs, 300_000);
  assert.equal(server.webhookUnauthorizedCacheTtlMs, 30_000);
  assert.equal(server.healthzBindAddress, '127.0.0.1');
  assert.equal(server.healthzPort, 10_248);
  assert.equal(server.enableDebuggingHandlers, true);
});

test('without --config: the legacy defaults (anonymous on, no webhook, AlwaysAllow)', () => {
  const server = mergeFlags(undefined, parseFlags([]), env).kubeletServer;
  assert.equal(server.anonymousAuth, true);
  assert.equal(server.webhookAuthentication, false);
  assert.equal(server.authorizationMode, 'AlwaysAllow');
});

test('kubeadm writes 0s TTLs: they mean the defaults; flags win over the file', () => {
  const file = parseKubeletConfig(
    `${HEADER}authentication: {webhook: {cacheTTL: 0s, enabled: true}, x509: {clientCAFile: /pki/ca.crt}}\nauthorization: {mode: Webhook, webhook: {cacheAuthorizedTTL: 0s, cacheUnauthorizedTTL: 10s}}\n`,
    'k.yaml',
  );
  const server = mergeFlags(file, parseFlags(['--anonymous-auth=true', '--authorization-mode=AlwaysAllow', '--port=11250']), env).kubeletServer;
  assert.equal(server.webhookAuthenticationCacheTtlMs, 120_000);
  assert.equal(server.webhookAuthorizedCacheTtlMs, 300_000);
  assert.equal(server.webhookUnauthorizedCacheTtlMs, 10_000);
  assert.equal(server.clientCAFile, '/pki/ca.crt');
  assert.equal(server.anonymousAuth, true);
  assert.equal(server.authorizationMode, 'AlwaysAllow');
  assert.equal(server.port, 11_250);
});

test('a bad authorization mode is refused naming the file field, or the flag', () => {
  assert.throws(() => mergeFlags(parseKubeletConfig(`${HEADER}authorization: {mode: RBAC}\n`, 'k.yaml'), parseFlags([]), env), fails(ErrorCodes.CONFIG_INVALID, 'k.yaml', 'authorization.mode', 'RBAC'));
  assert.throws(() => mergeFlags(undefined, parseFlags(['--authorization-mode=Node']), env), fails(ErrorCodes.FLAG_INVALID, '--authorization-mode', 'Node'));
});

test('unknown TLS names are refused naming tlsMinVersion or tlsCipherSuites', () => {
  assert.throws(() => mergeFlags(parseKubeletConfig(`${HEADER}tlsMinVersion: TLS12\n`, 'k.yaml'), parseFlags([]), env), fails(ErrorCodes.CONFIG_INVALID, 'tlsMinVersion', 'TLS12'));
  assert.throws(
    () => mergeFlags(parseKubeletConfig(`${HEADER}tlsCipherSuites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_NOT_A_SUITE]\n`, 'k.yaml'), parseFlags([]), env),
    fails(ErrorCodes.CONFIG_INVALID, 'tlsCipherSuites', 'TLS_NOT_A_SUITE'),
  );
});

test('/configz reads the resolved configuration: flags included', () => {
  const options = mergeFlags(parseKubeletConfig(`${HEADER}maxPods: 20\n`, 'k.yaml'), parseFlags(['--sync-frequency=30s']), env);
  assert.equal(options.kubeletServer.resolvedConfig.maxPods, 20);
  assert.equal(options.kubeletServer.resolvedConfig.syncFrequency, 30_000);
});
