// Asking the API server for a certificate, as client-go's certificate/csr package
// and the kubelet's bootstrap do: a P-256 key, a PKCS#10 request for the node's
// identity (made by openssl: node:crypto has no CSR builder), a
// CertificateSigningRequest named after a digest of key, subject and usages (so a
// retry with the same key finds its own earlier request), then a watch on it until
// the certificate is issued, or the request is denied or failed.
import { setTimeout as sleep } from 'node:timers/promises';
import { execFile } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { CertificatesV1Api, type KubeConfig, type V1CertificateSigningRequest, Watch } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Backoff } from '../../../shared/backoff.js';
import { ErrorCodes, ShardletError } from '../../../shared/errors.js';

const run = promisify(execFile);

export const KUBELET_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
export const CLIENT_USAGES = ['digital signature', 'client auth'];
export const SERVING_USAGES = ['digital signature', 'server auth'];
const NODES_GROUP = 'system:nodes';
const CSR_PATH = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
/** How long one watch may sit before it is reopened (client-go's watch tools reopen theirs as well). */
const WATCH_TIMEOUT_SECONDS = 300;

export interface CertificateRequestSpec {
  nodeName: string;
  signerName: string;
  usages: string[];
  /** For kubelet-serving: the node's DNS names and IPs. */
  dnsNames?: string[];
  ipAddresses?: string[];
}

/** A new P-256 private key (upstream's kubelet uses ECDSA P-256), as SEC1 PEM. */
export function generatePrivateKeyPem(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ type: 'sec1', format: 'pem' }).toString();
}

/** A PKCS#10 request for system:node:<name> in system:nodes, signed with the key in `keyFile`. */
export async function createCsrPem(keyFile: string, spec: CertificateRequestSpec): Promise<string> {
  const args = ['req', '-new', '-key', keyFile, '-subj', `/O=${NODES_GROUP}/CN=system:node:${spec.nodeName}`];
  const altNames = [...(spec.dnsNames ?? []).map((d) => `DNS:${d}`), ...(spec.ipAddresses ?? []).map((ip) => `IP:${ip}`)];
  if (altNames.length) args.push('-addext', `subjectAltName=${altNames.join(',')}`);
  const { stdout } = await run('openssl', args);
  return stdout;
}

/** Upstream's digestedName: the same key, subject and usages always give the same CSR name. */
export function csrNameFor(keyPem: string, spec: CertificateRequestSpec): string {
  const publicDer = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
  const digest = createHash('sha512').update(publicDer).update(`|system:node:${spec.nodeName}|${NODES_GROUP}|${spec.signerName}|${spec.usages.join(',')}`).digest('base64url');
  return `node-csr-${digest.slice(0, 43)}`;
}

export interface RequestCertificateOptions {
  /** The credentials to ask with: the bootstrap kubeconfig, or the current client certificate on renewal. */
  config: KubeConfig;
  keyFile: string;
  spec: CertificateRequestSpec;
  logger: Logger;
  signal?: AbortSignal;
}

/** Creates the CSR (or finds the one an earlier attempt created) and waits for its certificate (PEM). */
export async function requestCertificate(options: RequestCertificateOptions): Promise<string> {
  const { config, keyFile, spec, logger, signal } = options;
  const keyPem = await readFile(keyFile, 'utf8');
  const requestPem = await createCsrPem(keyFile, spec);
  const name = csrNameFor(keyPem, spec);
  const api = config.makeApiClient(CertificatesV1Api);
  const body: V1CertificateSigningRequest = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(requestPem).toString('base64'), signerName: spec.signerName, usages: spec.usages },
  };
  const backoff = new Backoff();
  for (;;) {
    signal?.throwIfAborted();
    try {
      await api.createCertificateSigningRequest({ body });
      logger.info({ csr: name, signerName: spec.signerName }, 'certificate signing request created');
      break;
    } catch (err) {
      if ((err as { code?: number }).code === 409) {
        logger.info({ csr: name }, 'certificate signing request already exists, waiting for it');
        break;
      }
      const delayMs = backoff.next();
      logger.warn({ err: String(err), csr: name, retryInMs: delayMs }, 'failed to create the certificate signing request, retrying');
      await sleep(delayMs, undefined, { signal });
    }
  }
  return waitForCertificate(config, name, logger, signal);
}

/** The issued certificate of a CSR object, undefined while pending; throws when denied or failed. */
export function issuedCertificate(csr: V1CertificateSigningRequest): string | undefined {
  const name = csr.metadata?.name ?? '';
  for (const condition of csr.status?.conditions ?? []) {
    if (condition.type === 'Denied' && condition.status === 'True') {
      throw new ShardletError(ErrorCodes.CSR_DENIED, `certificate signing request ${name} is denied, reason: ${condition.reason ?? ''}, message: ${condition.message ?? ''}`, { csr: name });
    }
    if (condition.type === 'Failed' && condition.status === 'True') {
      throw new ShardletError(ErrorCodes.CSR_DENIED, `certificate signing request ${name} failed, reason: ${condition.reason ?? ''}, message: ${condition.message ?? ''}`, { csr: name });
    }
  }
  const approved = (csr.status?.conditions ?? []).some((c) => c.type === 'Approved' && c.status === 'True');
  const certificate = csr.status?.certificate;
  return approved && certificate ? Buffer.from(certificate, 'base64').toString() : undefined;
}

/** Watches one CSR until it carries a certificate; reopens the watch with backoff when it ends. */
async function waitForCertificate(config: KubeConfig, name: string, logger: Logger, signal?: AbortSignal): Promise<string> {
  const watch = new Watch(config);
  const backoff = new Backoff();
  for (;;) {
    signal?.throwIfAborted();
    logger.info({ csr: name }, 'waiting for the certificate signing request to be approved and issued');
    const outcome = await watchOnce(watch, name, signal).catch((err: unknown) => ({ error: err }));
    if ('certificate' in outcome && outcome.certificate) return outcome.certificate;
    if ('error' in outcome && outcome.error instanceof ShardletError) throw outcome.error;
    if ('error' in outcome && outcome.error) {
      signal?.throwIfAborted();
      const delayMs = backoff.next();
      logger.warn({ err: String(outcome.error), csr: name, retryInMs: delayMs }, 'watch of the certificate signing request failed, retrying');
      await sleep(delayMs, undefined, { signal });
    } else backoff.reset();
  }
}

/** One watch: resolves with the certificate, or with nothing when the watch ended first. */
function watchOnce(watch: Watch, name: string, signal?: AbortSignal): Promise<{ certificate?: string; error?: unknown }> {
  return new Promise((resolve) => {
    let settled = false;
    let abortWatch: () => void = () => {};
    const finish = (outcome: { certificate?: string; error?: unknown }): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      abortWatch();
      resolve(outcome);
    };
    const onAbort = (): void => finish({ error: signal?.reason });
    signal?.addEventListener('abort', onAbort, { once: true });
    const query = { fieldSelector: `metadata.name=${name}`, timeoutSeconds: WATCH_TIMEOUT_SECONDS };
    watch.watch(CSR_PATH, query, (type, csr: V1CertificateSigningRequest) => {
      if (type !== 'ADDED' && type !== 'MODIFIED') return;
      try {
        const certificate = issuedCertificate(csr);
        if (certificate) finish({ certificate });
      } catch (err) {
        finish({ error: err });
      }
    }, (err: unknown) => finish(err ? { error: err } : {}))
      .then((controller) => {
        abortWatch = () => controller.abort();
        if (settled) controller.abort();
      }, (err: unknown) => finish({ error: err }));
  });
}

/** Writes a key file readable by the kubelet only. */
export async function writeKeyFile(file: string, keyPem: string): Promise<void> {
  await writeFile(file, keyPem, { mode: 0o600 });
}
