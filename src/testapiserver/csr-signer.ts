// Reads and signs PKCS#10 requests with the server's CA, as kube-controller-manager's
// csrsigning controller does: the subject and subjectAltNames come from the request,
// the key usages from the CSR object's spec.usages, the lifetime from the server's
// --cluster-signing-duration (or the CSR's shorter spec.expirationSeconds). openssl
// 3.0's `x509 -req` only counts days, so signing goes through `openssl ca`, which
// takes exact start and end dates, in a throwaway directory per certificate.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { KeyPair } from './tls.js';

const run = promisify(execFile);

/** Upstream's signer backdates notBefore against clock skew; a short-lived test certificate is not backdated. */
const BACKDATE_MS = 5 * 60_000;
const MIN_LIFETIME_TO_BACKDATE_MS = 8 * 3600_000;

export interface CsrSubject {
  commonName?: string;
  organizations: string[];
  /** Whether the request asks for any subjectAltName (DNS, IP, email, URI). */
  hasSubjectAltNames: boolean;
}

/** Checks the request's self-signature and reads its subject; throws on a malformed request. */
export async function inspectCsr(requestPem: string): Promise<CsrSubject> {
  const dir = await mkdtemp(path.join(tmpdir(), 'shardlet-csr-'));
  let stdout: string;
  try {
    await writeFile(path.join(dir, 'request.csr'), requestPem);
    const args = ['req', '-in', path.join(dir, 'request.csr'), '-noout', '-verify', '-subject', '-nameopt', 'sep_multiline,sname,utf8,-esc_msb', '-text'];
    ({ stdout } = await run('openssl', args));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const subjectLines = stdout.split('\n').slice(1).filter((line) => /^ {4}\w+=/.test(line)).map((line) => line.trim());
  const valuesOf = (short: string): string[] => subjectLines.filter((l) => l.startsWith(`${short}=`)).map((l) => l.slice(short.length + 1));
  return {
    commonName: valuesOf('CN')[0],
    organizations: valuesOf('O'),
    hasSubjectAltNames: stdout.includes('X509v3 Subject Alternative Name'),
  };
}

/** spec.usages (upstream's KeyUsage names) as openssl extension lines. */
function extensionLines(usages: string[]): string[] {
  const keyUsage: string[] = [];
  const extended: string[] = [];
  for (const usage of usages) {
    if (usage === 'digital signature') keyUsage.push('digitalSignature');
    else if (usage === 'key encipherment') keyUsage.push('keyEncipherment');
    else if (usage === 'client auth') extended.push('clientAuth');
    else if (usage === 'server auth') extended.push('serverAuth');
  }
  const lines = ['basicConstraints=critical,CA:FALSE', 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid'];
  if (keyUsage.length) lines.push(`keyUsage=critical,${keyUsage.join(',')}`);
  if (extended.length) lines.push(`extendedKeyUsage=${extended.join(',')}`);
  return lines;
}

/** `openssl ca` date form: YYYYMMDDHHMMSSZ. */
function caDate(date: Date): string {
  return `${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}

/** A minimal CA database: copy_extensions brings the request's subjectAltNames (extensions set here win). */
function caConfig(dir: string): string {
  return [
    '[ca]', 'default_ca = signer', '[signer]', `database = ${dir}/index.txt`, `serial = ${dir}/serial`, `new_certs_dir = ${dir}`,
    'default_md = sha256', 'policy = anything', 'copy_extensions = copy', 'unique_subject = no',
    '[anything]', 'organizationName = optional', 'commonName = optional', '',
  ].join('\n');
}

export interface SignOptions {
  usages: string[];
  lifetimeMs: number;
  now?: Date;
}

/** Signs a request with the CA; returns the certificate PEM. */
export async function signCsr(ca: KeyPair, requestPem: string, options: SignOptions): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'shardlet-csr-'));
  try {
    const now = options.now ?? new Date();
    const backdateMs = options.lifetimeMs >= MIN_LIFETIME_TO_BACKDATE_MS ? BACKDATE_MS : 0;
    await writeFile(path.join(dir, 'request.csr'), requestPem);
    await writeFile(path.join(dir, 'index.txt'), '');
    await writeFile(path.join(dir, 'serial'), '01\n');
    await writeFile(path.join(dir, 'ca.cnf'), caConfig(dir));
    await writeFile(path.join(dir, 'ext'), `${extensionLines(options.usages).join('\n')}\n`);
    await run('openssl', [
      'ca', '-batch', '-config', path.join(dir, 'ca.cnf'), '-cert', ca.certFile, '-keyfile', ca.keyFile,
      '-in', path.join(dir, 'request.csr'), '-out', path.join(dir, 'cert.pem'), '-rand_serial', '-notext', '-preserveDN',
      '-startdate', caDate(new Date(now.getTime() - backdateMs)), '-enddate', caDate(new Date(now.getTime() + options.lifetimeMs)),
      '-extfile', path.join(dir, 'ext'),
    ]);
    return await readFile(path.join(dir, 'cert.pem'), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
