// /metrics/resource: upstream's resource metrics collector
// (pkg/kubelet/metrics/collectors/resource_metrics.go) over the summary's CPU and
// memory figures: cumulative CPU seconds and working sets of the node, each pod and
// each container, and container start times. Written out directly rather than
// through prom-client because every sample carries the time its figure was taken
// (upstream's NewLazyMetricWithTimestamp), which prom-client cannot express, and the
// series are built fresh per scrape from the runtime's answer.
import type { ContainerStats, CPUStats, MemoryStats, PodStats, Summary } from '../stats/summary-types.js';
import { helpText, type StabilityLevel } from './stability.js';

interface Family {
  name: string;
  help: string;
  level: StabilityLevel;
  type: 'counter' | 'gauge';
  deprecatedVersion?: string;
}

const NODE_CPU: Family = { name: 'node_cpu_usage_seconds_total', help: 'Cumulative cpu time consumed by the node in core-seconds', level: 'STABLE', type: 'counter' };
const NODE_MEMORY: Family = { name: 'node_memory_working_set_bytes', help: 'Current working set of the node in bytes', level: 'STABLE', type: 'gauge' };
const CONTAINER_START: Family = { name: 'container_start_time_seconds', help: 'Start time of the container since unix epoch in seconds', level: 'STABLE', type: 'gauge' };
const CONTAINER_CPU: Family = { name: 'container_cpu_usage_seconds_total', help: 'Cumulative cpu time consumed by the container in core-seconds', level: 'STABLE', type: 'counter' };
const CONTAINER_MEMORY: Family = { name: 'container_memory_working_set_bytes', help: 'Current working set of the container in bytes', level: 'STABLE', type: 'gauge' };
const POD_CPU: Family = { name: 'pod_cpu_usage_seconds_total', help: 'Cumulative cpu time consumed by the pod in core-seconds', level: 'STABLE', type: 'counter' };
const POD_MEMORY: Family = { name: 'pod_memory_working_set_bytes', help: 'Current working set of the pod in bytes', level: 'STABLE', type: 'gauge' };
const SCRAPE_ERROR: Family = {
  name: 'scrape_error',
  help: '1 if there was an error while getting container metrics, 0 otherwise',
  level: 'ALPHA',
  type: 'gauge',
  deprecatedVersion: '1.29.0',
};
const RESOURCE_SCRAPE_ERROR: Family = { name: 'resource_scrape_error', help: '1 if there was an error while getting container metrics, 0 otherwise', level: 'STABLE', type: 'gauge' };

/** The families in upstream's order; each is written with its HELP and TYPE even when it has no sample. */
const FAMILIES = [NODE_CPU, NODE_MEMORY, CONTAINER_START, CONTAINER_CPU, CONTAINER_MEMORY, POD_CPU, POD_MEMORY, SCRAPE_ERROR, RESOURCE_SCRAPE_ERROR];

/** A label value in the text format: backslash, double quote and newline escaped. */
export function escapeLabel(value: string): string {
  if (!/[\\"\n]/.test(value)) return value;
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function sample(name: string, labels: Array<[string, string]>, value: number, timestampMs?: number): string {
  const labelText = labels.length ? `{${labels.map(([key, v]) => `${key}="${escapeLabel(v)}"`).join(',')}}` : '';
  return `${name}${labelText} ${value}${timestampMs === undefined ? '' : ` ${timestampMs}`}`;
}

const NS_PER_SECOND = 1e9;

/** Samples of one scrape, by family. */
class Samples {
  private readonly linesByFamily = new Map<Family, string[]>(FAMILIES.map((family) => [family, []]));

  add(family: Family, labels: Array<[string, string]>, value: number, timestampMs?: number): void {
    this.linesByFamily.get(family)!.push(sample(family.name, labels, value, timestampMs));
  }

  cpu(family: Family, cpu: CPUStats | undefined, labels: Array<[string, string]>): void {
    if (cpu?.usageCoreNanoSeconds === undefined) return;
    this.add(family, labels, cpu.usageCoreNanoSeconds / NS_PER_SECOND, Date.parse(cpu.time));
  }

  memory(family: Family, memory: MemoryStats | undefined, labels: Array<[string, string]>): void {
    if (memory?.workingSetBytes === undefined) return;
    this.add(family, labels, memory.workingSetBytes, Date.parse(memory.time));
  }

  text(): string {
    const blocks = FAMILIES.map((family) =>
      [`# HELP ${family.name} ${helpText(family.level, family.help, family.deprecatedVersion)}`, `# TYPE ${family.name} ${family.type}`, ...this.linesByFamily.get(family)!].join('\n'),
    );
    return `${blocks.join('\n')}\n`;
  }
}

function containerSamples(samples: Samples, pod: PodStats, container: ContainerStats): void {
  const labels: Array<[string, string]> = [
    ['container', container.name],
    ['namespace', pod.podRef.namespace],
    ['pod', pod.podRef.name],
  ];
  if (container.startTime) samples.add(CONTAINER_START, labels, Date.parse(container.startTime) / 1000);
  samples.cpu(CONTAINER_CPU, container.cpu, labels);
  samples.memory(CONTAINER_MEMORY, container.memory, labels);
}

/** The exposition text of /metrics/resource for `summary`; without one (the runtime failed), only the error gauges, at 1. */
export function resourceMetricsText(summary: Summary | undefined): string {
  const samples = new Samples();
  if (summary) {
    samples.cpu(NODE_CPU, summary.node.cpu, []);
    samples.memory(NODE_MEMORY, summary.node.memory, []);
    for (const pod of summary.pods) {
      for (const container of pod.containers) containerSamples(samples, pod, container);
      const labels: Array<[string, string]> = [
        ['namespace', pod.podRef.namespace],
        ['pod', pod.podRef.name],
      ];
      samples.cpu(POD_CPU, pod.cpu, labels);
      samples.memory(POD_MEMORY, pod.memory, labels);
    }
  }
  const errorValue = summary ? 0 : 1;
  samples.add(SCRAPE_ERROR, [], errorValue);
  samples.add(RESOURCE_SCRAPE_ERROR, [], errorValue);
  return samples.text();
}
