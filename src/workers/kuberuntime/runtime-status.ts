// Builds a pod's RuntimePodStatus from the runtime alone, as upstream's
// kubeGenericRuntimeManager.GetPodStatus: sandboxes and containers are found by the
// io.kubernetes.pod.uid label, so a replaced shard or a restarted kubelet sees
// exactly what the runtime holds.
import type { CriClient } from '../../shared/cri/client.js';
import { isNotFound } from '../../shared/cri/client.js';
import {
  CONTAINER_HASH_ANNOTATION,
  CONTAINER_NAME_LABEL,
  CONTAINER_PRE_STOP_HANDLER_ANNOTATION,
  CONTAINER_RESTART_COUNT_ANNOTATION,
  CONTAINER_TYPE_INIT,
  CONTAINER_TYPE_LABEL,
  POD_NAME_LABEL,
  POD_NAMESPACE_LABEL,
  POD_TERMINATION_GRACE_PERIOD_ANNOTATION,
  POD_UID_LABEL,
} from '../../shared/labels.js';
import type {
  ContainerRuntimeState,
  RuntimeContainer,
  RuntimePodStatus,
  RuntimeSandbox,
} from '../../shared/runtime-pod.js';
import type { LifecycleHandler } from '../../shared/types.js';
import type { ContainerLean, ContainerStatusLean, PodSandboxLean, PodSandboxStatusLean } from '../../shared/cri/types.js';

const NS_PER_MS = 1_000_000;

const CONTAINER_STATES: Record<string, ContainerRuntimeState> = {
  CONTAINER_CREATED: 'created',
  CONTAINER_RUNNING: 'running',
  CONTAINER_EXITED: 'exited',
  CONTAINER_UNKNOWN: 'unknown',
};

/** The view of a pod the runtime holds nothing of. */
export function emptyRuntimePodStatus(uid: string, name: string, namespace: string): RuntimePodStatus {
  return { uid, name, namespace, sandboxes: [], containers: [] };
}

/** Reads the runtime's view of one pod. */
export async function getRuntimePodStatus(
  cri: CriClient,
  uid: string,
  name: string,
  namespace: string,
): Promise<RuntimePodStatus> {
  const selector = { [POD_UID_LABEL]: uid };
  const [sandboxList, containerList] = await Promise.all([
    cri.listPodSandbox({ filter: { label_selector: selector } }),
    cri.listContainers({ filter: { label_selector: selector } }),
  ]);
  const sandboxItems = [...sandboxList.items].sort((a, b) => Number(b.created_at) - Number(a.created_at));
  const sandboxes = await Promise.all(sandboxItems.map((item, index) => readSandbox(cri, item, index === 0)));
  const containers = await Promise.all(containerList.containers.map((item) => readContainer(cri, item)));
  const found = containers.filter((c): c is RuntimeContainer => c !== undefined);
  found.sort((a, b) => b.createdAtMs - a.createdAtMs);
  const labels = sandboxItems[0]?.labels ?? {};
  return {
    uid,
    name: name || labels[POD_NAME_LABEL] || '',
    namespace: namespace || labels[POD_NAMESPACE_LABEL] || '',
    sandboxes: sandboxes.filter((s): s is RuntimeSandbox => s !== undefined),
    containers: found,
  };
}

/** Only the newest sandbox needs its network status (as upstream, which asks for every one; older ones are dead). */
async function readSandbox(cri: CriClient, item: PodSandboxLean, newest: boolean): Promise<RuntimeSandbox | undefined> {
  const sandbox: RuntimeSandbox = {
    id: item.id,
    state: item.state === 'SANDBOX_READY' ? 'ready' : 'notready',
    attempt: item.metadata?.attempt ?? 0,
    createdAtMs: Number(item.created_at) / NS_PER_MS,
    ips: [],
    hostNetwork: false,
  };
  if (!newest) return sandbox;
  try {
    const reply = await cri.podSandboxStatus({ pod_sandbox_id: item.id, verbose: false });
    return reply.status ? sandboxFromStatus(reply.status) : sandbox;
  } catch (err) {
    if (isNotFound(err)) return undefined; // removed between the list and the status call
    throw err;
  }
}

/** A sandbox as its PodSandboxStatus shows it (state, network, namespaces). */
export function sandboxFromStatus(status: PodSandboxStatusLean): RuntimeSandbox {
  const network = status.network;
  return {
    id: status.id,
    state: status.state === 'SANDBOX_READY' ? 'ready' : 'notready',
    attempt: status.metadata?.attempt ?? 0,
    createdAtMs: Number(status.created_at) / NS_PER_MS,
    ips: network?.ip ? [network.ip, ...network.additional_ips.map((extra) => extra.ip).filter(Boolean)] : [],
    hostNetwork: status.linux?.namespaces?.options?.network === 'NODE',
  };
}

/** Reads one container the caller just made in `sandboxId`; undefined if it is already gone. */
export async function readCreatedContainer(cri: CriClient, containerId: string, sandboxId: string): Promise<RuntimeContainer | undefined> {
  const status = await containerStatusOf(cri, containerId);
  if (!status) return undefined;
  // ContainerStatus carries the same labels and annotations as the list entry; only the sandbox ID is ours to add.
  const item: ContainerLean = {
    id: status.id,
    pod_sandbox_id: sandboxId,
    metadata: status.metadata,
    image: status.image,
    image_ref: status.image_ref,
    state: status.state,
    created_at: status.created_at,
    labels: status.labels,
    annotations: status.annotations,
  };
  return toRuntimeContainer(item, status);
}

async function readContainer(cri: CriClient, item: ContainerLean): Promise<RuntimeContainer | undefined> {
  const status = await containerStatusOf(cri, item.id);
  return status === undefined ? undefined : toRuntimeContainer(item, status);
}

/** The container's status; undefined when it was removed in the meantime. */
async function containerStatusOf(cri: CriClient, containerId: string): Promise<ContainerStatusLean | null | undefined> {
  try {
    return (await cri.containerStatus({ container_id: containerId, verbose: false })).status;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Merges the list entry (labels, sandbox) with the status (times, exit code, reason). */
export function toRuntimeContainer(item: ContainerLean, status: ContainerStatusLean | null): RuntimeContainer {
  const labels = item.labels ?? {};
  const annotations = item.annotations ?? {};
  return {
    id: item.id,
    name: labels[CONTAINER_NAME_LABEL] ?? item.metadata?.name ?? '',
    hash: annotations[CONTAINER_HASH_ANNOTATION] ?? '',
    restartCount: Number(annotations[CONTAINER_RESTART_COUNT_ANNOTATION] ?? item.metadata?.attempt ?? 0) || 0,
    type: labels[CONTAINER_TYPE_LABEL] === CONTAINER_TYPE_INIT ? 'INIT' : 'REGULAR',
    sandboxId: item.pod_sandbox_id,
    state: CONTAINER_STATES[status?.state ?? item.state] ?? 'unknown',
    createdAtMs: Number(status?.created_at ?? item.created_at) / NS_PER_MS,
    startedAtMs: Number(status?.started_at ?? 0) / NS_PER_MS,
    finishedAtMs: Number(status?.finished_at ?? 0) / NS_PER_MS,
    exitCode: status?.exit_code ?? 0,
    reason: status?.reason ?? '',
    message: status?.message ?? '',
    image: status?.image?.image ?? item.image?.image ?? '',
    imageRef: status?.image_ref ?? item.image_ref ?? '',
    terminationGracePeriodSeconds: optionalNumber(annotations[POD_TERMINATION_GRACE_PERIOD_ANNOTATION]),
    preStop: optionalHandler(annotations[CONTAINER_PRE_STOP_HANDLER_ANNOTATION]),
    ...runtimeUser(status),
  };
}

/** ContainerStatus.user's linux part, as upstream's convertContainerStatusUser reads it. */
function runtimeUser(status: ContainerStatusLean | null): Pick<RuntimeContainer, 'user'> {
  const linux = status?.user?.linux;
  return linux ? { user: { uid: linux.uid, gid: linux.gid, supplementalGroups: [...linux.supplemental_groups] } } : {};
}

/** The preStop handler a kubelet recorded on the container; anything unreadable is no handler. */
function optionalHandler(value: string | undefined): LifecycleHandler | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(value) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as LifecycleHandler) : undefined;
  } catch {
    return undefined;
  }
}

function optionalNumber(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}
