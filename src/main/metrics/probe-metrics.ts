// /metrics/probes: upstream's prober series (pkg/kubelet/prober), in a registry of
// their own as upstream serves them apart from /metrics. Probes run in the shard
// threads; their results reach the main thread with the sync results, and whoever
// receives them there calls recordProbeResult. forgetPodProbes drops a gone pod's
// series, as upstream deletes them when a probe worker stops.
import client from 'prom-client';
import { helpText } from './stability.js';

export type ProbeType = 'Liveness' | 'Readiness' | 'Startup';
/** Upstream's result label values. */
export type ProbeResultLabel = 'successful' | 'failed' | 'unknown';

export interface ProbeResultRecord {
  probeType: ProbeType;
  result: ProbeResultLabel;
  container: string;
  pod: string;
  namespace: string;
  podUid: string;
  /** How long the probe took; when given, prober_probe_duration_seconds observes it. */
  durationSeconds?: number;
}

export const probeRegistry = new client.Registry();

const probeTotal = new client.Counter({
  name: 'prober_probe_total',
  help: helpText('BETA', 'Cumulative number of a liveness, readiness or startup probe for a container by result.'),
  labelNames: ['probe_type', 'result', 'container', 'pod', 'namespace', 'pod_uid'],
  registers: [probeRegistry],
});

const probeDuration = new client.Histogram({
  name: 'prober_probe_duration_seconds',
  help: helpText('ALPHA', 'Duration in seconds for a probe response.'),
  labelNames: ['probe_type', 'container', 'pod', 'namespace'],
  registers: [probeRegistry],
});

/** The label sets recorded per pod UID, so a gone pod's series can be removed. */
const labelSetsByPodUid = new Map<string, Map<string, Record<string, string>>>();

export function recordProbeResult(record: ProbeResultRecord): void {
  const labels = {
    probe_type: record.probeType,
    result: record.result,
    container: record.container,
    pod: record.pod,
    namespace: record.namespace,
    pod_uid: record.podUid,
  };
  probeTotal.inc(labels);
  const durationLabels = { probe_type: record.probeType, container: record.container, pod: record.pod, namespace: record.namespace };
  if (record.durationSeconds !== undefined) probeDuration.observe(durationLabels, record.durationSeconds);
  let sets = labelSetsByPodUid.get(record.podUid);
  if (!sets) labelSetsByPodUid.set(record.podUid, (sets = new Map()));
  sets.set(JSON.stringify(labels), labels);
  sets.set(JSON.stringify(durationLabels), durationLabels);
}

/** Drops every probe series of a pod that left the node. */
export function forgetPodProbes(podUid: string): void {
  const sets = labelSetsByPodUid.get(podUid);
  if (!sets) return;
  labelSetsByPodUid.delete(podUid);
  for (const labels of sets.values()) {
    if ('result' in labels) probeTotal.remove(labels);
    else probeDuration.remove(labels);
  }
}
