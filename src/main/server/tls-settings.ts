// tlsMinVersion and tlsCipherSuites as the operator writes them (Go's crypto/tls
// names, as upstream's cliflag.TLSVersion and TLSCipherSuites accept them),
// mapped to what node:tls takes (minVersion "TLSv1.2", an OpenSSL cipher list).

/** Go's tls.Version names → node:tls minVersion. */
const TLS_VERSIONS: Readonly<Record<string, 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

/**
 * Go's (IANA) cipher suite names → OpenSSL's. Upstream accepts the secure and the
 * insecure lists of crypto/tls; both are here. TLS 1.3 suites map to themselves.
 */
const CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
};

/** Go's TLS 1.3 suites are not configurable: they stay on whatever tlsCipherSuites lists. */
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/** Go's crypto/tls default minimum for a server. */
export const DEFAULT_TLS_MIN_VERSION = 'TLSv1.2';

export interface NodeTlsSettings {
  minVersion: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  /** OpenSSL cipher list; undefined keeps Node's defaults (upstream's nil list keeps Go's). */
  ciphers?: string;
}

/** A setting that names something node:tls cannot take, for the start-up error. */
export class TlsSettingError extends Error {
  constructor(readonly field: 'tlsMinVersion' | 'tlsCipherSuites', reason: string) {
    super(reason);
  }
}

/** The node:tls settings for the configured names; throws TlsSettingError naming the field. */
export function nodeTlsSettings(minVersionName: string, cipherSuiteNames: readonly string[]): NodeTlsSettings {
  let minVersion: NodeTlsSettings['minVersion'] = DEFAULT_TLS_MIN_VERSION;
  if (minVersionName !== '') {
    const mapped = TLS_VERSIONS[minVersionName];
    if (!mapped) throw new TlsSettingError('tlsMinVersion', `unknown tls version ${JSON.stringify(minVersionName)}; supported: ${Object.keys(TLS_VERSIONS).join(', ')}`);
    minVersion = mapped;
  }
  if (cipherSuiteNames.length === 0) return { minVersion };
  const unknown = cipherSuiteNames.filter((name) => CIPHER_SUITES[name] === undefined);
  if (unknown.length > 0) throw new TlsSettingError('tlsCipherSuites', `unknown cipher suite ${unknown.map((name) => JSON.stringify(name)).join(', ')}`);
  const openSslNames = [...new Set([...cipherSuiteNames.map((name) => CIPHER_SUITES[name]!), ...TLS13_SUITES])];
  return { minVersion, ciphers: openSslNames.join(':') };
}
