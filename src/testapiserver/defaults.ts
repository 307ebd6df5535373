// Server-side defaults on create and update, as kube-apiserver's defaulting
// (pkg/apis/core/v1/defaults.go) and its admission plugins (ServiceAccount,
// Priority, NamespaceLifecycle labels) fill them in, so kubectl sees what it
// expects and the kubelet gets the fields it reads without checking.
import { defaultRbacObject } from './authz/rbac-registry.js';
import type { KubeObject } from './types.js';

type Obj = Record<string, unknown>;

export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

function defaultContainer(container: Obj): void {
  const image = String(container.image ?? '');
  const lastPart = image.split('/').pop() ?? '';
  const tag = lastPart.includes('@') ? 'digest' : lastPart.includes(':') ? lastPart.split(':').pop() : 'latest';
  container.imagePullPolicy ??= tag === 'latest' ? 'Always' : 'IfNotPresent';
  container.terminationMessagePath ??= '/dev/termination-log';
  container.terminationMessagePolicy ??= 'File';
  container.resources ??= {};
  for (const port of (container.ports as Obj[] | undefined) ?? []) port.protocol ??= 'TCP';
}

function defaultVolume(volume: Obj): void {
  for (const source of ['configMap', 'secret', 'projected', 'downwardAPI'] as const) {
    const spec = volume[source] as Obj | undefined;
    if (spec) spec.defaultMode ??= 420;
  }
}

/** QoS class as upstream's GetPodQOS computes it, from requests and limits of cpu and memory. */
export function podQosClass(spec: Obj): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [...((spec.containers as Obj[] | undefined) ?? []), ...((spec.initContainers as Obj[] | undefined) ?? [])];
  let anySet = false;
  let guaranteed = true;
  for (const c of containers) {
    const resources = (c.resources as Obj | undefined) ?? {};
    const limits = (resources.limits as Obj | undefined) ?? {};
    const requests = { ...limits, ...((resources.requests as Obj | undefined) ?? {}) };
    for (const name of ['cpu', 'memory']) {
      if (requests[name] !== undefined || limits[name] !== undefined) anySet = true;
      if (limits[name] === undefined || String(requests[name]) !== String(limits[name])) guaranteed = false;
    }
  }
  if (!anySet) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

export function defaultPod(pod: KubeObject): void {
  const spec = ((pod.spec as Obj | undefined) ??= {}) as Obj;
  spec.restartPolicy ??= 'Always';
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.terminationGracePeriodSeconds ??= DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  spec.enableServiceLinks ??= true;
  spec.priority ??= 0;
  spec.preemptionPolicy ??= 'PreemptLowerPriority';
  // The ServiceAccount admission plugin leaves mirror pods alone: a node may not create one that names an account.
  if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] === undefined) {
    spec.serviceAccountName ??= (spec.serviceAccount as string | undefined) ?? 'default';
    spec.serviceAccount ??= spec.serviceAccountName;
  }
  for (const c of (spec.containers as Obj[] | undefined) ?? []) defaultContainer(c);
  for (const c of (spec.initContainers as Obj[] | undefined) ?? []) defaultContainer(c);
  for (const v of (spec.volumes as Obj[] | undefined) ?? []) defaultVolume(v);
  const status = ((pod.status as Obj | undefined) ??= {}) as Obj;
  status.phase ??= 'Pending';
  status.qosClass ??= podQosClass(spec);
}

/** What the scheduler's binding does: set spec.nodeName and the PodScheduled condition. */
export function bindPod(pod: KubeObject, nodeName: string): void {
  (pod.spec as Obj).nodeName = nodeName;
  const status = ((pod.status as Obj | undefined) ??= {}) as Obj;
  const conditions = ((status.conditions as Obj[] | undefined) ?? []).filter((c) => c.type !== 'PodScheduled');
  conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });
  status.conditions = conditions;
}

export function defaultNamespace(ns: KubeObject): void {
  ns.metadata.labels = { ...ns.metadata.labels, 'kubernetes.io/metadata.name': ns.metadata.name };
  // Field by field: a protobuf body carries spec and status even when empty.
  const spec = ((ns.spec as Obj | undefined) ??= {}) as Obj;
  spec.finalizers ??= ['kubernetes'];
  const status = ((ns.status as Obj | undefined) ??= {}) as Obj;
  status.phase ??= 'Active';
}

/** Secrets accept write-only `stringData`, merged into base64 `data` on write. */
export function defaultSecret(secret: KubeObject): void {
  secret.type ??= 'Opaque';
  const stringData = secret.stringData as Record<string, string> | undefined;
  if (!stringData) return;
  const data = ((secret.data as Record<string, string> | undefined) ??= {});
  for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value).toString('base64');
  delete secret.stringData;
}

/** Applies the defaults of a resource, by storage key. */
export function applyDefaults(key: string, obj: KubeObject): void {
  if (key === 'pods') defaultPod(obj);
  else if (key === 'namespaces') defaultNamespace(obj);
  else if (key === 'secrets') defaultSecret(obj);
  else defaultRbacObject(key, obj);
}

/**
 * The grace period a pod delete gets, as upstream's podStrategy.CheckGracefulDeletion:
 * the request's, else the pod's; zero for a pod never bound to a node or already terminal.
 */
export function podDeletionGracePeriod(pod: KubeObject, requested: number | undefined): number {
  const spec = (pod.spec as Obj | undefined) ?? {};
  const status = (pod.status as Obj | undefined) ?? {};
  if (!spec.nodeName) return 0;
  if (status.phase === 'Failed' || status.phase === 'Succeeded') return 0;
  const period = requested ?? (spec.terminationGracePeriodSeconds as number | undefined) ?? DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  return Math.max(0, period);
}
