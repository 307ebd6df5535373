// The kubelet API routes of metrics and stats: /metrics, /metrics/cadvisor,
// /metrics/resource, /metrics/probes and /stats/summary (with metrics-server's
// ?only_cpu_and_memory=true), registered in the route table the :10250 server
// consults after authentication and authorization.
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { KubeletRoutes } from '../server/kubelet-routes.js';
import type { SummaryProvider } from '../stats/summary-provider.js';
import type { KubeletMetrics } from './kubelet-metrics.js';
import { cadvisorView } from '../stats/cadvisor-view.js';
import { cadvisorMetricsText } from './cadvisor-metrics.js';
import { probeRegistry } from './probe-metrics.js';
import { resourceMetricsText } from './resource-metrics.js';

const TEXT_FORMAT = 'text/plain; version=0.0.4; charset=utf-8';

export interface MetricsRoutesDeps {
  metrics: KubeletMetrics;
  summary: SummaryProvider;
  logger: Logger;
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export function registerMetricsRoutes(routes: KubeletRoutes, deps: MetricsRoutesDeps): void {
  const { metrics, summary, logger } = deps;
  routes.add({
    path: '/metrics',
    methods: ['GET'],
    request: async (_req, res) => send(res, 200, metrics.contentType, await metrics.metrics()),
  });
  routes.add({
    path: '/metrics/probes',
    methods: ['GET'],
    request: async (_req, res) => send(res, 200, probeRegistry.contentType, await probeRegistry.metrics()),
  });
  routes.add({
    path: '/metrics/cadvisor',
    methods: ['GET'],
    request: async (_req, res) => {
      // As cAdvisor's collector: a failure to list containers is container_scrape_error 1 in a 200, not an HTTP error.
      const views = await summary
        .cadvisorFigures()
        .then(cadvisorView)
        .catch((err: Error) => {
          logger.warn({ err: err.message }, "Couldn't get containers");
          return undefined;
        });
      send(res, 200, TEXT_FORMAT, cadvisorMetricsText(views));
    },
  });
  routes.add({
    path: '/metrics/resource',
    methods: ['GET'],
    request: async (_req, res) => {
      // A runtime that fails is reported in the scrape (scrape_error 1), as upstream, not as an HTTP error.
      const figures = await summary.summary(true).catch((err: Error) => {
        logger.warn({ err: err.message }, 'Error getting summary for resourceMetric prometheus endpoint');
        return undefined;
      });
      send(res, 200, TEXT_FORMAT, resourceMetricsText(figures));
    },
  });
  routes.add({
    path: '/stats/summary',
    methods: ['GET'],
    request: async (_req, res, ctx) => {
      const onlyCpuAndMemory = ctx.url.searchParams.get('only_cpu_and_memory') === 'true';
      try {
        send(res, 200, 'application/json', JSON.stringify(await summary.summary(onlyCpuAndMemory)));
      } catch (err) {
        logger.warn({ err: (err as Error).message }, 'Failed to get summary stats');
        send(res, 500, 'text/plain; charset=utf-8', `Internal Error: failed to get node stats: ${(err as Error).message}\n`);
      }
    },
  });
}
