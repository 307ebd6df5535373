// A shard: the pods whose UID hashes to it, synced over the shard's own CRI
// channel. The same class runs inside a worker thread (shard-worker.ts) or, with
// --workers 0, in the main thread.
import type { Logger } from 'pino';
import { toWire } from '../shared/errors.js';
import type { RuntimePodStatus } from '../shared/runtime-pod.js';
import type {
  EventPodRef,
  PodEventRecord,
  ProbeStats,
  PullCoordinatorApi,
  ShardMessage,
  ShardSettings,
  SyncPodRequest,
  SyncPodResult,
} from '../shared/shard-protocol.js';
import { runtimeObjectStates } from '../shared/pleg/relist-diff.js';
import { RuntimeEventsFlag } from '../shared/pleg/runtime-events-flag.js';
import { generatePodStatus } from '../shared/status/generate-pod-status.js';
import { isTerminalPhase } from '../shared/status/pod-phase.js';
import type { Pod, PodStatus } from '../shared/types.js';
import type { WaitingReasons } from '../shared/status/container-statuses.js';
import { ImageManager } from './images/image-manager.js';
import { ImagePresence } from './images/image-presence.js';
import { ImageRemovals } from '../shared/images/image-removals.js';
import { killPod, podStopped, removePodFromRuntime } from './kuberuntime/kill-pod.js';
import { removePodCgroup } from './cm/pod-cgroup.js';
import type { RuntimeDeps } from './kuberuntime/runtime-deps.js';
import { getRuntimePodStatus } from './kuberuntime/runtime-status.js';
import { syncPod } from './kuberuntime/sync-pod.js';
import { openShardCri } from './shard-cri.js';
import { creationGateFor } from './kuberuntime/creation-gate.js';
import { createProbeRunner } from './prober/prober.js';
import { ProberManager } from './prober/prober-manager.js';
import { teardownPodVolumes } from './volumes/pod-volumes.js';
import { podPathsMade } from './volumes/pod-paths-made.js';

export class Shard {
  private readonly deps: RuntimeDeps;
  private readonly prober: ProberManager;
  private runtimeName: Promise<string> | undefined;
  /** Each pod's runtime state as its last successful sync left it: what a sync with `runtimeUnchanged` starts from. */
  private readonly runtimeByUid = new Map<string, RuntimePodStatus>();

  /** `post` is the one way probe result changes and pod events leave the shard (to the main thread), in order. */
  constructor(
    readonly index: number,
    settings: ShardSettings,
    pulls: PullCoordinatorApi,
    logger: Logger,
    private readonly post: (message: ShardMessage) => void = () => undefined,
  ) {
    const cri = openShardCri(settings);
    const shardLogger = logger.child({ shard: index });
    const runtimeEvents = new RuntimeEventsFlag(settings.runtimeEventsLive);
    this.deps = {
      cri,
      settings,
      logger: shardLogger,
      images: new ImageManager(cri, pulls, index, shardLogger, new ImagePresence(new ImageRemovals(settings.imageRemovals))),
      // Each sync binds its own, to its pod.
      publishEvent: () => undefined,
      runtimeEventsLive: () => runtimeEvents.live(),
      creations: creationGateFor(settings, index),
    };
    this.prober = new ProberManager({ run: createProbeRunner(cri), logger: shardLogger, onResultChange: post, hostIP: settings.hostIP });
  }

  /** Runs one SyncPod / SyncTerminatingPod / SyncTerminatedPod for a pod. */
  async sync(request: SyncPodRequest): Promise<SyncPodResult> {
    const pod = request.pod;
    const uid = pod.metadata?.uid ?? '';
    const nowMs = Date.now();
    const eventPod: EventPodRef = { uid, name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '' };
    const publishEvent = (event: PodEventRecord) => this.post({ kind: 'pod-event', pod: eventPod, event });
    // Probe events since the pod's last sync come first: they happened before this sync.
    this.publishProbeEvents(uid, publishEvent);
    // The shard's clients and caches are shared; each sync's events name its pod.
    const deps: RuntimeDeps = { ...this.deps, publishEvent };
    const errors = [];
    let runtime: RuntimePodStatus;
    let actedOn: RuntimePodStatus | undefined;
    let waitingReasons: WaitingReasons = {};
    let requeueAfterMs: number | undefined;
    let requeueOnKeptState: boolean | undefined;
    let removedObjectIds: string[] = [];
    try {
      if (request.kind === 'sync') {
        const outcome = await syncPod(deps, pod, nowMs, {
          apiData: request.apiData,
          runtimeKnownEmpty: request.runtimeKnownEmpty,
          runtimeKnown: request.runtimeUnchanged ? this.runtimeByUid.get(uid) : undefined,
          probeResults: (state) => this.prober.resultsFor(state),
          // The name only prefixes container IDs: the phase does not depend on it.
          statusIsTerminal: (state) => isTerminalPhase(this.podStatus(request, state, nowMs, {}, undefined).phase),
        });
        runtime = outcome.runtime;
        actedOn = outcome.before;
        waitingReasons = outcome.waitingReasons;
        requeueAfterMs = outcome.requeueAfterMs;
        requeueOnKeptState = outcome.requeueOnKeptState;
        removedObjectIds = outcome.removedIds;
      } else {
        runtime = await this.stopPod(deps, pod, request);
      }
    } catch (err) {
      errors.push(toWire(err));
      runtime = await getRuntimePodStatus(this.deps.cri, uid, pod.metadata?.name ?? '', pod.metadata?.namespace ?? '');
    }
    this.keepRuntime(request, runtime, errors.length === 0, removedObjectIds);
    // Probe events recorded while the sync ran: after its own, and before a terminated pod's probes are dropped.
    this.publishProbeEvents(uid, publishEvent);
    this.updateProbeWorkers(request, runtime);
    const status = this.podStatus(request, runtime, nowMs, waitingReasons, await this.runtimeNameOnce());
    return {
      uid,
      status,
      terminated: podStopped(runtime),
      requeueAfterMs,
      ...(requeueOnKeptState && errors.length === 0 ? { requeueOnKeptState } : {}),
      errors,
      imagePulls: deps.imagePulls,
      runtimeObjects: runtimeObjectStates(runtime),
      actedOnObjects: runtimeObjectStates(actedOn ?? runtime),
      removedObjectIds,
    };
  }

  /**
   * Keeps what a successful SyncPod left (less what its GC removed), for the next sync
   * the main thread knows nothing changed since; anything else leaves the next sync to read.
   */
  private keepRuntime(request: SyncPodRequest, runtime: RuntimePodStatus, succeeded: boolean, removedIds: readonly string[]): void {
    const uid = request.pod.metadata?.uid ?? '';
    if (request.kind !== 'sync' || !succeeded) {
      this.runtimeByUid.delete(uid);
      return;
    }
    if (removedIds.length === 0) {
      this.runtimeByUid.set(uid, runtime);
      return;
    }
    const removed = new Set(removedIds);
    this.runtimeByUid.set(uid, {
      ...runtime,
      sandboxes: runtime.sandboxes.filter((sandbox) => !removed.has(sandbox.id)),
      containers: runtime.containers.filter((container) => !removed.has(container.id)),
    });
  }

  /** upstream's generateAPIPodStatus for the pod of this request, from this runtime state. */
  private podStatus(request: SyncPodRequest, runtime: RuntimePodStatus, nowMs: number, waitingReasons: WaitingReasons, runtimeName: string | undefined): PodStatus {
    return generatePodStatus(request.pod, runtime, {
      nowMs,
      hostIP: this.deps.settings.hostIP,
      waitingReasons,
      previous: request.previousStatus,
      runtimeName,
      probes: this.prober.resultsFor(runtime),
    });
  }

  /** What this shard's probes did since it started (prober_probe_total, probe latency). */
  probeStats(): ProbeStats {
    return this.prober.stats();
  }

  async close(): Promise<void> {
    this.prober.close();
    this.deps.cri.close();
  }

  /** The prober keeps its events per pod until the pod's next sync sends them on. */
  private publishProbeEvents(uid: string, publishEvent: (event: PodEventRecord) => void): void {
    for (const event of this.prober.takeEvents(uid)) publishEvent(event);
  }

  /**
   * The pod's syncs start and stop its probe workers, as upstream's AddPod,
   * StopLivenessAndStartup (terminating) and RemovePod (terminated).
   */
  private updateProbeWorkers(request: SyncPodRequest, runtime: RuntimePodStatus): void {
    const uid = request.pod.metadata?.uid ?? '';
    if (request.kind === 'sync') this.prober.syncPod(request.pod, runtime);
    else if (request.kind === 'terminating') this.prober.stopLivenessAndStartup(uid);
    else this.prober.removePod(uid);
  }

  /** SyncTerminatingPod (kill with the grace period) and SyncTerminatedPod (clean up). */
  private async stopPod(deps: RuntimeDeps, pod: Pod, request: SyncPodRequest): Promise<RuntimePodStatus> {
    const uid = pod.metadata?.uid ?? '';
    const read = () => getRuntimePodStatus(deps.cri, uid, pod.metadata?.name ?? '', pod.metadata?.namespace ?? '');
    let runtime = await read();
    await killPod(deps, runtime, pod.spec ? pod : undefined, request.gracePeriodSeconds);
    if (request.kind === 'terminated') {
      // Its directories go now (some of them only with the removal): a pod that runs again makes them afresh.
      podPathsMade.forgetPod(uid);
      if (request.removeFromRuntime) {
        await removePodFromRuntime(deps, await read());
        if (pod.spec && !(await removePodCgroup(pod, deps.settings.podCgroups))) {
          deps.logger.info({ pod: pod.metadata?.name, uid }, 'Pod cgroup not removed yet: something still runs in it');
        }
      }
      await teardownPodVolumes(uid, deps.settings);
      deps.images.forgetPod(uid);
    }
    runtime = await read();
    return runtime;
  }

  /** The runtime's name prefixes container IDs in the status (containerd://…). */
  private runtimeNameOnce(): Promise<string> {
    const pending =
      this.runtimeName ??
      this.deps.cri.version({ version: '' }).then(
        (reply) => reply.runtime_name || 'cri',
        () => {
          this.runtimeName = undefined;
          return 'cri';
        },
      );
    this.runtimeName = pending;
    return pending;
  }
}
