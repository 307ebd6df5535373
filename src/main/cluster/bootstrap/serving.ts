// serverTLSBootstrap: the kubelet's serving certificate for :10250 from the
// cluster (signer kubernetes.io/kubelet-serving) instead of a self-signed one, as
// upstream's kubelet server certificate manager: CN system:node:<name>, O
// system:nodes, the node's hostnames and addresses as subjectAltNames, asked with
// the client kubeconfig; kept as kubelet-server-current.pem in --cert-dir.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { pendingOrNewKey } from './bootstrap.js';
import { CertificateStore, isCurrentlyValid, KUBELET_SERVER_PREFIX, type StoredCertificate } from './cert-store.js';
import { KUBELET_SERVING_SIGNER, requestCertificate, SERVING_USAGES } from './csr-request.js';
import { loadKubeconfig } from './kubeconfig-files.js';

export interface ServingCertificateOptions {
  kubeconfigPath: string;
  certDir: string;
  nodeName: string;
  dnsNames: string[];
  ipAddresses: string[];
  logger: Logger;
  signal?: AbortSignal;
}

/** The valid serving certificate in --cert-dir, or a new one from the cluster. */
export async function ensureServingCertificate(options: ServingCertificateOptions): Promise<StoredCertificate> {
  const { kubeconfigPath, certDir, nodeName, dnsNames, ipAddresses, logger, signal } = options;
  const store = new CertificateStore(certDir, KUBELET_SERVER_PREFIX);
  const current = await store.current().catch(() => undefined);
  if (current && isCurrentlyValid(current)) return current;
  await mkdir(certDir, { recursive: true, mode: 0o700 });
  const keyFile = path.join(certDir, `${KUBELET_SERVER_PREFIX}.key.tmp`);
  const keyPem = await pendingOrNewKey(keyFile);
  const certPem = await requestCertificate({
    config: loadKubeconfig(kubeconfigPath, '--kubeconfig'),
    keyFile,
    spec: { nodeName, signerName: KUBELET_SERVING_SIGNER, usages: SERVING_USAGES, dnsNames, ipAddresses },
    logger,
    signal,
  });
  const stored = await store.updateFromPendingKey(certPem, keyPem, keyFile);
  logger.info({ certFile: stored.file, notAfter: stored.notAfter.toISOString() }, 'serving certificate issued');
  return stored;
}
