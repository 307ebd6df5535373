// What a fresh cluster has before anyone writes: the system namespaces, a
// `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap in each (as the
// serviceaccount and root-CA-publisher controllers create them).
import { applyDefaults } from './defaults.js';
import type { ResourceRef, Store } from './store.js';

export const SEEDED_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

const NAMESPACES: ResourceRef = { key: 'namespaces', group: '', plural: 'namespaces' };
const SERVICE_ACCOUNTS: ResourceRef = { key: 'serviceaccounts', group: '', plural: 'serviceaccounts' };
const CONFIG_MAPS: ResourceRef = { key: 'configmaps', group: '', plural: 'configmaps' };

/** The objects the namespace controllers add to a new namespace. */
export function seedNamespaceContents(store: Store, namespace: string, caPem: string): void {
  if (!store.get(SERVICE_ACCOUNTS, namespace, 'default')) {
    store.create(SERVICE_ACCOUNTS, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } });
  }
  if (!store.get(CONFIG_MAPS, namespace, 'kube-root-ca.crt')) {
    store.create(CONFIG_MAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', namespace }, data: { 'ca.crt': caPem } });
  }
}

export function seedCluster(store: Store, caPem: string): void {
  for (const name of SEEDED_NAMESPACES) {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
    applyDefaults('namespaces', ns);
    store.create(NAMESPACES, ns);
    seedNamespaceContents(store, name, caPem);
  }
}
