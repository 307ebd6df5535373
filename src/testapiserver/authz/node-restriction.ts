// The NodeRestriction admission plugin (plugin/pkg/admission/noderestriction):
// a node writes only its own Node (never its taints, its configSource or
// labels outside the kubelet's own set), its own Lease, the status of pods
// bound to it (not their labels or resource claim statuses), mirror pods bound
// to itself that name nothing else, tokens bound to its own pods, and deletes or
// evicts only its own pods. Refusals are 403 with upstream's messages.
import type { AdmissionAttributes, Admit } from '../admission.js';
import { ApiError, notFound } from '../api-error.js';
import type { ResourceRef, Store } from '../store.js';
import type { KubeObject } from '../types.js';
import { NODE_LEASE_NAMESPACE, nodeIdentity } from './node-authorizer.js';
import { podReferences } from './pod-references.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PODS: ResourceRef = { key: 'pods', group: '', plural: 'pods' };
const NODES: ResourceRef = { key: 'nodes', group: '', plural: 'nodes' };
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
const NODE_RESTRICTION_LABEL_NAMESPACE = 'node-restriction.kubernetes.io';
/** kubeletapis.IsKubeletLabel: labels a kubelet may set on its Node. */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'topology.kubernetes.io/region', 'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region', 'beta.kubernetes.io/instance-type', 'node.kubernetes.io/instance-type', 'kubernetes.io/os',
  'kubernetes.io/arch', 'beta.kubernetes.io/os', 'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

/** admission.NewForbidden: `<resource> "<name>" is forbidden: <reason>`, the name from the request or the object. */
function forbidden(a: AdmissionAttributes, reason: string): ApiError {
  const resource = a.group ? `${a.resource}.${a.group}` : a.resource;
  const meta = (a.object?.metadata ?? {}) as { name?: unknown; generateName?: unknown };
  const named = [a.name, meta.name, meta.generateName].find((n): n is string => typeof n === 'string' && n !== '') ?? 'Unknown';
  return new ApiError(403, 'Forbidden', `${resource} "${named}" is forbidden: ${reason}`, { name: named, group: a.group || undefined, kind: a.resource });
}

const labelNamespace = (key: string): string => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inNamespace = (namespace: string, domain: string): boolean => namespace === domain || namespace.endsWith(`.${domain}`);

function modifiedLabels(a: Record<string, string> = {}, b: Record<string, string> = {}): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => a[k] !== b[k]);
}

/** Labels a node may not add, change or remove on itself (getForbiddenLabels), sorted. */
function forbiddenLabels(keys: string[]): string[] {
  return keys
    .filter((key) => {
      const namespace = labelNamespace(key);
      if (inNamespace(namespace, NODE_RESTRICTION_LABEL_NAMESPACE)) return true;
      const kubernetesLabel = inNamespace(namespace, 'kubernetes.io') || inNamespace(namespace, 'k8s.io');
      const kubeletLabel = KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((n) => inNamespace(namespace, n));
      return kubernetesLabel && !kubeletLabel;
    })
    .sort();
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export class NodeRestriction {
  constructor(private readonly store: Store) {}

  readonly admit: Admit = (a) => {
    if (!a.user) return;
    const node = nodeIdentity(a.user);
    if (node === undefined) return;
    if (node === '') throw forbidden(a, `could not determine node from user "${a.user.user}"`);
    if (a.group === '') {
      switch (a.resource) {
        case 'pods': return this.pod(node, a);
        case 'nodes': return this.nodeObject(node, a);
        case 'persistentvolumeclaims': return this.pvcStatus(node, a);
        case 'serviceaccounts': return this.serviceAccount(node, a);
        default: return;
      }
    }
    if (a.group === 'coordination.k8s.io' && a.resource === 'leases') return this.lease(node, a);
  };

  private existingPod(a: AdmissionAttributes, name: string): KubeObject {
    const pod = this.store.get(PODS, a.namespace, name);
    if (!pod) throw notFound('', 'pods', name);
    return pod;
  }

  private pod(node: string, a: AdmissionAttributes): void {
    if (a.subresource === 'status') return this.podStatus(node, a);
    if (a.subresource === 'eviction') {
      const podName = a.name || (a.object?.metadata?.name ?? '');
      if (!podName) throw forbidden(a, 'could not determine pod from request data');
      if ((this.existingPod(a, podName).spec as Obj | undefined)?.nodeName !== node) throw forbidden(a, `node ${node} can only evict pods with spec.nodeName set to itself`);
      return;
    }
    if (a.subresource !== '') throw forbidden(a, `unexpected pod subresource "${a.subresource}", only 'status' and 'eviction' are allowed`);
    if (a.operation === 'CREATE') return this.mirrorPodCreate(node, a);
    if (a.operation === 'DELETE') {
      if ((this.existingPod(a, a.name).spec as Obj | undefined)?.nodeName !== node) throw forbidden(a, `node "${node}" can only delete pods with spec.nodeName set to itself`);
      return;
    }
    throw forbidden(a, `unexpected operation "${a.operation}", node "${node}" can only create and delete mirror pods`);
  }

  private mirrorPodCreate(node: string, a: AdmissionAttributes): void {
    const pod = (a.object ?? {}) as Obj;
    if (pod.metadata?.annotations?.[MIRROR_ANNOTATION] === undefined) {
      throw forbidden(a, `pod does not have "${MIRROR_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
    }
    if (pod.spec?.nodeName !== node) throw forbidden(a, `node "${node}" can only create pods with spec.nodeName set to itself`);
    const owners: Obj[] = pod.metadata?.ownerReferences ?? [];
    if (owners.length > 1) throw forbidden(a, `node "${node}" can only create pods with a single owner reference set to itself`);
    const owner = owners[0];
    if (!owner || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) throw forbidden(a, `node "${node}" can only create pods with an owner reference set to itself`);
    if (owner.controller !== true) throw forbidden(a, `node "${node}" can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw forbidden(a, `node "${node}" must not set blockOwnerDeletion on an owner reference`);
    const nodeObject = this.store.get(NODES, undefined, node);
    if (!nodeObject) throw notFound('', 'nodes', node);
    if (owner.uid !== nodeObject.metadata.uid) throw forbidden(a, `node ${node} UID mismatch: expected ${owner.uid} got ${nodeObject.metadata.uid}`);
    const refs = podReferences(pod);
    if (refs.serviceAccount) throw forbidden(a, `node "${node}" can not create pods that reference a service account`);
    if (refs.secrets.length > 0) throw forbidden(a, `node "${node}" can not create pods that reference secrets`);
    if (refs.configMaps.length > 0) throw forbidden(a, `node "${node}" can not create pods that reference configmaps`);
    const volumes: Obj[] = pod.spec?.volumes ?? [];
    if (volumes.some((v) => (v?.projected?.sources ?? []).some((s: Obj) => s?.clusterTrustBundle))) throw forbidden(a, `node "${node}" can not create pods that reference clustertrustbundles`);
    if (volumes.some((v) => v?.persistentVolumeClaim)) throw forbidden(a, `node "${node}" can not create pods that reference persistentvolumeclaims`);
  }

  private podStatus(node: string, a: AdmissionAttributes): void {
    if (a.operation !== 'UPDATE') throw forbidden(a, `unexpected operation "${a.operation}"`);
    const oldPod = (a.oldObject ?? {}) as Obj;
    const newPod = (a.object ?? {}) as Obj;
    if (oldPod.spec?.nodeName !== node) throw forbidden(a, `node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
    if (!same(oldPod.metadata?.labels ?? {}, newPod.metadata?.labels ?? {})) throw forbidden(a, `node "${node}" cannot update labels through pod status`);
    const claims = (pod: Obj) => (pod.status?.resourceClaimStatuses ?? []).map((s: Obj) => [s?.name, s?.resourceClaimName ?? null]);
    if (!same(claims(oldPod), claims(newPod))) throw forbidden(a, `node "${node}" cannot update resource claim statues`);
  }

  private nodeObject(node: string, a: AdmissionAttributes): void {
    if (a.name !== node) throw forbidden(a, `node "${node}" is not allowed to modify node "${a.name}"`);
    const incoming = (a.object ?? {}) as Obj;
    if (a.operation === 'CREATE') {
      if (incoming.spec?.configSource) throw forbidden(a, `node "${node}" is not allowed to create pods with a non-nil configSource`);
      const labels = forbiddenLabels(modifiedLabels(incoming.metadata?.labels, {}));
      if (labels.length > 0) throw forbidden(a, `node "${node}" is not allowed to set the following labels: ${labels.join(', ')}`);
    }
    if (a.operation === 'UPDATE') {
      const old = (a.oldObject ?? {}) as Obj;
      if (incoming.spec?.configSource && !same(incoming.spec.configSource, old.spec?.configSource)) {
        throw forbidden(a, `node "${node}" is not allowed to update configSource to a new non-nil configSource`);
      }
      if (!same(incoming.spec?.taints, old.spec?.taints)) throw forbidden(a, `node "${node}" is not allowed to modify taints`);
      const labels = forbiddenLabels(modifiedLabels(incoming.metadata?.labels, old.metadata?.labels));
      if (labels.length > 0) throw forbidden(a, `is not allowed to modify labels: ${labels.join(', ')}`);
    }
  }

  private pvcStatus(node: string, a: AdmissionAttributes): void {
    if (a.subresource !== 'status') throw forbidden(a, 'may only update PVC status');
    if (a.operation !== 'UPDATE') throw forbidden(a, `unexpected operation "${a.operation}"`);
    const strip = (pvc: Obj | undefined): Obj => {
      const { resourceVersion: _rv, managedFields: _mf, ...metadata } = pvc?.metadata ?? {};
      const { capacity: _c, conditions: _cond, allocatedResourceStatuses: _ars, allocatedResources: _ar, ...status } = pvc?.status ?? {};
      return { ...pvc, metadata, status };
    };
    if (!same(strip(a.oldObject), strip(a.object))) throw forbidden(a, `node "${node}" is not allowed to update fields other than status.capacity and status.conditions`);
  }

  private serviceAccount(node: string, a: AdmissionAttributes): void {
    if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
    const ref = ((a.object ?? {}) as Obj).spec?.boundObjectRef as Obj | undefined;
    if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw forbidden(a, 'node requested token not bound to a pod');
    if (!ref.uid) throw forbidden(a, 'node requested token with a pod binding without a uid');
    const pod = this.existingPod(a, ref.name);
    if (ref.uid !== pod.metadata.uid) {
      throw forbidden(a, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if ((pod.spec as Obj | undefined)?.nodeName !== node) throw forbidden(a, 'node requested token bound to a pod scheduled on a different node');
  }

  private lease(node: string, a: AdmissionAttributes): void {
    if (a.namespace !== NODE_LEASE_NAMESPACE) throw forbidden(a, `can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    if (a.name !== node) throw forbidden(a, 'can only access node lease with the same name as the requesting node');
  }
}
