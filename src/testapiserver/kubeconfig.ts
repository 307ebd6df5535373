// Writes a kubeconfig for one identity: a client certificate (admin:
// CN=admin,O=system:masters; kubelet: CN=system:node:<node>,O=system:nodes) or a
// bearer token, with the server's CA embedded.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import type { CertificateAuthority, ClientIdentity } from './tls.js';

export interface KubeconfigIdentity {
  user: 'kubelet' | 'admin';
  /** The node a kubelet identity is for (system:node:<nodeName>). */
  nodeName?: string;
  /** Use this bearer token instead of a client certificate. */
  token?: string;
}

export const DEFAULT_NODE_NAME = 'node-1';

export function clientIdentityOf(identity: KubeconfigIdentity): ClientIdentity {
  if (identity.user === 'admin') return { user: 'admin', groups: ['system:masters'] };
  return { user: `system:node:${identity.nodeName ?? DEFAULT_NODE_NAME}`, groups: ['system:nodes'] };
}

function b64(text: string): string {
  return Buffer.from(text).toString('base64');
}

export async function writeKubeconfigFile(file: string, url: string, ca: CertificateAuthority, identity: KubeconfigIdentity): Promise<string> {
  const userName = identity.user === 'admin' ? 'admin' : `system:node:${identity.nodeName ?? DEFAULT_NODE_NAME}`;
  let credentials: Record<string, string>;
  if (identity.token) credentials = { token: identity.token };
  else {
    const pair = await ca.clientCert(clientIdentityOf(identity));
    credentials = { 'client-certificate-data': b64(pair.certPem), 'client-key-data': b64(pair.keyPem) };
  }
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'shardlet-test', cluster: { server: url, 'certificate-authority-data': b64(ca.ca.certPem) } }],
    users: [{ name: userName, user: credentials }],
    contexts: [{ name: 'shardlet-test', context: { cluster: 'shardlet-test', user: userName, namespace: 'default' } }],
    'current-context': 'shardlet-test',
    preferences: {},
  };
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, stringify(config), { mode: 0o600 });
  return file;
}
