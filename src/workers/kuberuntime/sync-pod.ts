// One pod sync inside a shard, as upstream's kubeGenericRuntimeManager.SyncPod:
// read the pod's runtime state, computePodActions, then carry the actions out in
// upstream's order (kill pod if the sandbox changed, kill unwanted containers, create
// the sandbox, start the next init container or the app containers).
import type { PodActions } from '../../shared/kuberuntime/compute-pod-actions.js';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { EventMessages } from '../../shared/events/event-types.js';
import { computePodActions } from '../../shared/kuberuntime/compute-pod-actions.js';
import { killMessageIsEvent } from '../../shared/kuberuntime/pod-actions.js';
import type { PodProbeResults } from '../../shared/prober/probe-results.js';
import { CONTAINER_TYPE_INIT, CONTAINER_TYPE_REGULAR } from '../../shared/labels.js';
import type { RuntimeContainer, RuntimePodStatus, RuntimeSandbox } from '../../shared/runtime-pod.js';
import type { PodApiData } from '../../shared/shard-protocol.js';
import type { Container, Pod } from '../../shared/types.js';
import type { PodSandboxConfig } from '../../generated/cri/runtime/v1/PodSandboxConfig.js';
import { setupPodVolumes } from '../volumes/pod-volumes.js';
import { killContainer, killPod, mayBeRunning, removeDeadInstances, resolveGracePeriodSeconds } from './kill-pod.js';
import { containerFieldPath, guardedCreation, recordEvent, type RuntimeDeps } from './runtime-deps.js';
import { emptyRuntimePodStatus, getRuntimePodStatus, readCreatedContainer, sandboxFromStatus } from './runtime-status.js';
import { buildSandboxConfig } from './sandbox-config.js';
import { ensurePodCgroup } from '../cm/pod-cgroup.js';
import { startContainer, type StartFailure } from './start-container.js';
import { podRef } from '../../shared/pod-kinds.js';

export interface SyncOutcome {
  /** Runtime state after the sync's actions. */
  runtime: RuntimePodStatus;
  /** Runtime state the actions were computed from. */
  before: RuntimePodStatus;
  /** Waiting reasons per container name left by this sync (CrashLoopBackOff, ErrImagePull, ...). */
  waitingReasons: Record<string, { reason: string; message: string }>;
  /** Earliest time something in backoff becomes due, if any. */
  requeueAfterMs?: number;
  /** The requeue needs no fresh read: it is for what this sync saw (SyncPodResult.requeueOnKeptState). */
  requeueOnKeptState?: boolean;
  /** Set when the runtime did something worth a fresh read of the state. */
  changed: boolean;
  /** Set when something was stopped or killed: only a full read shows what is left. */
  killed: boolean;
  /** What this sync created: the runtime state afterwards is the state before plus these. */
  createdSandbox?: RuntimeSandbox;
  createdContainerIds: string[];
  /** The init container this sync started, if it did. */
  startedInitId?: string;
  /** Dead containers and sandboxes this sync's GC removed. */
  removedIds: string[];
}

/** How soon a pod whose init container is still running is looked at again, when the runtime sends no container events. */
export const INIT_CONTAINER_RECHECK_MS = 100;
/** The smallest requeue the pod worker runs on its own timer (0 waits for the sync tick). */
const REQUEUE_AT_ONCE_MS = 1;

export interface SyncPodOptions {
  /** The main thread knows the runtime holds nothing of this pod yet (its first sync): skip the read. */
  runtimeKnownEmpty?: boolean;
  /** The runtime state the pod's last sync left, which no relist since contradicts: skip the read. */
  runtimeKnown?: RuntimePodStatus;
  apiData?: PodApiData;
  /** The shard's probe results for the pod's containers: a liveness or startup failure restarts one. */
  probeResults?: (runtime: RuntimePodStatus) => PodProbeResults;
  /** Whether the pod's API status from this runtime state has a terminal phase (Succeeded or Failed). */
  statusIsTerminal?: (runtime: RuntimePodStatus) => boolean;
}

/** Brings the runtime in line with the pod spec. */
export async function syncPod(deps: RuntimeDeps, pod: Pod, nowMs: number, options: SyncPodOptions = {}): Promise<SyncOutcome> {
  const { apiData } = options;
  const uid = pod.metadata?.uid ?? '';
  const name = pod.metadata?.name ?? '';
  const namespace = pod.metadata?.namespace ?? '';
  const runtime =
    options.runtimeKnown ??
    (options.runtimeKnownEmpty ? emptyRuntimePodStatus(uid, name, namespace) : await getRuntimePodStatus(deps.cri, uid, name, namespace));
  const actions = computePodActions(pod, runtime, nowMs, options.probeResults?.(runtime));
  const outcome: SyncOutcome = { runtime, before: runtime, waitingReasons: {}, changed: false, killed: false, createdContainerIds: [], removedIds: [] };
  if (podFinished(pod, runtime, actions, options)) return outcome;
  for (const entry of actions.backoff) {
    outcome.waitingReasons[entry.name] = { reason: 'CrashLoopBackOff', message: entry.message };
    const init = (pod.spec?.initContainers ?? []).some((c) => c.name === entry.name);
    const meta = pod.metadata ?? {};
    const message = EventMessages.backOffRestartingContainer(entry.name, meta.name ?? '', meta.namespace ?? '', meta.uid ?? '');
    recordEvent(deps, 'Warning', 'BackOff', message, containerFieldPath(entry.name, init));
    noteRequeue(outcome, entry.untilMs - nowMs);
  }
  if (actions.killPod) {
    // A new pod also gets killPod (upstream: creating a sandbox implies killing the old one); only a real one is worth a word.
    if (runtime.sandboxes.length > 0 || runtime.containers.length > 0) {
      deps.logger.info({ pod: podRef(pod), createSandbox: actions.createSandbox }, 'Killing pod: its sandbox changed or its work is done');
      await killPod(deps, runtime, pod);
      outcome.changed = true;
      outcome.killed = true;
    }
    if (!actions.createSandbox) return outcome;
  } else if (actions.containersToKill.length > 0) {
    const grace = resolveGracePeriodSeconds(pod);
    await Promise.all(
      actions.containersToKill.map((target) => {
        const container = runtime.containers.find((c) => c.id === target.id);
        const eventMessage = killMessageIsEvent(target.reason) ? target.message : undefined;
        return container ? killContainer(deps, container, grace, target.reason, { pod, eventMessage }) : undefined;
      }),
    );
    outcome.changed = true;
    outcome.killed = true;
  }
  if (actions.initFailed) return outcome;
  // Volumes are set up at every sync of a live pod, as upstream's WaitForAttachAndMount,
  // so that an updated ConfigMap or Secret reaches running containers.
  const volumePaths = await setUpVolumes(deps, pod, apiData);
  await startWhatIsDue(deps, { pod, runtime, actions, outcome, nowMs, volumePaths, apiData });
  if (outcome.changed) outcome.runtime = await runtimeAfterActions(deps, outcome);
  if (outcome.startedInitId) noteInitContainerRecheck(outcome, outcome.startedInitId, deps.runtimeEventsLive?.() ?? false);
  outcome.removedIds = await removeDeadInstances(deps, outcome.runtime);
  return outcome;
}

/**
 * A pod whose work is done (no container runs or will run again) and whose status
 * is terminal is not killed here: as upstream's SyncPod, which returns isTerminal
 * before containerRuntime.SyncPod, the sync ends with the terminal status, which
 * the pod worker passes on (status manager, API server) before its
 * SyncTerminatingPod stops the sandbox. A Job's completion is then not held up by a
 * StopPodSandbox that takes long. Nothing of the pod runs any more, so the phase
 * tells no lie about exclusive resources (upstream's mergePodStatus guard).
 */
function podFinished(pod: Pod, runtime: RuntimePodStatus, actions: PodActions, options: SyncPodOptions): boolean {
  if (!actions.killPod || actions.createSandbox || runtime.containers.some(mayBeRunning)) return false;
  return options.statusIsTerminal?.(runtime) ?? false;
}

/**
 * Init containers are meant to finish, and the next one (or the app containers)
 * waits for that: rather than leave the pod to the next relist (up to a second
 * later), one that already exited brings the next sync at once. One still running
 * is the runtime's to announce: with container events its exit event wakes the
 * pod (a per-pod relist), so nothing is polled; without them (containerd 1.6) it
 * gets one more look shortly after, and past that the relist tells.
 */
function noteInitContainerRecheck(outcome: SyncOutcome, initId: string, runtimeEventsLive: boolean): void {
  const init = outcome.runtime.containers.find((container) => container.id === initId);
  if (init?.state === 'exited') {
    noteRequeue(outcome, REQUEUE_AT_ONCE_MS);
    // Its exit is in the state this sync read after starting it: the next step starts from that.
    outcome.requeueOnKeptState = true;
  } else if (init?.state === 'running' && !runtimeEventsLive) noteRequeue(outcome, INIT_CONTAINER_RECHECK_MS);
}

/**
 * The pod's runtime state once the actions are done. After a kill only a full read
 * tells what is left; when the sync only created things, the state is the one read
 * before plus the new sandbox and the new containers' statuses (this shard is the
 * only one acting on the pod, and anything else that happens shows in the relist).
 */
async function runtimeAfterActions(deps: RuntimeDeps, outcome: SyncOutcome): Promise<RuntimePodStatus> {
  const before = outcome.runtime;
  if (outcome.killed) return getRuntimePodStatus(deps.cri, before.uid, before.name, before.namespace);
  const sandboxes = outcome.createdSandbox ? [outcome.createdSandbox, ...before.sandboxes] : before.sandboxes;
  const sandboxId = sandboxes[0]?.id ?? '';
  const created = await Promise.all(outcome.createdContainerIds.map((id) => readCreatedContainer(deps.cri, id, sandboxId)));
  const containers = [...created.filter((c): c is RuntimeContainer => c !== undefined), ...before.containers];
  containers.sort((a, b) => b.createdAtMs - a.createdAtMs);
  return { ...before, sandboxes, containers };
}

/** Upstream's FailedMount: the pod stays in ContainerCreating and the sync is retried. */
async function setUpVolumes(deps: RuntimeDeps, pod: Pod, apiData: PodApiData | undefined): Promise<Record<string, string>> {
  try {
    return await setupPodVolumes(pod, deps.settings, apiData);
  } catch (err) {
    recordEvent(deps, 'Warning', 'FailedMount', (err as Error).message);
    throw err;
  }
}

interface StartPlan {
  pod: Pod;
  runtime: RuntimePodStatus;
  actions: PodActions;
  outcome: SyncOutcome;
  nowMs: number;
  volumePaths: Record<string, string>;
  apiData?: PodApiData;
}

async function startWhatIsDue(deps: RuntimeDeps, plan: StartPlan): Promise<void> {
  const { pod, runtime, actions, outcome, nowMs, volumePaths, apiData } = plan;
  const initToStart = actions.nextInitContainerToStart;
  if (!actions.createSandbox && initToStart === null && actions.containersToStart.length === 0) return;
  const sandboxConfig = await buildSandboxConfig(pod, actions.attempt, deps.settings);
  let sandboxId = actions.sandboxId;
  let podIPs = runtime.sandboxes[0]?.ips ?? [];
  if (actions.createSandbox) {
    // Upstream's podContainerManager.EnsureExists: the pod's cgroup before its sandbox.
    await ensurePodCgroup(pod, deps.settings.podCgroups, deps.settings.podPidsLimit);
    const created = await createSandbox(deps, pod, sandboxConfig);
    sandboxId = created.id;
    podIPs = created.ips;
    outcome.createdSandbox = created;
    outcome.changed = true;
  }
  const createdIds = outcome.createdContainerIds;
  const base = { pod, sandboxId, sandboxConfig, podIPs, volumePaths, runtime, nowMs, apiData, createdIds };
  if (initToStart !== null) {
    const container = (pod.spec?.initContainers ?? []).find((c) => c.name === initToStart);
    if (container) await start(deps, { ...base, container, type: CONTAINER_TYPE_INIT }, outcome);
    outcome.startedInitId = createdIds[createdIds.length - 1];
    return;
  }
  // Upstream starts app containers one after the other, in spec order.
  for (const name of actions.containersToStart) {
    const container = (pod.spec?.containers ?? []).find((c: Container) => c.name === name);
    if (container) await start(deps, { ...base, container, type: CONTAINER_TYPE_REGULAR }, outcome);
  }
}

async function start(
  deps: RuntimeDeps,
  target: Parameters<typeof startContainer>[1],
  outcome: SyncOutcome,
): Promise<void> {
  const failure: StartFailure | undefined = await startContainer(deps, target);
  const name = target.container.name ?? '';
  if (!failure) {
    outcome.changed = true;
    return;
  }
  deps.logger.warn(
    { ...failure.logFields, pod: podRef(target.pod), container: name, reason: failure.reason, err: failure.message },
    'Container start failed',
  );
  outcome.waitingReasons[name] = { reason: failure.reason, message: failure.message };
  outcome.changed = true;
  noteRequeue(outcome, failure.retryAfterMs ?? 0);
}

/** RunPodSandbox, then its status for the pod IPs (as upstream, which needs them for the containers' env). */
async function createSandbox(deps: RuntimeDeps, pod: Pod, config: PodSandboxConfig): Promise<RuntimeSandbox> {
  let sandboxId: string;
  try {
    const created = await guardedCreation(deps, 'sandbox', () => deps.cri.runPodSandbox({ config, runtime_handler: '' }));
    sandboxId = created.pod_sandbox_id;
  } catch (err) {
    // Upstream's FailedCreatePodSandBox: the pod stays in ContainerCreating and the sync is retried with backoff.
    recordEvent(deps, 'Warning', 'FailedCreatePodSandBox', EventMessages.failedCreatePodSandbox((err as Error).message));
    throw new ShardletError(ErrorCodes.RUN_SANDBOX, `Failed to create pod sandbox for ${podRef(pod)}: ${(err as Error).message}`, {
      reason: 'FailedCreatePodSandBox',
    });
  }
  const status = (await deps.cri.podSandboxStatus({ pod_sandbox_id: sandboxId, verbose: false })).status;
  const sandbox: RuntimeSandbox = status
    ? sandboxFromStatus(status)
    : { id: sandboxId, state: 'ready', attempt: config.metadata?.attempt ?? 0, createdAtMs: Date.now(), ips: [], hostNetwork: false };
  deps.logger.debug({ pod: podRef(pod), sandboxId, podIPs: sandbox.ips }, 'Created pod sandbox');
  return sandbox;
}

function noteRequeue(outcome: SyncOutcome, afterMs: number): void {
  const due = Math.max(afterMs, 0);
  outcome.requeueAfterMs = outcome.requeueAfterMs === undefined ? due : Math.min(outcome.requeueAfterMs, due);
}
