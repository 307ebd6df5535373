// The :10250 serving certificate, chosen as upstream's kubelet does at start-up:
// tlsCertFile/tlsPrivateKeyFile when given; else, without serverTLSBootstrap, the
// pair kubelet.crt/kubelet.key in --cert-dir, made self-signed (CN
// "<node>@<unix seconds>", the node's names and addresses as subjectAltNames)
// the first time and reused after. With serverTLSBootstrap the certificate comes
// from the cluster later (see kubelet-server.ts).
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';

const run = promisify(execFile);

/** Upstream's self-signed serving certificate lasts a year. */
export const SELF_SIGNED_VALIDITY_DAYS = 365;
export const SELF_SIGNED_CERT_FILE = 'kubelet.crt';
export const SELF_SIGNED_KEY_FILE = 'kubelet.key';

export interface ServingPair {
  certPem: string;
  keyPem: string;
  /** Where it came from, for the start-up log. */
  certFile: string;
}

export interface ServingCertificateSettings {
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  certDir: string;
  nodeName: string;
  /** The node's addresses (IPs) for the self-signed certificate's subjectAltNames. */
  addresses: string[];
}

/** The configured pair, or the self-signed one in the cert dir (made when missing). */
export async function loadServingPair(settings: ServingCertificateSettings): Promise<ServingPair> {
  if (settings.tlsCertFile !== '' || settings.tlsPrivateKeyFile !== '') return readConfiguredPair(settings);
  const certFile = path.join(settings.certDir, SELF_SIGNED_CERT_FILE);
  const keyFile = path.join(settings.certDir, SELF_SIGNED_KEY_FILE);
  const existing = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]).catch(() => undefined);
  if (existing) return { certPem: existing[0], keyPem: existing[1], certFile };
  await makeSelfSigned(certFile, keyFile, settings.nodeName, settings.addresses);
  return { certPem: await readFile(certFile, 'utf8'), keyPem: await readFile(keyFile, 'utf8'), certFile };
}

async function readConfiguredPair(settings: ServingCertificateSettings): Promise<ServingPair> {
  const read = async (field: string, flag: string, file: string): Promise<string> => {
    if (file === '') {
      throw new ShardletError(ErrorCodes.CONFIG_INVALID, `${field} (--${flag}) must be set together with ${field === 'tlsCertFile' ? 'tlsPrivateKeyFile' : 'tlsCertFile'}`, { field });
    }
    try {
      return await readFile(file, 'utf8');
    } catch (err) {
      throw new ShardletError(ErrorCodes.CONFIG_INVALID, `${field} (--${flag}) ${file}: cannot read the serving certificate file: ${(err as Error).message}`, { field, path: file });
    }
  };
  const certPem = await read('tlsCertFile', 'tls-cert-file', settings.tlsCertFile);
  const keyPem = await read('tlsPrivateKeyFile', 'tls-private-key-file', settings.tlsPrivateKeyFile);
  return { certPem, keyPem, certFile: settings.tlsCertFile };
}

/** As upstream's GenerateSelfSignedCertKey for the kubelet: "<host>@<unix time>", serverAuth, the host's names and IPs. */
async function makeSelfSigned(certFile: string, keyFile: string, nodeName: string, addresses: string[]): Promise<void> {
  await mkdir(path.dirname(certFile), { recursive: true, mode: 0o700 });
  const names = [
    ...[nodeName, 'localhost'].map((name) => (isIP(name) ? `IP:${name}` : `DNS:${name}`)),
    ...[...new Set(['127.0.0.1', ...addresses])].filter((ip) => isIP(ip) !== 0).map((ip) => `IP:${ip}`),
  ];
  const temporaryKey = `${keyFile}.tmp`;
  const temporaryCert = `${certFile}.tmp`;
  try {
    await run('openssl', [
      'req', '-x509', '-new', '-nodes', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1',
      '-keyout', temporaryKey, '-out', temporaryCert, '-days', String(SELF_SIGNED_VALIDITY_DAYS),
      '-subj', `/CN=${nodeName}@${Math.floor(Date.now() / 1000)}`,
      '-addext', `subjectAltName=${[...new Set(names)].join(',')}`,
      '-addext', 'keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign',
      '-addext', 'extendedKeyUsage=serverAuth',
      '-addext', 'basicConstraints=critical,CA:TRUE',
    ]);
    await writeFile(keyFile, await readFile(temporaryKey), { mode: 0o600 });
    await writeFile(certFile, await readFile(temporaryCert), { mode: 0o644 });
  } catch (err) {
    throw new ShardletError(ErrorCodes.CONFIG_INVALID, `cannot write a self-signed serving certificate to ${certFile} (--cert-dir): ${(err as Error).message}`, { path: certFile });
  } finally {
    await rm(temporaryKey, { force: true });
    await rm(temporaryCert, { force: true });
  }
}
