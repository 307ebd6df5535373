// State transitions of a simulated container's process: CREATED → RUNNING on
// start, RUNNING → EXITED when its command ends, when a stop's signal ends it, when
// it is killed, or when it holds more memory than its limit allows (the kernel's
// OOM killer: exit code 137, reason OOMKilled, as containerd reports it). Timers stand in for the process; nothing here waits on a
// lock, so stops of many containers overlap as they do under containerd.
import type { ContainerEventSink } from './container-events.js';
import { stopOutcome, EXIT_CODE_SIGKILL } from './process-model.js';
import { nowNs, type ContainerRecord } from './state-store.js';

/** containerd's reason for a container the OOM killer ended. */
export const REASON_OOM_KILLED = 'OOMKilled';
/** How long a process over its memory limit runs before the OOM killer ends it. */
export const OOM_KILL_AFTER_MS = 20;

/** A running process holds more than the container's memory limit allows. */
export function overMemoryLimit(container: ContainerRecord): boolean {
  const limitBytes = Number(container.resources?.memory_limit_in_bytes ?? 0);
  const heldBytes = container.behaviour.memoryBytes;
  return limitBytes > 0 && heldBytes !== undefined && heldBytes > limitBytes;
}

/** Per-container timers and waiters, kept out of the plain state record. */
interface ProcessHandles {
  /** The command ending on its own. */
  exitTimer?: NodeJS.Timeout;
  /** The end of a stop's grace period. */
  killTimer?: NodeJS.Timeout;
  exitWaiters: Array<() => void>;
}

/** What the process prints (container-log-writer.ts), told of its start and end. */
export interface ProcessOutputHooks {
  started(container: ContainerRecord): void;
  /** Resolves once the lines printed just before an exit on its own are written. */
  beforeExit(container: ContainerRecord): Promise<void>;
  exited(container: ContainerRecord): void;
}

export class ContainerLifecycle {
  private readonly handles = new Map<string, ProcessHandles>();

  constructor(
    private readonly output?: ProcessOutputHooks,
    /** Told of every start and exit (GetContainerEvents' STARTED and STOPPED). */
    private readonly events?: ContainerEventSink,
  ) {}

  /** Starts the simulated process; the caller has checked the container is CREATED. */
  start(container: ContainerRecord): void {
    container.state = 'CONTAINER_RUNNING';
    container.startedAtNs = nowNs();
    const handles = this.handlesOf(container);
    const exit = container.behaviour.exit;
    if (overMemoryLimit(container)) {
      handles.exitTimer = setTimeout(() => this.markExited(container, EXIT_CODE_SIGKILL, REASON_OOM_KILLED), OOM_KILL_AFTER_MS);
      handles.exitTimer.unref();
    } else if (exit) {
      handles.exitTimer = setTimeout(() => void this.exitOnItsOwn(container, exit.code), exit.afterMs);
      handles.exitTimer.unref();
    }
    this.output?.started(container);
    this.events?.containerChanged(container, 'CONTAINER_STARTED_EVENT');
  }

  /** The command ended: what it printed last is in its log before it shows as exited. */
  private async exitOnItsOwn(container: ContainerRecord, exitCode: number): Promise<void> {
    await this.output?.beforeExit(container);
    this.markExited(container, exitCode);
  }

  /**
   * StopContainer: SIGTERM, then SIGKILL after `graceSeconds`. A container that
   * is not running is left as it is (containerd leaves CREATED ones created).
   * Resolves when the process is gone.
   */
  async stop(container: ContainerRecord, graceSeconds: number): Promise<void> {
    if (container.state !== 'CONTAINER_RUNNING') return;
    const outcome = stopOutcome(container.behaviour, graceSeconds);
    if (outcome.afterMs === 0) {
      this.markExited(container, outcome.exitCode);
      return;
    }
    const handles = this.handlesOf(container);
    const exited = new Promise<void>((resolve) => handles.exitWaiters.push(resolve));
    if (!handles.killTimer) {
      handles.killTimer = setTimeout(() => this.markExited(container, outcome.exitCode), outcome.afterMs);
      handles.killTimer.unref();
    }
    await exited;
  }

  /** UpdateContainerResources changed the limits: a running process now over its memory limit is OOM-killed. */
  resourcesChanged(container: ContainerRecord): void {
    if (container.state === 'CONTAINER_RUNNING' && overMemoryLimit(container)) this.markExited(container, EXIT_CODE_SIGKILL, REASON_OOM_KILLED);
  }

  /** SIGKILL now, as StopPodSandbox and a forced RemoveContainer do. */
  kill(container: ContainerRecord): void {
    if (container.state === 'CONTAINER_RUNNING') this.markExited(container, EXIT_CODE_SIGKILL);
  }

  /** Drops the container's timers; it is being removed. */
  forget(container: ContainerRecord): void {
    const handles = this.handles.get(container.id);
    if (!handles) return;
    clearTimeout(handles.exitTimer);
    clearTimeout(handles.killTimer);
    for (const resolve of handles.exitWaiters) resolve();
    this.handles.delete(container.id);
  }

  /** Drops every timer, for server shutdown. */
  forgetAll(): void {
    for (const handles of this.handles.values()) {
      clearTimeout(handles.exitTimer);
      clearTimeout(handles.killTimer);
      for (const resolve of handles.exitWaiters) resolve();
    }
    this.handles.clear();
  }

  /** containerd's reasons: OOMKilled when the OOM killer ended it, else Completed for 0 and Error otherwise. */
  private markExited(container: ContainerRecord, exitCode: number, reason = exitCode === 0 ? 'Completed' : 'Error'): void {
    if (container.state !== 'CONTAINER_RUNNING') return;
    container.state = 'CONTAINER_EXITED';
    container.finishedAtNs = nowNs();
    container.exitCode = exitCode;
    container.reason = reason;
    this.output?.exited(container);
    this.events?.containerChanged(container, 'CONTAINER_STOPPED_EVENT');
    const handles = this.handles.get(container.id);
    if (!handles) return;
    clearTimeout(handles.exitTimer);
    clearTimeout(handles.killTimer);
    for (const resolve of handles.exitWaiters) resolve();
    this.handles.delete(container.id);
  }

  private handlesOf(container: ContainerRecord): ProcessHandles {
    let handles = this.handles.get(container.id);
    if (!handles) {
      handles = { exitWaiters: [] };
      this.handles.set(container.id, handles);
    }
    return handles;
  }
}
