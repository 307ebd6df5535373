// Labels and annotations put on CRI sandboxes and containers, as upstream's
// kuberuntime/labels.go (newPodLabels, newPodAnnotations, newContainerLabels,
// newContainerAnnotations). They are how a restarted shard rebuilds its view from
// the runtime, so runtime-status.ts reads back exactly these keys.
import { hashContainer } from '../../shared/kuberuntime/container-hash.js';
import {
  CONTAINER_HASH_ANNOTATION,
  CONTAINER_NAME_LABEL,
  CONTAINER_PORTS_ANNOTATION,
  CONTAINER_PRE_STOP_HANDLER_ANNOTATION,
  CONTAINER_RESTART_COUNT_ANNOTATION,
  CONTAINER_TERMINATION_MESSAGE_PATH_ANNOTATION,
  CONTAINER_TERMINATION_MESSAGE_POLICY_ANNOTATION,
  CONTAINER_TYPE_INIT,
  CONTAINER_TYPE_LABEL,
  CONTAINER_TYPE_REGULAR,
  POD_DELETION_GRACE_PERIOD_ANNOTATION,
  POD_NAME_LABEL,
  POD_NAMESPACE_LABEL,
  POD_TERMINATION_GRACE_PERIOD_ANNOTATION,
  POD_UID_LABEL,
} from '../../shared/labels.js';
import { DEFAULT_TERMINATION_MESSAGE_PATH } from '../../shared/manifest/pod-defaults.js';
import type { Container, Pod } from '../../shared/types.js';
import type { V1ContainerPort } from '@kubernetes/client-node';

/** API default for container.terminationMessagePolicy. */
export const DEFAULT_TERMINATION_MESSAGE_POLICY = 'File';

export type ContainerType = typeof CONTAINER_TYPE_INIT | typeof CONTAINER_TYPE_REGULAR;

/** The pod's own labels plus its name, namespace and UID. */
export function newPodLabels(pod: Pod): Record<string, string> {
  return {
    ...(pod.metadata?.labels ?? {}),
    [POD_NAME_LABEL]: pod.metadata?.name ?? '',
    [POD_NAMESPACE_LABEL]: pod.metadata?.namespace ?? '',
    [POD_UID_LABEL]: pod.metadata?.uid ?? '',
  };
}

export function newPodAnnotations(pod: Pod): Record<string, string> {
  return { ...(pod.metadata?.annotations ?? {}) };
}

/**
 * Pod name, namespace, UID and container name, plus the container type. Upstream
 * keeps the type in an annotation ("init" / "container"); shardlet's relist reads
 * this label (INIT / REGULAR) so it can filter on it.
 */
export function newContainerLabels(pod: Pod, container: Container, type: ContainerType): Record<string, string> {
  return {
    [POD_NAME_LABEL]: pod.metadata?.name ?? '',
    [POD_NAMESPACE_LABEL]: pod.metadata?.namespace ?? '',
    [POD_UID_LABEL]: pod.metadata?.uid ?? '',
    [CONTAINER_NAME_LABEL]: container.name,
    [CONTAINER_TYPE_LABEL]: type,
  };
}

/** What killing and status need without the pod spec: hash, restart count, grace periods, preStop, ports. */
export function newContainerAnnotations(pod: Pod, container: Container, restartCount: number): Record<string, string> {
  const annotations: Record<string, string> = {
    [CONTAINER_HASH_ANNOTATION]: hashContainer(container),
    [CONTAINER_RESTART_COUNT_ANNOTATION]: String(restartCount),
    [CONTAINER_TERMINATION_MESSAGE_PATH_ANNOTATION]:
      container.terminationMessagePath ?? DEFAULT_TERMINATION_MESSAGE_PATH,
    [CONTAINER_TERMINATION_MESSAGE_POLICY_ANNOTATION]:
      container.terminationMessagePolicy ?? DEFAULT_TERMINATION_MESSAGE_POLICY,
  };
  const deletionGrace = pod.metadata?.deletionGracePeriodSeconds;
  if (deletionGrace !== undefined && deletionGrace !== null) {
    annotations[POD_DELETION_GRACE_PERIOD_ANNOTATION] = String(deletionGrace);
  }
  const terminationGrace = pod.spec?.terminationGracePeriodSeconds;
  if (terminationGrace !== undefined && terminationGrace !== null) {
    annotations[POD_TERMINATION_GRACE_PERIOD_ANNOTATION] = String(terminationGrace);
  }
  const preStop = container.lifecycle?.preStop;
  if (preStop) annotations[CONTAINER_PRE_STOP_HANDLER_ANNOTATION] = JSON.stringify(preStop);
  if ((container.ports ?? []).length > 0) {
    annotations[CONTAINER_PORTS_ANNOTATION] = JSON.stringify((container.ports ?? []).map(goOrderedPort));
  }
  return annotations;
}

/** A ContainerPort with Go's field order and omitempty, so the JSON matches the upstream kubelet's. */
function goOrderedPort(port: V1ContainerPort): Record<string, unknown> {
  const ordered: Record<string, unknown> = {};
  if (port.name) ordered.name = port.name;
  if (port.hostPort) ordered.hostPort = port.hostPort;
  ordered.containerPort = port.containerPort;
  ordered.protocol = port.protocol ?? 'TCP';
  if (port.hostIP) ordered.hostIP = port.hostIP;
  return ordered;
}
