// Starting one container, as upstream's kubeGenericRuntimeManager.startContainer:
// make sure its image is there, build its config, CreateContainer, StartContainer.
// A failure is returned as the waiting reason upstream would show for it.
import { ContainerStartError, ShardletError, type ContainerWaitingReason } from '../../shared/errors.js';
import { EventMessages } from '../../shared/events/event-types.js';
import { CONTAINER_TYPE_INIT, CONTAINER_TYPE_REGULAR } from '../../shared/labels.js';
import { findContainer, type RuntimeContainer, type RuntimePodStatus } from '../../shared/runtime-pod.js';
import type { Container, Pod } from '../../shared/types.js';
import type { PodSandboxConfig } from '../../generated/cri/runtime/v1/PodSandboxConfig.js';
import type { PodApiData } from '../../shared/shard-protocol.js';
import { runLifecycleHandler } from '../lifecycle/handlers.js';
import { podIPOf } from '../prober/probe-target.js';
import { buildContainerConfig } from './container-config.js';
import type { ImageUser } from '../images/image-user.js';
import { killContainer, resolveGracePeriodSeconds } from './kill-pod.js';
import { containerLogsDirectory, podLogsDirectory, restartCountFromLogs } from './log-paths.js';
import { containerFieldPath, guardedCreation, recordEvent, recordImagePull, type RuntimeDeps } from './runtime-deps.js';
import type { ContainerConfig } from '../../generated/cri/runtime/v1/ContainerConfig.js';

export interface StartTarget {
  pod: Pod;
  container: Container;
  type: typeof CONTAINER_TYPE_INIT | typeof CONTAINER_TYPE_REGULAR;
  sandboxId: string;
  sandboxConfig: PodSandboxConfig;
  podIPs: string[];
  volumePaths: Record<string, string>;
  runtime: RuntimePodStatus;
  nowMs: number;
  /** Cluster mode: the ConfigMaps, Secrets and tokens the pod refers to. */
  apiData?: PodApiData;
  /** Collects the ID of a container once created (even if it then fails to start). */
  createdIds: string[];
}

/** Waiting reason and message a failed start leaves on the container, as upstream's sync result. */
export interface StartFailure {
  reason: string;
  message: string;
  retryAfterMs?: number;
  /** For the kubelet's log only: the coded error's code and details (a refused subPath's cause, with host paths). */
  logFields?: Record<string, unknown>;
}

/** Starts the container; resolves with undefined on success or the failure to show. */
export async function startContainer(deps: RuntimeDeps, target: StartTarget): Promise<StartFailure | undefined> {
  const { pod, container } = target;
  const fieldPath = containerFieldPath(container.name ?? '', target.type === CONTAINER_TYPE_INIT);
  const image = container.image ?? '';
  let imageRef: string;
  let imageUser: ImageUser | undefined;
  try {
    const onPulling = () => recordEvent(deps, 'Normal', 'Pulling', EventMessages.pullingImage(image), fieldPath);
    const ensured = await deps.images.ensureImage(pod, container, target.nowMs, target.apiData, onPulling);
    imageRef = ensured.imageRef;
    imageUser = ensured.user;
    if (ensured.alreadyPresent) {
      recordEvent(deps, 'Normal', 'Pulled', EventMessages.imageAlreadyPresent(image), fieldPath);
    } else {
      recordImagePull(deps, ensured.pullMs);
      const pulled = EventMessages.pulledImage(image, ensured.pullMs, ensured.pullMs, ensured.sizeBytes);
      recordEvent(deps, 'Normal', 'Pulled', pulled, fieldPath);
    }
  } catch (err) {
    const failure = failureFrom(err, 'ErrImagePull');
    const backingOff = failure.reason === 'ImagePullBackOff';
    recordEvent(deps, backingOff ? 'Normal' : 'Warning', backingOff ? 'BackOff' : 'Failed', failure.message, fieldPath);
    return failure;
  }
  const previous = findContainer(target.runtime, container.name ?? '');
  const restartCount = previous ? previous.restartCount + 1 : await restartCountFromLogs(containerLogsDirectoryOf(deps, pod, container));
  let config;
  try {
    // As generateContainerConfig's getImageUser; the ID, so the user is that of the image the container gets.
    imageUser ??= await deps.images.imageUser(imageRef || image);
    config = await buildContainerConfig({
      pod,
      container,
      type: target.type,
      restartCount,
      imageRef,
      imageUser,
      sandboxConfig: target.sandboxConfig,
      podIPs: target.podIPs,
      settings: deps.settings,
      volumePaths: target.volumePaths,
      apiData: target.apiData,
      recordWarning: (reason, message) => recordEvent(deps, 'Warning', reason, message),
    });
  } catch (err) {
    const failure = failureFrom(err, 'CreateContainerConfigError');
    recordEvent(deps, 'Warning', 'Failed', EventMessages.containerError(failure.message), fieldPath);
    return failure;
  }
  // One permit for both calls: a created container is started at once, not queued behind other pods' creations.
  const outcome = await guardedCreation(deps, 'container', () => createAndStart(deps, target, config, fieldPath));
  if ('reason' in outcome) return outcome;
  const { containerId } = outcome;
  recordEvent(deps, 'Normal', 'Started', EventMessages.startedContainer(container.name ?? ''), fieldPath);
  deps.logger.debug({ pod: pod.metadata?.name, container: container.name, containerId, restartCount }, 'Started container');
  return runPostStartHook(deps, target, containerId);
}

/** CreateContainer then StartContainer, as upstream's startContainer steps 2 and 3; a failure as the waiting reason it leaves. */
async function createAndStart(
  deps: RuntimeDeps,
  target: StartTarget,
  config: ContainerConfig,
  fieldPath: string,
): Promise<{ containerId: string } | StartFailure> {
  let containerId: string;
  try {
    const created = await deps.cri.createContainer({
      pod_sandbox_id: target.sandboxId,
      config,
      sandbox_config: target.sandboxConfig,
    });
    containerId = created.container_id;
    target.createdIds.push(containerId);
  } catch (err) {
    // The image may be gone (removed by hand since this shard saw it): the next attempt asks the runtime.
    deps.images.forgetImage(target.container.image ?? '');
    recordEvent(deps, 'Warning', 'Failed', EventMessages.containerError((err as Error).message), fieldPath);
    return { reason: 'CreateContainerError', message: (err as Error).message };
  }
  recordEvent(deps, 'Normal', 'Created', EventMessages.createdContainer(target.container.name ?? ''), fieldPath);
  try {
    await deps.cri.startContainer({ container_id: containerId });
  } catch (err) {
    recordEvent(deps, 'Warning', 'Failed', EventMessages.containerError((err as Error).message), fieldPath);
    return { reason: 'RunContainerError', message: (err as Error).message };
  }
  return { containerId };
}

/** Upstream's waiting reason for a container whose postStart hook failed (ErrPostStartHook). */
export const POST_START_HOOK_ERROR = 'PostStartHookError';

/**
 * As upstream's startContainer step 4: the postStart hook runs right after
 * StartContainer; if it fails the container is killed (its restart is the restart
 * policy's business) and the sync reports PostStartHookError.
 */
async function runPostStartHook(deps: RuntimeDeps, target: StartTarget, containerId: string): Promise<StartFailure | undefined> {
  const { pod, container } = target;
  const handler = container.lifecycle?.postStart;
  if (!handler) return undefined;
  const podIP = podIPOf(pod, target.podIPs, deps.settings.hostIP);
  const failure = await runLifecycleHandler(deps.cri, handler, { pod, container, containerId, podIP });
  if (failure === undefined) return undefined;
  deps.logger.warn({ pod: pod.metadata?.name, container: container.name, containerId, err: failure }, 'Failed to execute PostStartHook');
  const init = target.type === CONTAINER_TYPE_INIT;
  // As upstream, the event leaves the hook's output out, which may hold secrets.
  recordEvent(deps, 'Warning', 'FailedPostStartHook', 'PostStartHook failed', containerFieldPath(container.name, init));
  const started: RuntimeContainer = {
    id: containerId,
    name: container.name,
    hash: '',
    restartCount: 0,
    type: init ? 'INIT' : 'REGULAR',
    sandboxId: target.sandboxId,
    state: 'running',
    createdAtMs: 0,
    startedAtMs: 0,
    finishedAtMs: 0,
    exitCode: 0,
    reason: '',
    message: '',
    image: container.image ?? '',
    imageRef: '',
  };
  try {
    await killContainer(deps, started, resolveGracePeriodSeconds(pod), 'FailedPostStartHook', { pod, eventMessage: 'FailedPostStartHook' });
  } catch (err) {
    deps.logger.error({ pod: pod.metadata?.name, container: container.name, err: (err as Error).message }, 'Failed to kill container');
  }
  return { reason: POST_START_HOOK_ERROR, message: failure };
}

/** The step's own reason when it said one, else the reason upstream gives a failure of that step. */
function failureFrom(err: unknown, defaultReason: ContainerWaitingReason): StartFailure {
  if (err instanceof ContainerStartError) return { reason: err.reason, message: err.message, retryAfterMs: err.retryAfterMs };
  const logFields = err instanceof ShardletError ? { code: err.code, ...err.details } : undefined;
  return { reason: defaultReason, message: (err as Error).message, ...(logFields ? { logFields } : {}) };
}

function containerLogsDirectoryOf(deps: RuntimeDeps, pod: Pod, container: Container): string {
  const meta = pod.metadata ?? {};
  const podDirectory = podLogsDirectory(deps.settings.podLogsDir, meta.namespace ?? '', meta.name ?? '', meta.uid ?? '');
  return containerLogsDirectory(podDirectory, container.name ?? '');
}
