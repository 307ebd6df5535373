// The pods every scenario submits: one long-running container each, and in a third
// of them an init container that must run to completion first, spread round-robin
// over the scenario's images. The floor's bare client does the same work per pod.
import type { Pod } from '../src/shared/types.js';

export const BENCH_NAMESPACE = 'bench';
/** The node name shardlet registers; static pods get it as a name suffix. */
export const BENCH_NODE_NAME = 'bench-node';
const INIT_CONTAINER_EVERY = 3;

export interface BenchPod {
  name: string;
  image: string;
  withInitContainer: boolean;
  /** The probes scenario: the app container's readiness probe. */
  readiness?: BenchReadiness;
}

/** An httpGet against the bench's own server on the node, or an exec (ExecSync) in the container. */
export type BenchReadiness = ({ kind: 'http'; port: number } | { kind: 'exec' }) & { periodSeconds: number };

/** The probes scenario's period: upstream's default (the quick run's is shorter). */
export const BENCH_PROBE_PERIOD_SECONDS = 10;

/** Half the pods probe over HTTP; the other half by exec when `exec`, else HTTP too. */
export function withReadiness(pods: BenchPod[], httpPort: number, exec: boolean, periodSeconds: number): BenchPod[] {
  return pods.map((pod, index) => ({
    ...pod,
    readiness: exec && index % 2 === 1 ? { kind: 'exec', periodSeconds } : { kind: 'http', port: httpPort, periodSeconds },
  }));
}

function readinessProbe(readiness: BenchReadiness): Record<string, unknown> {
  const action =
    readiness.kind === 'http' ? { httpGet: { host: '127.0.0.1', port: readiness.port, path: '/healthz' } } : { exec: { command: ['true'] } };
  return { ...action, periodSeconds: readiness.periodSeconds };
}

export function benchPods(count: number, images: readonly string[]): BenchPod[] {
  return Array.from({ length: count }, (_, index) => benchPod(index, images));
}

/** The pod at `index` of the sequence: the churn goes on numbering after the first `count`. */
export function benchPod(index: number, images: readonly string[]): BenchPod {
  return {
    name: `bench-${String(index).padStart(4, '0')}`,
    image: images[index % images.length],
    withInitContainer: index % INIT_CONTAINER_EVERY === 0,
  };
}

/** What the init container and the app container run (busybox on containerd; the sim reads the command). */
export const INIT_COMMAND = ['sh', '-c', 'true'];
export const APP_COMMAND = ['sleep', '3600'];

/** The pod as a user writes it: no requests (BestEffort), IfNotPresent so present images are not pulled again. */
export function podManifest(pod: BenchPod, nodeName?: string): Pod {
  const container = (name: string, command: string[]) => ({ name, image: pod.image, imagePullPolicy: 'IfNotPresent', command });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: pod.name, namespace: BENCH_NAMESPACE, labels: { app: 'shardlet-bench' } },
    spec: {
      ...(nodeName ? { nodeName } : {}),
      ...(pod.withInitContainer ? { initContainers: [container('init', INIT_COMMAND)] } : {}),
      containers: [{ ...container('app', APP_COMMAND), ...(pod.readiness ? { readinessProbe: readinessProbe(pod.readiness) } : {}) }],
    },
  };
}
