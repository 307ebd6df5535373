// A private CA, a serving certificate for 127.0.0.1/localhost and client
// certificates (CN = user, O = groups, as kube-apiserver's x509 authenticator
// reads them), made with the openssl CLI into a private temp directory.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const CERT_VALIDITY_DAYS = 365;
const KEY_ALGORITHM_ARGS = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];

export interface KeyPair {
  certPem: string;
  keyPem: string;
  certFile: string;
  keyFile: string;
}

export interface ClientIdentity {
  user: string;
  groups: string[];
}

/** Escapes a value for an openssl -subj string. */
function subjectPart(value: string): string {
  return value.replace(/[/\\+,=]/g, (c) => `\\${c}`);
}

export class CertificateAuthority {
  private readonly clientCerts = new Map<string, KeyPair>();
  private serial = 1;

  private constructor(
    readonly dir: string,
    readonly ca: KeyPair,
    readonly serving: KeyPair,
    /** Kept in a state directory: destroy() leaves it for the next start. */
    private readonly persistent = false,
  ) {}

  /**
   * Creates a CA and a serving certificate for 127.0.0.1, ::1 and localhost, in a
   * private temp directory; or, given `keepIn`, loads the ones an earlier start
   * left there (creating them the first time), so that kubeconfigs stay valid.
   */
  static async create(keepIn?: string): Promise<CertificateAuthority> {
    if (keepIn) {
      await mkdir(keepIn, { recursive: true, mode: 0o700 });
      const kept = await loadKeyPairs(keepIn).catch(() => undefined);
      if (kept) return new CertificateAuthority(keepIn, kept.ca, kept.serving, true);
    }
    const dir = keepIn ?? (await mkdtemp(path.join(tmpdir(), 'shardlet-apiserver-')));
    const ca = await makeSelfSigned(dir, 'ca', '/CN=shardlet-test-ca');
    const authority = new CertificateAuthority(dir, ca, ca);
    const serving = await authority.issue('apiserver', '/CN=kube-apiserver', [
      'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost,DNS:kubernetes.default.svc',
      'extendedKeyUsage=serverAuth',
    ]);
    return new CertificateAuthority(dir, ca, serving, keepIn !== undefined);
  }

  /** A client certificate for a user and groups, made once and reused. */
  async clientCert(identity: ClientIdentity): Promise<KeyPair> {
    const cacheKey = [identity.user, ...identity.groups].join('|');
    const cached = this.clientCerts.get(cacheKey);
    if (cached) return cached;
    const subject = [...identity.groups.map((g) => `/O=${subjectPart(g)}`), `/CN=${subjectPart(identity.user)}`].join('');
    const name = `client-${this.clientCerts.size + 1}`;
    const pair = await this.issue(name, subject, ['extendedKeyUsage=clientAuth']);
    this.clientCerts.set(cacheKey, pair);
    return pair;
  }

  private async issue(name: string, subject: string, extensions: string[]): Promise<KeyPair> {
    const keyFile = path.join(this.dir, `${name}.key`);
    const csrFile = path.join(this.dir, `${name}.csr`);
    const certFile = path.join(this.dir, `${name}.crt`);
    const extFile = path.join(this.dir, `${name}.ext`);
    await run('openssl', ['req', '-new', '-nodes', ...KEY_ALGORITHM_ARGS, '-keyout', keyFile, '-out', csrFile, '-subj', subject]);
    await writeFile(extFile, `${['basicConstraints=CA:FALSE', 'keyUsage=digitalSignature,keyEncipherment', ...extensions].join('\n')}\n`);
    await run('openssl', [
      'x509', '-req', '-in', csrFile, '-CA', this.ca.certFile, '-CAkey', this.ca.keyFile,
      '-set_serial', String(++this.serial + Date.now()), '-days', String(CERT_VALIDITY_DAYS), '-out', certFile, '-extfile', extFile,
    ]);
    return { certFile, keyFile, certPem: await readFile(certFile, 'utf8'), keyPem: await readFile(keyFile, 'utf8') };
  }

  async destroy(): Promise<void> {
    if (!this.persistent) await rm(this.dir, { recursive: true, force: true });
  }
}

async function readKeyPair(dir: string, name: string): Promise<KeyPair> {
  const certFile = path.join(dir, `${name}.crt`);
  const keyFile = path.join(dir, `${name}.key`);
  return { certFile, keyFile, certPem: await readFile(certFile, 'utf8'), keyPem: await readFile(keyFile, 'utf8') };
}

async function loadKeyPairs(dir: string): Promise<{ ca: KeyPair; serving: KeyPair }> {
  return { ca: await readKeyPair(dir, 'ca'), serving: await readKeyPair(dir, 'apiserver') };
}

async function makeSelfSigned(dir: string, name: string, subject: string): Promise<KeyPair> {
  const keyFile = path.join(dir, `${name}.key`);
  const certFile = path.join(dir, `${name}.crt`);
  await run('openssl', [
    'req', '-x509', '-new', '-nodes', ...KEY_ALGORITHM_ARGS, '-keyout', keyFile, '-out', certFile,
    '-days', String(CERT_VALIDITY_DAYS), '-subj', subject,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign,digitalSignature',
  ]);
  return { certFile, keyFile, certPem: await readFile(certFile, 'utf8'), keyPem: await readFile(keyFile, 'utf8') };
}
