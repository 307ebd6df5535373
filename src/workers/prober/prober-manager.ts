// A shard's prober manager, as upstream's prober_manager: one ProbeWorker per
// (pod, container, probe type) for the pods this shard owns, started and stopped by
// the pods' syncs, and the results by container ID that the shard's status and
// computePodActions read. Only a change of a result leaves the shard (onResultChange).
// Nothing here outlives the thread: a replaced shard gets its workers back from the
// resync of its pods, with results starting from their initial values as upstream's
// do after a kubelet restart.
import type { Logger } from 'pino';
import { containerFieldPath } from '../../shared/events/event-types.js';
import { isRestartableInitContainer, podRestartPolicy } from '../../shared/kuberuntime/container-helpers.js';
import {
  emptyPodProbeResults,
  PROBE_TYPES,
  probeOf,
  probeTypeLabel,
  type PodProbeResults,
  type ProbeResult,
  type ProbeType,
} from '../../shared/prober/probe-results.js';
import { findContainer, type RuntimePodStatus } from '../../shared/runtime-pod.js';
import type { PodEventRecord, ProbeCountRecord, ProbeResultMessage, ProbeStats } from '../../shared/shard-protocol.js';
import type { Container, Pod } from '../../shared/types.js';
import type { ProbeOutcome } from './probe-outcome.js';
import { ProbeWorker, type ProbeWorkerHost } from './probe-worker.js';
import type { ProbeRunner } from './prober.js';
import { podIPOf } from './probe-target.js';

/** Unhealthy events kept per pod until its next sync sends them to the main thread (Shard.publishProbeEvents). */
export const MAX_PENDING_PROBE_EVENTS_PER_POD = 20;
/** Probe durations kept for the latency figures. */
const RECENT_DURATIONS_KEPT = 4096;

export interface ProberManagerOptions {
  run: ProbeRunner;
  logger: Logger;
  /** The single way a result change leaves the shard. */
  onResultChange: (message: ProbeResultMessage) => void;
  /** The node's IP: a hostNetwork pod is probed there. */
  hostIP: string;
  nowMs?: () => number;
  random?: () => number;
}

interface PodRef {
  uid: string;
  name: string;
  namespace: string;
}

interface WorkerEntry {
  worker: ProbeWorker;
  pod: PodRef;
  containerName: string;
  init: boolean;
}

export class ProberManager {
  private readonly workers = new Map<string, WorkerEntry>();
  private readonly resultsByType: Record<ProbeType, Map<string, ProbeResult>> = { liveness: new Map(), readiness: new Map(), startup: new Map() };
  private readonly pendingEvents = new Map<string, PodEventRecord[]>();
  private readonly counts = new Map<string, ProbeCountRecord>();
  private readonly recentDurationsMs: number[] = [];
  private totalProbes = 0;
  private readonly startedAtMs: number;
  private readonly nowMs: () => number;
  private readonly random: () => number;

  constructor(private readonly options: ProberManagerOptions) {
    this.nowMs = options.nowMs ?? Date.now;
    this.random = options.random ?? Math.random;
    this.startedAtMs = this.nowMs();
  }

  /**
   * From a sync of the pod: a worker for each probe in the spec (app containers and
   * sidecars, as upstream's AddPod), each told the container instance the sync saw;
   * workers whose probe left the spec stop.
   */
  syncPod(pod: Pod, runtime: RuntimePodStatus): void {
    const ref = podRefOf(pod);
    const wanted = new Set<string>();
    const podIP = podIPOf(pod, runtime.sandboxes[0]?.ips, this.options.hostIP);
    const restartNever = podRestartPolicy(pod) === 'Never';
    const probed: Array<{ container: Container; init: boolean }> = [
      ...(pod.spec?.initContainers ?? []).filter(isRestartableInitContainer).map((container) => ({ container, init: true })),
      ...(pod.spec?.containers ?? []).map((container) => ({ container, init: false })),
    ];
    for (const { container, init } of probed) {
      for (const type of PROBE_TYPES) {
        const probe = probeOf(container, type);
        if (!probe) continue;
        const key = workerKey(ref.uid, container.name, type);
        wanted.add(key);
        let entry = this.workers.get(key);
        if (entry && JSON.stringify(entry.worker.spec.probe) !== JSON.stringify(probe)) {
          // A changed probe is a new worker (the container restarts for the spec change anyway).
          this.stopWorker(key, entry);
          entry = undefined;
        }
        if (!entry) {
          entry = { worker: new ProbeWorker({ type, probe, container, restartNever }, this.hostFor(key)), pod: ref, containerName: container.name, init };
          this.workers.set(key, entry);
          entry.worker.start(this.firstProbeDelayMs(entry.worker.periodMs));
        }
        const instance = findContainer(runtime, container.name);
        entry.worker.update(
          instance && { id: instance.id, running: instance.state === 'running', terminated: instance.state === 'exited', startedAtMs: instance.startedAtMs, podIP },
        );
      }
    }
    for (const [key, entry] of this.workers) {
      if (entry.pod.uid === ref.uid && !wanted.has(key)) this.stopWorker(key, entry);
    }
  }

  /** SyncTerminatingPod: liveness and startup stop (nothing is restarted any more); readiness goes on, as upstream. */
  stopLivenessAndStartup(uid: string): void {
    for (const [key, entry] of this.workers) {
      if (entry.pod.uid === uid && entry.worker.spec.type !== 'readiness') this.stopWorker(key, entry);
    }
  }

  /** SyncTerminatedPod: every worker of the pod stops and its results go. */
  removePod(uid: string): void {
    for (const [key, entry] of this.workers) if (entry.pod.uid === uid) this.stopWorker(key, entry);
    this.pendingEvents.delete(uid);
    for (const [key, record] of this.counts) if (record.podUid === uid) this.counts.delete(key);
  }

  /** The results the pod's status and computePodActions read. */
  resultsFor(runtime: RuntimePodStatus): PodProbeResults {
    const results = emptyPodProbeResults();
    for (const container of runtime.containers) {
      for (const type of PROBE_TYPES) {
        const result = this.resultsByType[type].get(container.id);
        if (result !== undefined) results[type][container.id] = result;
      }
    }
    return results;
  }

  /** The probe events since they were last taken, for the pod's sync to send on. */
  takeEvents(uid: string): PodEventRecord[] {
    const events = this.pendingEvents.get(uid) ?? [];
    this.pendingEvents.delete(uid);
    return events;
  }

  stats(): ProbeStats {
    return {
      counts: [...this.counts.values()].map((c) => ({ ...c })),
      recentDurationsMs: [...this.recentDurationsMs],
      totalProbes: this.totalProbes,
      workers: this.workers.size,
    };
  }

  close(): void {
    for (const [key, entry] of this.workers) this.stopWorker(key, entry);
  }

  /** Upstream's start-up jitter: only while the shard is younger than the probe's period. */
  private firstProbeDelayMs(periodMs: number): number {
    return this.nowMs() - this.startedAtMs < periodMs ? Math.floor(this.random() * periodMs) : 0;
  }

  private stopWorker(key: string, entry: WorkerEntry): void {
    entry.worker.stop();
    this.workers.delete(key);
  }

  private hostFor(key: string): ProbeWorkerHost {
    return {
      nowMs: this.nowMs,
      run: this.options.run,
      setResult: (containerId, type, result, report) => this.setResult(key, containerId, type, result, report),
      removeResult: (containerId, type) => this.resultsByType[type].delete(containerId),
      startupResult: (containerId) => this.resultsByType.startup.get(containerId),
      onProbed: (worker, outcome, durationMs) => this.onProbed(key, worker, outcome, durationMs),
    };
  }

  private setResult(key: string, containerId: string, type: ProbeType, result: ProbeResult | undefined, report: boolean): void {
    const results = this.resultsByType[type];
    if (result === undefined) {
      results.delete(containerId);
      return;
    }
    const previous = results.get(containerId);
    results.set(containerId, result);
    const entry = this.workers.get(key);
    if (!report || previous === result || !entry) return;
    this.options.logger.debug({ pod: `${entry.pod.namespace}/${entry.pod.name}`, container: entry.containerName, probeType: type, result }, 'Probe result changed');
    this.options.onResultChange({
      kind: 'probe-result',
      podUid: entry.pod.uid,
      podName: entry.pod.name,
      podNamespace: entry.pod.namespace,
      containerName: entry.containerName,
      containerId,
      probeType: type,
      result,
    });
  }

  /** Upstream's prober.probe bookkeeping: an event for each failed or errored probe, the counters. */
  private onProbed(key: string, worker: ProbeWorker, outcome: ProbeOutcome, durationMs: number): void {
    const entry = this.workers.get(key);
    if (!entry) return;
    const type = worker.spec.type;
    this.countProbe(entry, type, outcome.error !== undefined ? 'unknown' : outcome.verdict === 'failure' ? 'failed' : 'successful');
    this.totalProbes++;
    this.recentDurationsMs.push(durationMs);
    if (this.recentDurationsMs.length > RECENT_DURATIONS_KEPT) this.recentDurationsMs.splice(0, this.recentDurationsMs.length - RECENT_DURATIONS_KEPT);
    const fieldPath = containerFieldPath(entry.containerName, entry.init);
    const label = probeTypeLabel(type);
    if (outcome.error !== undefined) {
      this.pushEvent(entry.pod.uid, { type: 'Warning', reason: 'Unhealthy', message: `${label} probe errored and resulted in unknown state: ${outcome.error}`, fieldPath, timestampMs: Date.now() });
    } else if (outcome.verdict === 'failure') {
      this.options.logger.info({ pod: `${entry.pod.namespace}/${entry.pod.name}`, container: entry.containerName, probeType: type, output: outcome.output }, 'Probe failed');
      this.pushEvent(entry.pod.uid, { type: 'Warning', reason: 'Unhealthy', message: `${label} probe failed: ${outcome.output}`, fieldPath, timestampMs: Date.now() });
    } else if (outcome.verdict === 'warning') {
      this.pushEvent(entry.pod.uid, { type: 'Warning', reason: 'ProbeWarning', message: `${label} probe warning: ${outcome.output}`, fieldPath, timestampMs: Date.now() });
    }
  }

  private pushEvent(uid: string, event: PodEventRecord): void {
    const events = this.pendingEvents.get(uid) ?? [];
    events.push(event);
    if (events.length > MAX_PENDING_PROBE_EVENTS_PER_POD) events.shift();
    this.pendingEvents.set(uid, events);
  }

  private countProbe(entry: WorkerEntry, probeType: ProbeType, result: ProbeCountRecord['result']): void {
    const key = `${entry.pod.uid}/${entry.containerName}/${probeType}/${result}`;
    const record = this.counts.get(key);
    if (record) record.count++;
    else this.counts.set(key, { podUid: entry.pod.uid, podName: entry.pod.name, podNamespace: entry.pod.namespace, containerName: entry.containerName, probeType, result, count: 1 });
  }
}

function workerKey(uid: string, containerName: string, type: ProbeType): string {
  return `${uid}/${containerName}/${type}`;
}

function podRefOf(pod: Pod): PodRef {
  return { uid: pod.metadata?.uid ?? '', name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '' };
}
