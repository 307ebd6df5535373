// TLS bootstrap at start-up, as upstream's bootstrap.LoadClientCert: keep a
// kubeconfig whose client certificate is still valid; otherwise ask for a client
// certificate with the bootstrap kubeconfig's credentials (reusing a valid one
// already in --cert-dir, and a key left pending by an interrupted earlier start),
// store it as kubelet-client-current.pem and write --kubeconfig pointing at it.
import { createPrivateKey } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { CertificateStore, isCurrentlyValid, KUBELET_CLIENT_PREFIX, type StoredCertificate } from './cert-store.js';
import { CLIENT_USAGES, generatePrivateKeyPem, KUBELET_CLIENT_SIGNER, requestCertificate, writeKeyFile } from './csr-request.js';
import { isClientConfigStillValid, loadKubeconfig, writeKubeconfigFromBootstrapping } from './kubeconfig-files.js';

/** Upstream's tmpPrivateKeyFile: the key of a request not answered yet, reused by the next attempt. */
export const PENDING_CLIENT_KEY_FILE = 'kubelet-client.key.tmp';

export interface ClientCertificateBootstrapOptions {
  kubeconfigPath: string;
  /** --bootstrap-kubeconfig; without it the kubeconfig is used as it is. */
  bootstrapKubeconfigPath?: string;
  certDir: string;
  nodeName: string;
  logger: Logger;
  signal?: AbortSignal;
}

export interface BootstrapOutcome {
  /** 'kubeconfig': it was usable as it was; 'cert-dir': a valid certificate there was reused; 'csr': a new one was issued. */
  source: 'kubeconfig' | 'cert-dir' | 'csr';
  kubeconfigPath: string;
  certificate?: StoredCertificate;
}

/** The key of a pending request if one is there and readable, else a new one (written before use). */
export async function pendingOrNewKey(keyFile: string): Promise<string> {
  try {
    const keyPem = await readFile(keyFile, 'utf8');
    createPrivateKey(keyPem);
    return keyPem;
  } catch {
    const keyPem = generatePrivateKeyPem();
    await writeKeyFile(keyFile, keyPem);
    return keyPem;
  }
}

export async function ensureClientCertificate(options: ClientCertificateBootstrapOptions): Promise<BootstrapOutcome> {
  const { kubeconfigPath, bootstrapKubeconfigPath, certDir, nodeName, logger, signal } = options;
  if (await isClientConfigStillValid(kubeconfigPath)) {
    logger.info({ kubeconfig: kubeconfigPath }, 'kubeconfig exists and its client certificate is valid, skipping TLS bootstrap');
    return { source: 'kubeconfig', kubeconfigPath };
  }
  if (!bootstrapKubeconfigPath) return { source: 'kubeconfig', kubeconfigPath };
  const bootstrap = loadKubeconfig(bootstrapKubeconfigPath, '--bootstrap-kubeconfig');
  const store = new CertificateStore(certDir, KUBELET_CLIENT_PREFIX);
  const current = await store.current().catch(() => undefined);
  if (current && isCurrentlyValid(current)) {
    await writeKubeconfigFromBootstrapping(bootstrap, kubeconfigPath, store.currentPath);
    logger.info({ certFile: store.currentPath, kubeconfig: kubeconfigPath }, 'current client certificate is valid, wrote the kubeconfig for it');
    return { source: 'cert-dir', kubeconfigPath, certificate: current };
  }
  logger.info({ bootstrapKubeconfig: bootstrapKubeconfigPath, certDir }, 'no valid client certificate, requesting one with the bootstrap kubeconfig');
  await mkdir(certDir, { recursive: true, mode: 0o700 });
  const keyFile = path.join(certDir, PENDING_CLIENT_KEY_FILE);
  const keyPem = await pendingOrNewKey(keyFile);
  const certPem = await requestCertificate({
    config: bootstrap,
    keyFile,
    spec: { nodeName, signerName: KUBELET_CLIENT_SIGNER, usages: CLIENT_USAGES },
    logger,
    signal,
  });
  const stored = await store.updateFromPendingKey(certPem, keyPem, keyFile);
  await writeKubeconfigFromBootstrapping(bootstrap, kubeconfigPath, store.currentPath);
  logger.info({ certFile: store.currentPath, notAfter: stored.notAfter.toISOString(), kubeconfig: kubeconfigPath }, 'client certificate issued, kubeconfig written');
  return { source: 'csr', kubeconfigPath, certificate: stored };
}
