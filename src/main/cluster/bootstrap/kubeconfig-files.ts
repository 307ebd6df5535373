// The kubeconfig files of TLS bootstrap, as upstream's bootstrap package reads
// and writes them: whether --kubeconfig still holds a usable client certificate,
// and the kubeconfig written after bootstrapping, which takes the cluster from the
// bootstrap kubeconfig and names the rotating `kubelet-client-current.pem` as both
// client certificate and key (so a rotation needs no rewrite of the kubeconfig).
import { readFile, rename, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { ErrorCodes, ShardletError } from '../../../shared/errors.js';
import { certificateValidity, isCurrentlyValid } from './cert-store.js';

/** Loads a kubeconfig, naming the file in the error. */
export function loadKubeconfig(file: string, flag: string): KubeConfig {
  const config = new KubeConfig();
  try {
    config.loadFromFile(file);
  } catch (err) {
    throw new ShardletError(ErrorCodes.TLS_BOOTSTRAP_FAILED, `${flag} ${file}: cannot load the kubeconfig: ${(err as Error).message}`, { path: file });
  }
  if (!config.getCurrentCluster()) {
    throw new ShardletError(ErrorCodes.TLS_BOOTSTRAP_FAILED, `${flag} ${file}: field "current-context": names no cluster`, { path: file });
  }
  return config;
}

async function fileOrData(file: string | undefined, data: string | undefined): Promise<string | undefined> {
  if (data) return Buffer.from(data, 'base64').toString();
  return file ? readFile(file, 'utf8') : undefined;
}

/**
 * As upstream's isClientConfigStillValid: the kubeconfig exists, loads, and its
 * client certificate is valid now. A missing file or certificate is "not usable",
 * not an error: bootstrap then makes one.
 */
export async function isClientConfigStillValid(kubeconfigPath: string, now = new Date()): Promise<boolean> {
  let config: KubeConfig;
  try {
    config = new KubeConfig();
    config.loadFromFile(kubeconfigPath);
  } catch {
    return false;
  }
  const user = config.getCurrentUser();
  const certPem = await fileOrData(user?.certFile ?? undefined, user?.certData ?? undefined).catch(() => undefined);
  if (!certPem) return false;
  try {
    return isCurrentlyValid(certificateValidity(certPem), now);
  } catch {
    return false;
  }
}

/** The kubeconfig upstream's writeKubeconfigFromBootstrapping writes, written atomically. */
export async function writeKubeconfigFromBootstrapping(bootstrap: KubeConfig, kubeconfigPath: string, certFile: string): Promise<void> {
  const cluster = bootstrap.getCurrentCluster();
  if (!cluster) throw new ShardletError(ErrorCodes.TLS_BOOTSTRAP_FAILED, 'the bootstrap kubeconfig names no cluster');
  const caPem = await fileOrData(cluster.caFile, cluster.caData);
  const clusterEntry: Record<string, unknown> = { server: cluster.server };
  if (caPem) clusterEntry['certificate-authority-data'] = Buffer.from(caPem).toString('base64');
  if (cluster.skipTLSVerify) clusterEntry['insecure-skip-tls-verify'] = true;
  if (cluster.tlsServerName) clusterEntry['tls-server-name'] = cluster.tlsServerName;
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'default-cluster', cluster: clusterEntry }],
    contexts: [{ name: 'default-context', context: { cluster: 'default-cluster', namespace: 'default', user: 'default-auth' } }],
    'current-context': 'default-context',
    users: [{ name: 'default-auth', user: { 'client-certificate': certFile, 'client-key': certFile } }],
  };
  await mkdir(path.dirname(kubeconfigPath), { recursive: true });
  const temporary = `${kubeconfigPath}.tmp`;
  await writeFile(temporary, stringify(kubeconfig), { mode: 0o600 });
  await rename(temporary, kubeconfigPath);
}
