// The kubelet API server's request series (upstream's pkg/kubelet/server/metrics):
// kubelet_http_requests_total, kubelet_http_requests_duration_seconds and
// kubelet_http_inflight_requests. Module-level so the server calls one function per
// request without being handed the metrics object; KubeletMetrics registers these
// series in its registry.
import client from 'prom-client';
import { DEF_BUCKETS_SECONDS } from '../../shared/metrics/shared-histogram.js';
import { helpText } from './stability.js';

const LABELS = ['method', 'path', 'server_type', 'long_running'] as const;

export const httpRequests = new client.Counter({
  name: 'kubelet_http_requests_total',
  help: helpText('ALPHA', 'Number of the http requests received since the server started'),
  labelNames: LABELS,
  registers: [],
});

export const httpRequestDuration = new client.Histogram({
  name: 'kubelet_http_requests_duration_seconds',
  help: helpText('ALPHA', 'Duration in seconds to serve http requests'),
  labelNames: LABELS,
  buckets: [...DEF_BUCKETS_SECONDS],
  registers: [],
});

export const httpInflightRequests = new client.Gauge({
  name: 'kubelet_http_inflight_requests',
  help: helpText('ALPHA', 'Number of the inflight http requests'),
  labelNames: LABELS,
  registers: [],
});

/** Paths whose requests hold the connection for a session, as upstream's longRunningRequestPathMap. */
const LONG_RUNNING_ROOTS = new Set(['exec', 'attach', 'portForward', 'debug']);

/** The path label: "metrics/<sub>" for metrics paths, else the first path segment (upstream's getURLRootPath). */
export function urlRootPath(path: string): string {
  const parts = path.replace(/^\//, '').split('/', 3);
  if (parts[0] === 'metrics' && parts.length > 1) return `metrics/${parts[1]}`;
  return parts[0];
}

/**
 * Counts one request to the kubelet API as it arrives (`serverType` "readwrite" for
 * :10250, "readonly" for the read-only port) and returns the function to call when it
 * has been served, which records its duration and ends it in the in-flight gauge.
 */
export function recordHttpRequest(method: string, path: string, serverType: 'readwrite' | 'readonly' = 'readwrite'): () => void {
  const root = urlRootPath(path);
  const labels = { method, path: root, server_type: serverType, long_running: String(LONG_RUNNING_ROOTS.has(root)) };
  httpRequests.inc(labels);
  httpInflightRequests.inc(labels);
  const endTimer = httpRequestDuration.startTimer(labels);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    endTimer();
    httpInflightRequests.dec(labels);
  };
}
