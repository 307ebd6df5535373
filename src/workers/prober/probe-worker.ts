// One probe of one container, as upstream's prober worker: it probes every
// periodSeconds (the first time after a random part of the period when the shard
// started less than a period ago, so a restarted shard does not probe everything at
// once), skips until initialDelaySeconds passed and while a startup probe has not
// succeeded, and changes the container's result only after successThreshold /
// failureThreshold equal results in a row. A liveness or startup failure puts it on
// hold until a new instance of the container replaces the one it condemned.
import type { ProbeResult, ProbeType } from '../../shared/prober/probe-results.js';
import { initialProbeResult } from '../../shared/prober/probe-results.js';
import type { Container, Probe } from '../../shared/types.js';
import type { ProbeOutcome } from './probe-outcome.js';
import { DEFAULT_FAILURE_THRESHOLD, DEFAULT_PERIOD_SECONDS, DEFAULT_SUCCESS_THRESHOLD, type ProbeRunner } from './prober.js';

/** The container instance as the pod's last sync saw it. */
export interface ProbedInstance {
  id: string;
  running: boolean;
  /** Exited (not just created or unknown). */
  terminated: boolean;
  startedAtMs: number;
  podIP: string;
}

/** What the worker needs from its manager: the results store and the clock. */
export interface ProbeWorkerHost {
  nowMs(): number;
  run: ProbeRunner;
  /** Stores a result; `report` says whether a change must reach the main thread. */
  setResult(containerId: string, type: ProbeType, result: ProbeResult | undefined, report: boolean): void;
  removeResult(containerId: string, type: ProbeType): void;
  /** The startup result of a container instance, for the startup gate. */
  startupResult(containerId: string): ProbeResult | undefined;
  /** Each probe's outcome and how long it took (events, metrics). */
  onProbed(worker: ProbeWorker, outcome: ProbeOutcome, durationMs: number): void;
}

export interface ProbeWorkerSpec {
  type: ProbeType;
  probe: Probe;
  container: Container;
  /** The pod's restartPolicy is Never: a terminated container will not come back. */
  restartNever: boolean;
}

export class ProbeWorker {
  private instance: ProbedInstance | undefined;
  private containerId = '';
  private lastResult: ProbeResult | undefined;
  private resultRun = 0;
  private onHold = false;
  private probing = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Until the first probe, a trigger would cut the start-up jitter short: it waits for it. */
  private firstProbeDone = false;

  constructor(
    readonly spec: ProbeWorkerSpec,
    private readonly host: ProbeWorkerHost,
  ) {}

  get periodMs(): number {
    return Math.max(this.spec.probe.periodSeconds ?? DEFAULT_PERIOD_SECONDS, 1) * 1000;
  }

  /** The container instance the worker probes, from a sync; a new instance resets the worker. */
  update(instance: ProbedInstance | undefined): void {
    this.instance = instance;
    if (instance && instance.id !== this.containerId) this.adopt(instance.id);
  }

  /** Starts the probe loop; the first probe waits `firstDelayMs` (the jitter). */
  start(firstDelayMs: number): void {
    this.schedule(firstDelayMs);
  }

  /** Probes as soon as possible (upstream's manual trigger), e.g. for a new instance's readiness. */
  trigger(): void {
    if (this.stopped || this.probing || !this.firstProbeDone) return;
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.containerId) this.host.removeResult(this.containerId, this.spec.type);
  }

  /** One round of upstream's doProbe; false when the container will never run again. */
  async doProbe(): Promise<boolean> {
    const instance = this.instance;
    if (!instance) return true;
    if (instance.id !== this.containerId) this.adopt(instance.id);
    if (this.onHold) return true;
    if (!instance.running) {
      // A stopped container is not ready; its restart (or not) is the sync's business.
      this.host.setResult(this.containerId, this.spec.type, 'failure', false);
      return !(instance.terminated && this.spec.restartNever);
    }
    const startup = this.host.startupResult(instance.id);
    if (this.spec.type !== 'startup' && this.spec.container.startupProbe && startup !== 'success') return true;
    if (this.spec.type === 'startup' && startup === 'success') return true;
    const initialDelayMs = (this.spec.probe.initialDelaySeconds ?? 0) * 1000;
    if (this.host.nowMs() - instance.startedAtMs < initialDelayMs) return true;
    const startedAt = this.host.nowMs();
    const outcome = await this.host.run(this.spec.probe, { container: this.spec.container, containerId: instance.id, podIP: instance.podIP });
    this.host.onProbed(this, outcome, this.host.nowMs() - startedAt);
    // A probe that could not run says nothing about the container; so does one whose instance was replaced meanwhile.
    if (outcome.error !== undefined || this.containerId !== instance.id || this.stopped) return true;
    const result: ProbeResult = outcome.verdict === 'success' || outcome.verdict === 'warning' ? 'success' : 'failure';
    if (this.lastResult === result) this.resultRun++;
    else {
      this.lastResult = result;
      this.resultRun = 1;
    }
    const failureThreshold = this.spec.probe.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD;
    const successThreshold = this.spec.probe.successThreshold ?? DEFAULT_SUCCESS_THRESHOLD;
    if ((result === 'failure' && this.resultRun < failureThreshold) || (result === 'success' && this.resultRun < successThreshold)) return true;
    this.host.setResult(instance.id, this.spec.type, result, true);
    if (result === 'failure' && this.spec.type !== 'readiness') {
      // The sync kills this instance; nothing more to learn from it.
      this.onHold = true;
      this.resultRun = 0;
    }
    return true;
  }

  /** A new container instance: forget the old one's result and start from the initial value. */
  private adopt(containerId: string): void {
    if (this.containerId) this.host.removeResult(this.containerId, this.spec.type);
    this.containerId = containerId;
    this.lastResult = undefined;
    this.resultRun = 0;
    this.onHold = false;
    // The sync that saw the instance computes the status with the initial value: nothing to report.
    this.host.setResult(containerId, this.spec.type, initialProbeResult(this.spec.type), false);
    if (this.spec.type === 'readiness') this.trigger();
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.probing) return;
    this.probing = true;
    this.firstProbeDone = true;
    let keepGoing: boolean;
    try {
      keepGoing = await this.doProbe();
    } finally {
      this.probing = false;
    }
    if (keepGoing) this.schedule(this.periodMs);
  }
}
