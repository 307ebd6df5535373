// Kubernetes API shapes used across threads. They are the @kubernetes/client-node
// model types, imported for their shape only: every object that crosses a thread
// boundary is a plain JSON object (parsed from YAML/JSON or the API), never a class.
import type {
  V1Pod,
  V1PodSpec,
  V1PodStatus,
  V1Container,
  V1ContainerStatus,
  V1PodCondition,
  V1ObjectMeta,
  V1Volume,
  V1Probe,
  V1LifecycleHandler,
} from '@kubernetes/client-node';

export type Pod = V1Pod;
export type PodSpec = V1PodSpec;
export type PodStatus = V1PodStatus;
export type Container = V1Container;
export type ContainerStatus = V1ContainerStatus;
export type PodCondition = V1PodCondition;
export type ObjectMeta = V1ObjectMeta;
export type Volume = V1Volume;
export type Probe = V1Probe;
export type LifecycleHandler = V1LifecycleHandler;

/** Names of the pod sources, as upstream's kubetypes.FileSource / HTTPSource / ApiserverSource. */
export const FILE_SOURCE = 'file';
export const HTTP_SOURCE = 'http';
export const API_SOURCE = 'api';
export type PodSourceName = typeof FILE_SOURCE | typeof HTTP_SOURCE | typeof API_SOURCE;

/** Operations carried by a PodUpdate, as upstream's kubetypes.PodOperation. */
export type PodOperation = 'SET' | 'ADD' | 'UPDATE' | 'DELETE' | 'REMOVE' | 'RECONCILE';

/** One change from a source (input, op SET: the full set) or from the merge (output). */
export interface PodUpdate {
  op: PodOperation;
  source: string;
  pods: Pod[];
}

/** Upstream's "name_namespace" full name, the key for duplicate detection within a source. */
export function podFullName(pod: Pod): string {
  return `${pod.metadata?.name ?? ''}_${pod.metadata?.namespace ?? ''}`;
}

export function podUid(pod: Pod): string {
  return pod.metadata?.uid ?? '';
}
