// The kubelet's view of one pod as the runtime holds it: upstream's
// kubecontainer.PodStatus, reduced to what computePodActions and the API status
// need. A shard builds it from CRI calls (ListPodSandbox / ListContainers filtered by
// the pod UID label, plus PodSandboxStatus and ContainerStatus); it is plain data.
import type { LifecycleHandler } from './types.js';

export type SandboxState = 'ready' | 'notready';
export type ContainerRuntimeState = 'created' | 'running' | 'exited' | 'unknown';

export interface RuntimeSandbox {
  id: string;
  state: SandboxState;
  /** metadata.attempt of the sandbox: 0 for the first sandbox of a pod, +1 for each re-creation. */
  attempt: number;
  createdAtMs: number;
  /** Primary pod IP then the others; empty for hostNetwork pods or before the network is set up. */
  ips: string[];
  hostNetwork: boolean;
}

export interface RuntimeContainer {
  id: string;
  name: string;
  /** Value of the io.kubernetes.container.hash annotation: the spec hash it was created from. */
  hash: string;
  /** Value of io.kubernetes.container.restartCount. */
  restartCount: number;
  /** 'INIT' or 'REGULAR' (io.kubernetes.container.type). */
  type: 'INIT' | 'REGULAR';
  sandboxId: string;
  state: ContainerRuntimeState;
  createdAtMs: number;
  startedAtMs: number;
  finishedAtMs: number;
  exitCode: number;
  reason: string;
  message: string;
  /** Image as the spec named it, and the resolved image reference (digest or ID). */
  image: string;
  imageRef: string;
  /** From io.kubernetes.pod.terminationGracePeriod: lets an orphan be killed without its spec. */
  terminationGracePeriodSeconds?: number;
  /** From io.kubernetes.container.preStopHandler: an orphan's preStop hook still runs, as upstream restores it. */
  preStop?: LifecycleHandler;
  /** The identity the container's first process started with, when the runtime reports it (ContainerStatus.user). */
  user?: { uid: number; gid: number; supplementalGroups: number[] };
}

export interface RuntimePodStatus {
  uid: string;
  name: string;
  namespace: string;
  /** Newest first (by createdAt), as upstream sorts them. */
  sandboxes: RuntimeSandbox[];
  /** Newest first (by createdAt) within each name. */
  containers: RuntimeContainer[];
}

/** Newest container of the given name, as upstream's PodStatus.FindContainerStatusByName. */
export function findContainer(status: RuntimePodStatus, name: string): RuntimeContainer | undefined {
  let newest: RuntimeContainer | undefined;
  for (const container of status.containers) {
    if (container.name !== name) continue;
    if (!newest || container.createdAtMs > newest.createdAtMs) newest = container;
  }
  return newest;
}
