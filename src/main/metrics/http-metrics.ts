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

/** The label of every path or method outside the known set, as upstream's getMetricBucket and getMetricMethodBucket. */
export const OTHER_BUCKET = 'other';

/**
 * Upstream's metricsMethodBuckets: the methods recorded by name (PATCH is not among
 * them there either). Anything else a client sends is "other", so the method label
 * has a fixed set of values whatever arrives.
 */
export const METHOD_BUCKETS: ReadonlySet<string> = new Set(['OPTIONS', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'TRACE', 'CONNECT']);

/** The path label: "metrics/<sub>" for metrics paths, else the first path segment (upstream's getURLRootPath). */
export function urlRootPath(path: string): string {
  const parts = path.replace(/^\//, '').split('/', 3);
  if (parts[0] === 'metrics' && parts.length > 1) return `metrics/${parts[1]}`;
  return parts[0];
}

/**
 * The path buckets of a server: the root of every path it serves, as upstream's
 * addMetricsBucketMatcher is called for each handler it installs. A request for any
 * other path is counted as "other": a client cannot add series by inventing paths.
 */
export function pathBuckets(servedPaths: Iterable<string>): ReadonlySet<string> {
  return new Set([...servedPaths].map(urlRootPath));
}

/** The label values of one request: method and path from their fixed sets. */
export function requestLabels(method: string, path: string, serverType: 'readwrite' | 'readonly', buckets: ReadonlySet<string>) {
  const root = urlRootPath(path);
  const pathBucket = buckets.has(root) ? root : OTHER_BUCKET;
  return {
    method: METHOD_BUCKETS.has(method) ? method : OTHER_BUCKET,
    path: pathBucket,
    server_type: serverType,
    long_running: String(LONG_RUNNING_ROOTS.has(pathBucket)),
  };
}

/**
 * Counts one request to the kubelet API as it arrives (`serverType` "readwrite" for
 * :10250, "readonly" for the read-only port; `buckets` the server's pathBuckets) and
 * returns the function to call when it has been served, which records its duration
 * and ends it in the in-flight gauge.
 */
export function recordHttpRequest(method: string, path: string, serverType: 'readwrite' | 'readonly', buckets: ReadonlySet<string>): () => void {
  const labels = requestLabels(method, path, serverType, buckets);
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
