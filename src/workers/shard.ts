// A shard: the pods whose UID hashes to it, synced over the shard's own CRI
// channel. The same class runs inside a worker thread (shard-worker.ts) or, with
// --workers 0, in the main thread.
import type { Logger } from 'pino';
import { toWire } from '../shared/errors.js';
import type { RuntimePodStatus } from '../shared/runtime-pod.js';
import type { PullCoordinatorApi, ShardSettings, SyncPodRequest, SyncPodResult } from '../shared/shard-protocol.js';
import { runtimeObjectStates } from '../shared/pleg/relist-diff.js';
import { generatePodStatus } from '../shared/status/generate-pod-status.js';
import type { Pod } from '../shared/types.js';
import { ImageManager } from './images/image-manager.js';
import { killPod, podStopped, removePodFromRuntime } from './kuberuntime/kill-pod.js';
import { removePodCgroup } from './cm/pod-cgroup.js';
import type { RuntimeDeps } from './kuberuntime/runtime-deps.js';
import { getRuntimePodStatus } from './kuberuntime/runtime-status.js';
import { syncPod } from './kuberuntime/sync-pod.js';
import { openShardCri } from './shard-cri.js';
import { teardownPodVolumes } from './volumes/pod-volumes.js';

export class Shard {
  private readonly deps: RuntimeDeps;
  private runtimeName: Promise<string> | undefined;

  constructor(
    readonly index: number,
    settings: ShardSettings,
    pulls: PullCoordinatorApi,
    logger: Logger,
  ) {
    const cri = openShardCri(settings);
    const shardLogger = logger.child({ shard: index });
    this.deps = { cri, settings, logger: shardLogger, images: new ImageManager(cri, pulls, index, shardLogger), events: [] };
  }

  /** Runs one SyncPod / SyncTerminatingPod / SyncTerminatedPod for a pod. */
  async sync(request: SyncPodRequest): Promise<SyncPodResult> {
    const pod = request.pod;
    const uid = pod.metadata?.uid ?? '';
    const nowMs = Date.now();
    // Each sync collects its own events; the shard's clients and caches are shared.
    const deps: RuntimeDeps = { ...this.deps, events: [] };
    const errors = [];
    let runtime: RuntimePodStatus;
    let actedOn: RuntimePodStatus | undefined;
    let waitingReasons: Record<string, { reason: string; message: string }> = {};
    let requeueAfterMs: number | undefined;
    let removedObjectIds: string[] = [];
    try {
      if (request.kind === 'sync') {
        const outcome = await syncPod(deps, pod, nowMs, { apiData: request.apiData, runtimeKnownEmpty: request.runtimeKnownEmpty });
        runtime = outcome.runtime;
        actedOn = outcome.before;
        waitingReasons = outcome.waitingReasons;
        requeueAfterMs = outcome.requeueAfterMs;
        removedObjectIds = outcome.removedIds;
      } else {
        runtime = await this.stopPod(deps, pod, request);
      }
    } catch (err) {
      errors.push(toWire(err));
      runtime = await getRuntimePodStatus(this.deps.cri, uid, pod.metadata?.name ?? '', pod.metadata?.namespace ?? '');
    }
    const status = generatePodStatus(pod, runtime, {
      nowMs,
      hostIP: this.deps.settings.hostIP,
      waitingReasons,
      previous: request.previousStatus,
      runtimeName: await this.runtimeNameOnce(),
    });
    return {
      uid,
      status,
      terminated: podStopped(runtime),
      requeueAfterMs,
      errors,
      events: deps.events,
      imagePulls: deps.imagePulls,
      runtimeObjects: runtimeObjectStates(runtime),
      actedOnObjects: runtimeObjectStates(actedOn ?? runtime),
      removedObjectIds,
    };
  }

  async close(): Promise<void> {
    this.deps.cri.close();
  }

  /** SyncTerminatingPod (kill with the grace period) and SyncTerminatedPod (clean up). */
  private async stopPod(deps: RuntimeDeps, pod: Pod, request: SyncPodRequest): Promise<RuntimePodStatus> {
    const uid = pod.metadata?.uid ?? '';
    const read = () => getRuntimePodStatus(deps.cri, uid, pod.metadata?.name ?? '', pod.metadata?.namespace ?? '');
    let runtime = await read();
    await killPod(deps, runtime, pod.spec ? pod : undefined, request.gracePeriodSeconds);
    if (request.kind === 'terminated') {
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
