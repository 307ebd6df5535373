// The Node authorizer's graph (upstream's Graph and graphPopulator), kept from
// the store's own events, so it is current the moment a write returns:
//   node <- pod <- secret, configmap, pvc, service account, resourceclaim
//   pvc <- pv <- secret
// A pod joins the graph once it is bound to a node and leaves when it is
// deleted; a mirror pod links only to its node (a node must not grant itself
// access to anything through a pod it created).
import type { ResourceRef, Store } from '../store.js';
import type { KubeObject, StoredEvent } from '../types.js';
import { persistentVolumeSecrets, podReferences } from './pod-references.js';

export type VertexType = 'pod' | 'secret' | 'configmap' | 'pvc' | 'pv' | 'serviceAccount' | 'resourceclaim';

const PODS: ResourceRef = { key: 'pods', group: '', plural: 'pods' };
const PERSISTENT_VOLUMES: ResourceRef = { key: 'persistentvolumes', group: '', plural: 'persistentvolumes' };
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

const vertexKey = (type: VertexType, namespace: string, name: string): string => `${type}/${namespace}/${name}`;

interface PodVertex {
  node: string;
  references: string[];
}

interface PvVertex {
  claim?: string;
  secrets: string[];
}

/** Adds or removes one member of a multimap. */
function link(index: Map<string, Set<string>>, key: string, member: string, present: boolean): void {
  let members = index.get(key);
  if (present) {
    if (!members) index.set(key, (members = new Set()));
    members.add(member);
  } else if (members) {
    members.delete(member);
    if (members.size === 0) index.delete(key);
  }
}

export class NodeGraph {
  private readonly pods = new Map<string, PodVertex>();
  private readonly podsByReference = new Map<string, Set<string>>();
  private readonly pvs = new Map<string, PvVertex>();
  private readonly pvsBySecret = new Map<string, Set<string>>();
  private readonly unsubscribe: Array<() => void> = [];

  constructor(store: Store) {
    for (const [ref, apply] of [[PODS, (e: StoredEvent) => this.onPod(e)], [PERSISTENT_VOLUMES, (e: StoredEvent) => this.onPv(e)]] as const) {
      const listed = store.list(ref);
      for (const object of listed.items) apply({ type: 'ADDED', resourceVersion: listed.resourceVersion, object });
      this.unsubscribe.push(store.watch(ref, listed.resourceVersion, apply));
    }
  }

  stop(): void {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
  }

  private onPod(event: StoredEvent): void {
    const pod = event.object;
    const key = vertexKey('pod', pod.metadata.namespace ?? '', pod.metadata.name);
    this.removePod(key);
    const node = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    if (event.type === 'DELETED' || !node) return;
    const references = pod.metadata.annotations?.[MIRROR_ANNOTATION] === undefined ? referenceKeysOf(pod) : [];
    this.pods.set(key, { node, references });
    for (const reference of references) link(this.podsByReference, reference, key, true);
  }

  private removePod(key: string): void {
    const existing = this.pods.get(key);
    if (!existing) return;
    for (const reference of existing.references) link(this.podsByReference, reference, key, false);
    this.pods.delete(key);
  }

  private onPv(event: StoredEvent): void {
    const name = event.object.metadata.name;
    const existing = this.pvs.get(name);
    for (const secret of existing?.secrets ?? []) link(this.pvsBySecret, secret, name, false);
    this.pvs.delete(name);
    const claimRef = (event.object.spec as { claimRef?: { namespace?: string; name?: string } } | undefined)?.claimRef;
    if (event.type === 'DELETED' || !claimRef?.name) return;
    const secrets = persistentVolumeSecrets(event.object).map((s) => vertexKey('secret', s.namespace, s.name));
    this.pvs.set(name, { claim: vertexKey('pvc', claimRef.namespace ?? '', claimRef.name), secrets });
    for (const secret of secrets) link(this.pvsBySecret, secret, name, true);
  }

  /** hasPathFrom: a chain of edges leads from the object to the node. */
  hasPath(type: VertexType, namespace: string, name: string, node: string): boolean {
    if (type === 'pod') return this.pods.get(vertexKey('pod', namespace, name))?.node === node;
    if (type === 'pv') {
      const claim = this.pvs.get(name)?.claim;
      return claim !== undefined && this.referenceReaches(claim, node);
    }
    const key = vertexKey(type, namespace, name);
    if (this.referenceReaches(key, node)) return true;
    return type === 'secret' && [...(this.pvsBySecret.get(key) ?? [])].some((pv) => this.hasPath('pv', '', pv, node));
  }

  private referenceReaches(key: string, node: string): boolean {
    for (const pod of this.podsByReference.get(key) ?? []) if (this.pods.get(pod)?.node === node) return true;
    return false;
  }
}

function referenceKeysOf(pod: KubeObject): string[] {
  const namespace = pod.metadata.namespace ?? '';
  const refs = podReferences(pod);
  return [
    ...refs.secrets.map((n) => vertexKey('secret', namespace, n)),
    ...refs.configMaps.map((n) => vertexKey('configmap', namespace, n)),
    ...refs.persistentVolumeClaims.map((n) => vertexKey('pvc', namespace, n)),
    ...refs.resourceClaims.map((n) => vertexKey('resourceclaim', namespace, n)),
    ...(refs.serviceAccount ? [vertexKey('serviceAccount', namespace, refs.serviceAccount)] : []),
  ];
}
