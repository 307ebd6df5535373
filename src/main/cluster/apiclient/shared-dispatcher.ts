// One connection pool for all of the kubelet's API requests. client-node 2.x builds
// a new undici Agent for every request (KubeConfig.applySecurityAuthentication →
// createDispatcher), so every list, get, write and watch opens a TLS connection of
// its own and none is reused: no keep-alive, no TLS session resumption, and on an
// HTTP/2 API server (kube-apiserver) no multiplexing, where client-go carries all of
// a kubelet's watches as streams of one connection. Here the kubeconfig hands every
// request the same Agent while the TLS material stays the same. The client
// certificate is read again for each request (the kubeconfig may name a file that
// certificate rotation replaces): new material gets a new Agent, and the old one is
// closed gracefully, so requests under way (open watches) finish on it.
import { createHash } from 'node:crypto';
import type https from 'node:https';
import type { Cluster, KubeConfig } from '@kubernetes/client-node';
import { Agent, type Dispatcher } from 'undici';

type CreateDispatcher = (cluster: Cluster | null, agentOptions: https.AgentOptions) => Dispatcher | undefined;

/** The TLS options that decide which connections a request may share. */
const TLS_FIELDS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

function tlsKeyOf(connect: Record<string, unknown>): string {
  const hash = createHash('sha256');
  for (const field of TLS_FIELDS) {
    const value = connect[field];
    hash.update(`${field}:`);
    if (value !== undefined) hash.update(Buffer.isBuffer(value) ? value : JSON.stringify(value));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/**
 * Makes every request of `config` share one Agent (per TLS material). A proxied or
 * plain-HTTP cluster keeps client-node's own dispatchers.
 */
export function shareConnections(config: KubeConfig): void {
  // createDispatcher is private in client-node's types; applySecurityAuthentication calls it on `this`.
  const target = config as unknown as { createDispatcher: CreateDispatcher };
  const ownCreateDispatcher = target.createDispatcher.bind(config);
  let shared: { key: string; agent: Agent } | undefined;
  target.createDispatcher = (cluster, agentOptions) => {
    const options = config.createDispatcherOptions(cluster, agentOptions);
    if (options.type !== 'agent') return ownCreateDispatcher(cluster, agentOptions);
    const key = tlsKeyOf(options.connect as Record<string, unknown>);
    if (shared?.key === key) return shared.agent;
    const retired = shared?.agent;
    shared = { key, agent: new Agent({ connect: options.connect }) };
    void retired?.close();
    return shared.agent;
  };
}
