// /metrics/cadvisor: the series upstream's kubelet serves there through cAdvisor's
// PrometheusCollector and machine collector (vendor/github.com/google/cadvisor/
// metrics/prometheus.go, prometheus_machine.go), for the cgroups cadvisor-view.ts
// lists: names, HELP texts (cAdvisor's, without a stability prefix), types and the
// extra labels (cpu="total", failure_type/scope) as cAdvisor writes them, label names
// sorted as client_golang prints them, each figure with the time it was taken.
// Only what the CRI stats and the pod cgroup give: no per-CPU, user/system, network,
// filesystem, process or OOM series. Nor cadvisor_version_info: its camelCase label
// names (kernelVersion, …) fail `promtool check metrics`, which this endpoint passes.
// Written out directly, as /metrics/resource.
import { machineInfo } from '../stats/machine-info.js';
import type { CgroupView } from '../stats/cadvisor-view.js';
import { escapeLabel } from './resource-metrics.js';

interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
}

function family(name: string, type: Family['type'], help: string): Family {
  return { name, help, type };
}

const CPU_CFS_PERIODS = family('container_cpu_cfs_periods_total', 'counter', 'Number of elapsed enforcement period intervals.');
const CPU_CFS_THROTTLED_PERIODS = family('container_cpu_cfs_throttled_periods_total', 'counter', 'Number of throttled period intervals.');
const CPU_CFS_THROTTLED_SECONDS = family('container_cpu_cfs_throttled_seconds_total', 'counter', 'Total time duration the container has been throttled.');
const CPU_USAGE = family('container_cpu_usage_seconds_total', 'counter', 'Cumulative cpu time consumed in seconds.');
const LAST_SEEN = family('container_last_seen', 'gauge', 'Last time a container was seen by the exporter');
const MEMORY_CACHE = family('container_memory_cache', 'gauge', 'Number of bytes of page cache memory.');
const MEMORY_FAILURES = family('container_memory_failures_total', 'counter', 'Cumulative count of memory allocation failures.');
const MEMORY_RSS = family('container_memory_rss', 'gauge', 'Size of RSS in bytes.');
const MEMORY_USAGE = family('container_memory_usage_bytes', 'gauge', 'Current memory usage in bytes, including all memory regardless of when it was accessed');
const MEMORY_WORKING_SET = family('container_memory_working_set_bytes', 'gauge', 'Current working set in bytes.');
const SCRAPE_ERROR = family('container_scrape_error', 'gauge', '1 if there was an error while getting container metrics, 0 otherwise');
const SPEC_CPU_PERIOD = family('container_spec_cpu_period', 'gauge', 'CPU period of the container.');
const SPEC_CPU_QUOTA = family('container_spec_cpu_quota', 'gauge', 'CPU quota of the container.');
const SPEC_CPU_SHARES = family('container_spec_cpu_shares', 'gauge', 'CPU share of the container.');
const SPEC_MEMORY_LIMIT = family('container_spec_memory_limit_bytes', 'gauge', 'Memory limit for the container.');
const START_TIME = family('container_start_time_seconds', 'gauge', 'Start time of the container since unix epoch in seconds.');
const MACHINE_CPU_CORES = family('machine_cpu_cores', 'gauge', 'Number of logical CPU cores.');
const MACHINE_MEMORY = family('machine_memory_bytes', 'gauge', 'Amount of memory installed on the machine.');

/** In the order client_golang's registry writes them: by name. */
const FAMILIES = [
  CPU_CFS_PERIODS,
  CPU_CFS_THROTTLED_PERIODS,
  CPU_CFS_THROTTLED_SECONDS,
  CPU_USAGE,
  LAST_SEEN,
  MEMORY_CACHE,
  MEMORY_FAILURES,
  MEMORY_RSS,
  MEMORY_USAGE,
  MEMORY_WORKING_SET,
  SCRAPE_ERROR,
  SPEC_CPU_PERIOD,
  SPEC_CPU_QUOTA,
  SPEC_CPU_SHARES,
  SPEC_MEMORY_LIMIT,
  START_TIME,
  MACHINE_CPU_CORES,
  MACHINE_MEMORY,
];

function labelText(labels: Array<[string, string]>): string {
  return labels.map(([key, value]) => `${key}="${escapeLabel(value)}"`).join(',');
}

/**
 * One cgroup's base labels as text, and the same with cAdvisor's extra labels
 * spliced in where sorting puts them (cpu and failure_type after container, scope
 * last), built once per cgroup rather than sorted per sample.
 */
class CgroupLabelText {
  readonly base: string;
  private readonly containerPart: string;
  private readonly rest: string;

  constructor(labels: CgroupView['labels']) {
    this.containerPart = `container="${escapeLabel(labels.container)}"`;
    this.rest = labelText([
      ['id', labels.id],
      ['image', labels.image],
      ['name', labels.name],
      ['namespace', labels.namespace],
      ['pod', labels.pod],
    ]);
    this.base = `${this.containerPart},${this.rest}`;
  }

  withCpu(cpu: string): string {
    return `${this.containerPart},cpu="${cpu}",${this.rest}`;
  }

  withFailure(failureType: string, scope: string): string {
    return `${this.containerPart},failure_type="${failureType}",${this.rest},scope="${scope}"`;
  }
}

class Samples {
  private readonly linesByFamily = new Map<Family, string[]>(FAMILIES.map((f) => [f, []]));

  add(f: Family, labels: string, value: number | undefined, atMs?: number): void {
    if (value === undefined || !Number.isFinite(value)) return;
    const time = atMs === undefined ? '' : ` ${Math.round(atMs)}`;
    this.linesByFamily.get(f)!.push(`${f.name}${labels ? `{${labels}}` : ''} ${value}${time}`);
  }

  text(): string {
    const blocks: string[] = [];
    for (const f of FAMILIES) {
      const lines = this.linesByFamily.get(f)!;
      // client_golang writes no HELP/TYPE for a family without samples.
      if (lines.length > 0) blocks.push(`# HELP ${f.name} ${f.help}\n# TYPE ${f.name} ${f.type}\n${lines.join('\n')}`);
    }
    return `${blocks.join('\n')}\n`;
  }
}

function cgroupSamples(samples: Samples, view: CgroupView, nowMs: number): void {
  const text = new CgroupLabelText(view.labels);
  samples.add(START_TIME, text.base, view.startTimeSeconds);
  samples.add(SPEC_CPU_PERIOD, text.base, view.spec.cpuPeriodUs);
  if (view.spec.cpuQuotaUs !== 0) samples.add(SPEC_CPU_QUOTA, text.base, view.spec.cpuQuotaUs);
  samples.add(SPEC_CPU_SHARES, text.base, view.spec.cpuShares);
  samples.add(SPEC_MEMORY_LIMIT, text.base, view.spec.memoryLimitBytes);
  samples.add(LAST_SEEN, text.base, Math.floor(nowMs / 1000), nowMs);
  if (view.cpu && view.cpu.usageSeconds > 0) samples.add(CPU_USAGE, text.withCpu('total'), view.cpu.usageSeconds, view.cpu.atMs);
  // cAdvisor writes the CFS series only for a cgroup with a quota.
  if (view.cfs && view.spec.cpuQuotaUs !== 0) {
    samples.add(CPU_CFS_PERIODS, text.base, view.cfs.periods, view.cfs.atMs);
    samples.add(CPU_CFS_THROTTLED_PERIODS, text.base, view.cfs.throttledPeriods, view.cfs.atMs);
    samples.add(CPU_CFS_THROTTLED_SECONDS, text.base, view.cfs.throttledNanoSeconds / 1e9, view.cfs.atMs);
  }
  const memory = view.memory;
  if (!memory) return;
  samples.add(MEMORY_CACHE, text.base, memory.cacheBytes, memory.atMs);
  samples.add(MEMORY_RSS, text.base, memory.rssBytes, memory.atMs);
  samples.add(MEMORY_USAGE, text.base, memory.usageBytes, memory.atMs);
  samples.add(MEMORY_WORKING_SET, text.base, memory.workingSetBytes, memory.atMs);
  // cgroup v2 and the CRI keep one count per cgroup: cAdvisor's container and hierarchy scopes are the same figure.
  for (const scope of ['container', 'hierarchy']) {
    samples.add(MEMORY_FAILURES, text.withFailure('pgfault', scope), memory.pageFaults, memory.atMs);
    samples.add(MEMORY_FAILURES, text.withFailure('pgmajfault', scope), memory.majorPageFaults, memory.atMs);
  }
}

/** The exposition text of /metrics/cadvisor; without cgroups (the runtime failed) container_scrape_error is 1. */
export function cadvisorMetricsText(views: CgroupView[] | undefined, nowMs = Date.now()): string {
  const samples = new Samples();
  const machine = machineInfo();
  const machineLabels = labelText([
    ['boot_id', machine.bootId],
    ['machine_id', machine.machineId],
    ['system_uuid', machine.systemUuid],
  ]);
  samples.add(MACHINE_CPU_CORES, machineLabels, machine.cpuCores);
  samples.add(MACHINE_MEMORY, machineLabels, machine.memoryBytes);
  for (const view of views ?? []) cgroupSamples(samples, view, nowMs);
  samples.add(SCRAPE_ERROR, '', views ? 0 : 1);
  return samples.text();
}
