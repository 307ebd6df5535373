// kubelet_runtime_operations_total, _errors_total and _duration_seconds, read at
// scrape time from the shared-memory CRI counters every thread's CriClient adds to
// (src/shared/cri/call-counts.ts): no thread is asked anything during a scrape. They
// are registered in the prom-client registry as metric objects whose get() builds
// the series from the counters, since prom-client's own Counter and Histogram keep
// their state in this thread's memory.
import type { CriCallCounts, CriMethod, CriMethodFigures } from '../../shared/cri/call-counts.js';
import { RUNTIME_OPERATION_BUCKETS_SECONDS } from '../../shared/cri/call-counts.js';
import { helpText } from './stability.js';

/** Upstream's operation_type label of each CRI method (the instrumented runtime service's names). */
export const OPERATION_TYPE: Readonly<Record<CriMethod, string>> = {
  Version: 'version',
  Status: 'status',
  UpdateRuntimeConfig: 'update_runtime_config',
  ReopenContainerLog: 'reopen_container_log',
  RunPodSandbox: 'run_podsandbox',
  StopPodSandbox: 'stop_podsandbox',
  RemovePodSandbox: 'remove_podsandbox',
  PodSandboxStatus: 'podsandbox_status',
  ListPodSandbox: 'list_podsandbox',
  CreateContainer: 'create_container',
  StartContainer: 'start_container',
  StopContainer: 'stop_container',
  RemoveContainer: 'remove_container',
  ListContainers: 'list_containers',
  ContainerStatus: 'container_status',
  UpdateContainerResources: 'update_container',
  ExecSync: 'exec_sync',
  GetContainerEvents: 'get_container_events',
  ListImages: 'list_images',
  ImageStatus: 'image_status',
  PullImage: 'pull_image',
  RemoveImage: 'remove_image',
  ImageFsInfo: 'image_fs_info',
  ContainerStats: 'container_stats',
  ListContainerStats: 'list_container_stats',
  PodSandboxStats: 'podsandbox_stats',
  ListPodSandboxStats: 'list_podsandbox_stats',
};

interface SeriesValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** The shape prom-client's Registry reads from a metric (its get()). */
export interface ScrapedMetric {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: SeriesValue[]; aggregator: 'sum' }>;
}

function scraped(name: string, help: string, type: ScrapedMetric['type'], values: () => SeriesValue[]): ScrapedMetric {
  return {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, values: values(), aggregator: 'sum' }),
  };
}

/** Prometheus' text form of a bucket bound, as client_golang writes it (0.005, 298.0232238769531, +Inf). */
function le(bound: number): string {
  return Number.isFinite(bound) ? String(bound) : '+Inf';
}

function histogramValues(name: string, figures: CriMethodFigures[]): SeriesValue[] {
  const values: SeriesValue[] = [];
  for (const { method, durationSeconds } of figures) {
    const operation_type = OPERATION_TYPE[method];
    RUNTIME_OPERATION_BUCKETS_SECONDS.forEach((bound, index) => {
      values.push({ metricName: `${name}_bucket`, labels: { le: le(bound), operation_type }, value: durationSeconds.cumulative[index] });
    });
    values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', operation_type }, value: durationSeconds.count });
    values.push({ metricName: `${name}_sum`, labels: { operation_type }, value: durationSeconds.sum });
    values.push({ metricName: `${name}_count`, labels: { operation_type }, value: durationSeconds.count });
  }
  return values;
}

/** The three runtime operation series over `counts`. */
export function criOperationMetrics(counts: CriCallCounts): ScrapedMetric[] {
  return [
    scraped('kubelet_runtime_operations_total', helpText('ALPHA', 'Cumulative number of runtime operations by operation type.'), 'counter', () =>
      counts.figures().map((f) => ({ labels: { operation_type: OPERATION_TYPE[f.method] }, value: f.calls })),
    ),
    scraped(
      'kubelet_runtime_operations_errors_total',
      helpText('ALPHA', 'Cumulative number of runtime operation errors by operation type.'),
      'counter',
      () => counts.figures().filter((f) => f.errors > 0).map((f) => ({ labels: { operation_type: OPERATION_TYPE[f.method] }, value: f.errors })),
    ),
    scraped(
      'kubelet_runtime_operations_duration_seconds',
      helpText('ALPHA', 'Duration in seconds of runtime operations. Broken down by operation type.'),
      'histogram',
      () => histogramValues('kubelet_runtime_operations_duration_seconds', counts.figures()),
    ),
  ];
}
