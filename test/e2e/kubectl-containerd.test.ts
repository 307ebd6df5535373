// kubectl against a shardlet node on real containerd: logs, exec, cp, port-forward to
// busybox httpd, stats, metrics, and Prometheus scraping :10250 over TLS.
import { ensureContainerd } from '../../src/tools/containerd-env.js';
import { kubectlScenario } from './kubectl-scenario.js';

kubectlScenario('containerd', async () => {
  const containerd = ensureContainerd();
  return { endpoint: containerd.endpoint, image: containerd.busyboxImage, realProcesses: true, stop: async () => undefined };
});
