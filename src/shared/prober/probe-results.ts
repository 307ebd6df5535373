// Probe results as upstream's prober/results package keeps them: one result per
// container ID and probe type. Plain data, so that the shard can hand the results of
// one pod to the pure status and computePodActions code.
import type { Container, Probe } from '../types.js';

export type ProbeType = 'liveness' | 'readiness' | 'startup';
export type ProbeResult = 'success' | 'failure' | 'unknown';

export const PROBE_TYPES: readonly ProbeType[] = ['liveness', 'readiness', 'startup'];

/** Upstream's probeType.String(), as it appears in events ("Liveness probe failed: ..."). */
export function probeTypeLabel(type: ProbeType): string {
  return type === 'liveness' ? 'Liveness' : type === 'readiness' ? 'Readiness' : 'Startup';
}

/**
 * The result a new container instance starts with, as upstream's newWorker: not ready
 * until a readiness probe passes, alive until a liveness probe fails, not started
 * (no result) until a startup probe passes.
 */
export function initialProbeResult(type: ProbeType): ProbeResult | undefined {
  if (type === 'readiness') return 'failure';
  if (type === 'liveness') return 'success';
  return undefined;
}

/** The container's probe of that type, if its spec has one. */
export function probeOf(container: Container, type: ProbeType): Probe | undefined {
  if (type === 'liveness') return container.livenessProbe ?? undefined;
  if (type === 'readiness') return container.readinessProbe ?? undefined;
  return container.startupProbe ?? undefined;
}

/** The results a shard holds for one pod's containers, by container ID. */
export interface PodProbeResults {
  liveness: Record<string, ProbeResult>;
  readiness: Record<string, ProbeResult>;
  startup: Record<string, ProbeResult>;
}

export function emptyPodProbeResults(): PodProbeResults {
  return { liveness: {}, readiness: {}, startup: {} };
}
