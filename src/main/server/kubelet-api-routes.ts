// Every endpoint of the kubelet API (:10250), each concern registering its own
// paths in the one route table the server consults after authn/authz: the default
// ones (healthz, pods, runningpods, configz), metrics and stats, container logs,
// the streaming endpoints (exec, attach, portForward, run) and the z-pages
// (statusz, flagz).
import type { Logger } from 'pino';
import type { CriClient } from '../../shared/cri/client.js';
import type { Pod, PodStatus } from '../../shared/types.js';
import { containerLogsRoute } from '../logs/container-logs-route.js';
import type { KubeletMetrics } from '../metrics/kubelet-metrics.js';
import { registerMetricsRoutes } from '../metrics/metrics-routes.js';
import type { KubeletOptions } from '../options/kubelet-options.js';
import type { PodManager } from '../pod/pod-manager.js';
import type { SummaryProvider } from '../stats/summary-provider.js';
import { streamingRoutes } from '../streaming/streaming-routes.js';
import { addDefaultRoutes } from './default-routes.js';
import type { Health } from './healthz.js';
import { KubeletRoutes } from './kubelet-routes.js';
import { runningPods } from './running-pods.js';
import { addZpageRoutes } from './zpages-routes.js';
import { KUBERNETES_VERSION, kubeletVersion } from '../version.js';

/** When this process started, epoch ms: /statusz's start time. */
const PROCESS_START_MS = Date.now() - process.uptime() * 1000;

export interface KubeletApiSources {
  options: KubeletOptions;
  podManager: PodManager;
  statusOf(uid: string): PodStatus | undefined;
  healthy(): Health;
  /** The kubelet API's CRI client; undefined until the runtime answered at start-up. */
  cri(): CriClient | undefined;
  metrics: KubeletMetrics;
  summary: SummaryProvider;
  logger: Logger;
  /** The command line /flagz shows; the process's own by default. */
  argv?: readonly string[];
}

export function kubeletApiRoutes(sources: KubeletApiSources): KubeletRoutes {
  const { options, podManager, logger } = sources;
  const routes = new KubeletRoutes();
  const withStatus = (pod: Pod): Pod => ({ ...pod, status: sources.statusOf(pod.metadata?.uid ?? '') ?? pod.status });
  addDefaultRoutes(
    routes,
    {
      healthy: () => sources.healthy(),
      pods: () => podManager.pods().map(withStatus),
      runningPods: () => {
        const cri = sources.cri();
        if (!cri) throw new Error('the container runtime is not ready yet');
        return runningPods(cri);
      },
      resolvedConfig: options.kubeletServer.resolvedConfig,
    },
    options.kubeletServer.enableDebuggingHandlers,
  );
  registerMetricsRoutes(routes, { metrics: sources.metrics, summary: sources.summary, logger });
  routes.add(
    containerLogsRoute({
      podByName: (namespace, name) => podManager.getByName(namespace, name),
      statusOf: (uid) => sources.statusOf(uid),
      cri: () => sources.cri(),
      splitStreams: options.featureGates.PodLogsQuerySplitStreams === true,
      logger,
    }),
  );
  const streaming = streamingRoutes(
    { pods: () => podManager.pods(), mirrorPods: () => podManager.mirrorPods(), cri: () => sources.cri() },
    { idleTimeoutMs: options.streamingConnectionIdleTimeoutMs, logger },
  );
  for (const route of streaming) routes.add(route);
  addZpageRoutes(routes, {
    featureGates: options.featureGates,
    argv: sources.argv ?? process.argv.slice(2),
    statusz: () => ({
      componentName: 'kubelet',
      startTimeMs: PROCESS_START_MS,
      binaryVersion: kubeletVersion().replace(/^v/, ''),
      emulationVersion: KUBERNETES_VERSION.split('.').slice(0, 2).join('.'),
      runtimeVersion: `node${process.versions.node}`,
      paths: routes.list().map((route) => route.path),
    }),
  });
  return routes;
}
