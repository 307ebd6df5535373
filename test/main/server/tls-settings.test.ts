import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nodeTlsSettings, TlsSettingError } from '../../../src/main/server/tls-settings.js';

test('Go TLS version names map to node:tls minVersion; empty keeps TLS 1.2', () => {
  assert.equal(nodeTlsSettings('', []).minVersion, 'TLSv1.2');
  assert.equal(nodeTlsSettings('VersionTLS10', []).minVersion, 'TLSv1');
  assert.equal(nodeTlsSettings('VersionTLS11', []).minVersion, 'TLSv1.1');
  assert.equal(nodeTlsSettings('VersionTLS13', []).minVersion, 'TLSv1.3');
  assert.equal(nodeTlsSettings('', []).ciphers, undefined);
});

test('Go cipher suite names map to OpenSSL names, TLS 1.3 suites always kept', () => {
  const { ciphers } = nodeTlsSettings('VersionTLS12', ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256', 'TLS_RSA_WITH_AES_256_GCM_SHA384']);
  assert.deepEqual(ciphers!.split(':'), [
    'ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-CHACHA20-POLY1305', 'AES256-GCM-SHA384',
    'TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256',
  ]);
});

test('unknown names throw naming the field', () => {
  assert.throws(() => nodeTlsSettings('TLSv1.2', []), (err: unknown) => err instanceof TlsSettingError && err.field === 'tlsMinVersion' && /TLSv1\.2/.test(err.message));
  assert.throws(() => nodeTlsSettings('', ['ECDHE-RSA-AES128-GCM-SHA256']), (err: unknown) => err instanceof TlsSettingError && err.field === 'tlsCipherSuites');
});
