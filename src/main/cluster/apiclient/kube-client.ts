// The API server clients the kubelet uses, from its --kubeconfig, through
// @kubernetes/client-node (which talks HTTP through undici), all sharing one
// connection pool (shared-dispatcher.ts).
import { CoordinationV1Api, CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { ErrorCodes, ShardletError } from '../../../shared/errors.js';
import { shareConnections } from './shared-dispatcher.js';
import { TokenBucket } from './token-bucket.js';

export interface KubeClients {
  config: KubeConfig;
  core: CoreV1Api;
  coordination: CoordinationV1Api;
  watch: Watch;
  server: string;
  /** kubeAPIQPS / kubeAPIBurst, shared by every write the kubelet makes. */
  limiter: TokenBucket;
}

export function loadKubeClients(kubeconfigPath: string, qps: number, burst: number): KubeClients {
  const config = new KubeConfig();
  try {
    config.loadFromFile(kubeconfigPath);
  } catch (err) {
    throw new ShardletError(ErrorCodes.CONFIG_INVALID, `${kubeconfigPath}: cannot load the kubeconfig: ${(err as Error).message}`, {
      path: kubeconfigPath,
    });
  }
  shareConnections(config);
  const cluster = config.getCurrentCluster();
  if (!cluster) {
    throw new ShardletError(ErrorCodes.CONFIG_INVALID, `${kubeconfigPath}: field "current-context": names no cluster`, { path: kubeconfigPath });
  }
  return {
    config,
    core: config.makeApiClient(CoreV1Api),
    coordination: config.makeApiClient(CoordinationV1Api),
    watch: new Watch(config),
    server: cluster.server,
    limiter: new TokenBucket(qps, burst),
  };
}
