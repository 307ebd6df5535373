// The kubelet's rotating certificate files in --cert-dir, as upstream's
// certificate.FileStore: each issued certificate is written with its key into one
// `<prefix>-<timestamp>.pem`, and `<prefix>-current.pem` is a symlink swapped to
// it atomically, so a kubeconfig naming the symlink always finds a matching pair.
// As upstream's FileStore (tls.X509KeyPair), a certificate that does not belong to
// the private key is refused before it becomes current, and a current file whose
// pair does not match is no certificate.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { ErrorCodes, ShardletError } from '../../../shared/errors.js';

export const KUBELET_CLIENT_PREFIX = 'kubelet-client';
export const KUBELET_SERVER_PREFIX = 'kubelet-server';

export interface StoredCertificate {
  /** The `-current.pem` path (a symlink): what a kubeconfig should name. */
  file: string;
  certPem: string;
  keyPem: string;
  notBefore: Date;
  notAfter: Date;
}

/** The first certificate of a PEM bundle, with its validity. */
export function certificateValidity(certPem: string): { notBefore: Date; notAfter: Date } {
  const cert = new X509Certificate(certPem);
  return { notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo) };
}

/** Throws SHARDLET_CERTIFICATE_KEY_MISMATCH unless the (first) certificate was issued for this private key. */
export function checkKeyPair(certPem: string, keyPem: string, file: string): void {
  let matches: boolean;
  try {
    matches = new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch (err) {
    throw new ShardletError(ErrorCodes.CERTIFICATE_KEY_MISMATCH, `${file}: cannot read the certificate and key pair: ${(err as Error).message}`, { path: file });
  }
  if (!matches) throw new ShardletError(ErrorCodes.CERTIFICATE_KEY_MISMATCH, `${file}: the certificate does not match the private key`, { path: file });
}

/** Whether a certificate is valid at `now` (upstream's isClientConfigStillValid checks exactly this). */
export function isCurrentlyValid(validity: { notBefore: Date; notAfter: Date }, now = new Date()): boolean {
  return validity.notBefore.getTime() <= now.getTime() && now.getTime() < validity.notAfter.getTime();
}

/** Upstream's pem file timestamp: 2006-01-02-15-04-05, local to UTC here. */
function fileTimestamp(now: Date): string {
  return now.toISOString().slice(0, 19).replace(/[T:]/g, '-');
}

function pemBlocks(text: string, type: RegExp): string[] {
  return [...text.matchAll(/-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----\n?/g)].filter((m) => type.test(m[1])).map((m) => m[0].endsWith('\n') ? m[0] : `${m[0]}\n`);
}

export class CertificateStore {
  constructor(readonly certDir: string, readonly prefix: string) {}

  get currentPath(): string {
    return path.join(this.certDir, `${this.prefix}-current.pem`);
  }

  /** The current certificate and key, or undefined when there is none yet. */
  async current(): Promise<StoredCertificate | undefined> {
    let text: string;
    try {
      text = await readFile(this.currentPath, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const certPem = pemBlocks(text, /CERTIFICATE$/).join('');
    const keyPem = pemBlocks(text, /PRIVATE KEY$/)[0];
    if (!certPem || !keyPem) return undefined;
    checkKeyPair(certPem, keyPem, this.currentPath);
    return { file: this.currentPath, certPem, keyPem, ...certificateValidity(certPem) };
  }

  /** Writes a new pair and points `-current.pem` at it; returns what is current now. */
  async update(certPem: string, keyPem: string, now = new Date()): Promise<StoredCertificate> {
    checkKeyPair(certPem, keyPem, this.currentPath);
    await mkdir(this.certDir, { recursive: true, mode: 0o700 });
    const validity = certificateValidity(certPem);
    const pairFile = await this.writePairFile(`${certPem.trimEnd()}\n${keyPem.trimEnd()}\n`, now);
    const temporaryLink = `${this.currentPath}.tmp`;
    await rm(temporaryLink, { force: true });
    await symlink(pairFile, temporaryLink);
    await rename(temporaryLink, this.currentPath);
    return { file: this.currentPath, certPem, keyPem, ...validity };
  }

  /**
   * Stores a certificate issued for the key of a pending request and removes that
   * key file, whether the certificate was taken or refused: a certificate that does
   * not match the key makes the request's answer useless, and the next attempt
   * must ask with a new key (a new request name) rather than get the same answer.
   */
  async updateFromPendingKey(certPem: string, keyPem: string, pendingKeyFile: string): Promise<StoredCertificate> {
    try {
      return await this.update(certPem, keyPem);
    } finally {
      await rm(pendingKeyFile, { force: true });
    }
  }

  /** `<prefix>-<timestamp>.pem`, never overwriting one written in the same second. */
  private async writePairFile(content: string, now: Date): Promise<string> {
    const base = `${this.prefix}-${fileTimestamp(now)}`;
    for (let attempt = 0; ; attempt++) {
      const file = path.join(this.certDir, attempt === 0 ? `${base}.pem` : `${base}-${attempt}.pem`);
      try {
        const handle = await open(file, 'wx', 0o600);
        await handle.writeFile(content);
        await handle.close();
        return file;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
  }
}
