// /metrics/probes: upstream's prober_probe_total (pkg/kubelet/prober), in a registry
// of its own as upstream serves it apart from /metrics. Probes run in the shard
// threads and only result changes cross to the main thread, so the counts stay in
// the shards: a scrape asks each shard for its counts (one small task per shard, on
// this endpoint only) through the source the kubelet hands in.
import client from 'prom-client';
import type { ProbeCountRecord } from '../../shared/shard-protocol.js';
import type { ProbeType } from '../../shared/prober/probe-results.js';
import { helpText } from './stability.js';

export type ProbeCountSource = () => Promise<ProbeCountRecord[]>;

let countSource: ProbeCountSource | undefined;

/** Upstream's probe_type label values. */
const PROBE_TYPE_LABEL: Record<ProbeType, string> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };

/** Where the probe counts live (the kubelet's shards); undefined serves no series. */
export function setProbeCountSource(source: ProbeCountSource | undefined): void {
  countSource = source;
}

export const probeRegistry = new client.Registry();

new client.Counter({
  name: 'prober_probe_total',
  help: helpText('BETA', 'Cumulative number of a liveness, readiness or startup probe for a container by result.'),
  labelNames: ['probe_type', 'result', 'container', 'pod', 'namespace', 'pod_uid'],
  registers: [probeRegistry],
  // Rebuilt from the shards' counts at each scrape: a pod that left takes its series with it.
  async collect() {
    this.reset();
    for (const record of (await countSource?.()) ?? []) {
      const labels = { probe_type: PROBE_TYPE_LABEL[record.probeType], result: record.result, container: record.containerName, pod: record.podName, namespace: record.podNamespace, pod_uid: record.podUid };
      this.inc(labels, record.count);
    }
  },
});
