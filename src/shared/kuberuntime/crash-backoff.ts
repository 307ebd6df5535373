// CrashLoopBackOff, derived from the runtime's state alone so that it survives a
// shard restart (upstream keeps it in memory in a flowcontrol.Backoff and forgets it
// when the kubelet restarts).
//
// Upstream (kuberuntime doBackOff + flowcontrol.Backoff, 10 s initial, 300 s cap, no
// jitter): the first exit of a container finds no backoff entry, so the restart is
// immediate and creates the entry at 10 s; each later restart waits the entry's
// duration counted from the exited container's finishedAt and then doubles it. The
// instance with restart count r (0 for the first) therefore waits
// min(10 s · 2^(r−1), 300 s) after it exits, and nothing when r = 0. An entry older
// than twice the cap when the container exits (hasExpired) is reset: a container that
// ran longer than 600 s is restarted at once.
import { exponentialDelayMs, KUBELET_BACKOFF_PERIOD_MS, MAX_CONTAINER_BACKOFF_MS } from '../backoff.js';
import type { RuntimeContainer } from '../runtime-pod.js';

/** Upstream's kubelet backOffPeriod. */
export const INITIAL_CRASH_BACKOFF_MS = KUBELET_BACKOFF_PERIOD_MS;
/** Upstream's MaxContainerBackOff. */
export const MAX_CRASH_BACKOFF_MS = MAX_CONTAINER_BACKOFF_MS;
/** flowcontrol.Backoff doubles the entry on each restart. */
export const CRASH_BACKOFF_MULTIPLIER = 2;
/** A run longer than this resets the backoff, as flowcontrol's hasExpired (2 × max). */
export const CRASH_BACKOFF_RESET_MS = 2 * MAX_CRASH_BACKOFF_MS;

/** How long after its exit the container must wait before its restart; 0 for none. */
export function crashBackoffDelayMs(container: RuntimeContainer): number {
  if (container.state !== 'exited' || container.restartCount <= 0) return 0;
  if (ranLongEnoughToReset(container)) return 0;
  // The shared delay formula without jitter (upstream's crash backoff has none): restart r waits after r − 1 doublings.
  return exponentialDelayMs(container.restartCount - 1, {
    initialMs: INITIAL_CRASH_BACKOFF_MS,
    multiplier: CRASH_BACKOFF_MULTIPLIER,
    maxMs: MAX_CRASH_BACKOFF_MS,
  });
}

/**
 * Wall-clock time (ms) before which the exited container must not be restarted;
 * 0 when it may be restarted now (never exited, first exit, or a long run).
 */
export function crashBackoffUntilMs(container: RuntimeContainer): number {
  const delayMs = crashBackoffDelayMs(container);
  return delayMs === 0 ? 0 : container.finishedAtMs + delayMs;
}

/**
 * Upstream measures the run from the kubelet's previous restart decision to the exit;
 * the container's own start time is the closest thing the runtime keeps.
 */
function ranLongEnoughToReset(container: RuntimeContainer): boolean {
  if (container.startedAtMs <= 0 || container.finishedAtMs <= 0) return false;
  return container.finishedAtMs - container.startedAtMs > CRASH_BACKOFF_RESET_MS;
}

/** A duration as Go's time.Duration.String prints whole seconds: "10s", "1m20s", "5m0s". */
export function formatGoDurationSeconds(durationMs: number): string {
  const totalSeconds = Math.round(durationMs / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}
