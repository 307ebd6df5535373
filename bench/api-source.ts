// The API source of a run: the project's test API server, the node's kubeconfig
// for shardlet, and the admin client that creates the pods. Its request counter
// gives the API writes shardlet makes (status patches, events, node status, lease).
import { join } from 'node:path';
import { startTestApiServer, type TestApiServer } from '../src/testapiserver/server.js';
import { BENCH_NAMESPACE, BENCH_NODE_NAME } from './bench-pods.js';
import { ApiSubmitter } from './pod-submitters.js';

const CONNECT_TIMEOUT_MS = 60_000;
const CONNECT_POLL_MS = 100;
const NODES = { key: 'nodes', group: '', plural: 'nodes' };
const PODS = { key: 'pods', group: '', plural: 'pods' };
/** Request counter keys are "<verb> <resource>"; these verbs change state. */
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

export class BenchApiServer {
  private constructor(
    private readonly api: TestApiServer,
    readonly nodeKubeconfig: string,
    readonly submitter: ApiSubmitter,
  ) {}

  static async start(workDir: string): Promise<BenchApiServer> {
    const api = await startTestApiServer();
    try {
      const nodeKubeconfig = await api.writeKubeconfig(join(workDir, 'node.kubeconfig'), { user: 'kubelet', nodeName: BENCH_NODE_NAME });
      const submitter = new ApiSubmitter(api.url, await api.clientCredentials({ user: 'admin' }));
      await submitter.createNamespace();
      return new BenchApiServer(api, nodeKubeconfig, submitter);
    } catch (err) {
      await api.stop();
      throw err;
    }
  }

  /** Waits until shardlet registered its node and watches its pods, so a pod created now reaches it at once. */
  async waitForKubelet(assertKubeletRunning: () => void): Promise<void> {
    const deadline = Date.now() + CONNECT_TIMEOUT_MS;
    while (Date.now() < deadline) {
      assertKubeletRunning();
      const watching = (this.api.requestCount()['watch pods'] ?? 0) > 0;
      if (watching && this.api.store.get(NODES, undefined, BENCH_NODE_NAME)) return;
      await new Promise((resolve) => setTimeout(resolve, CONNECT_POLL_MS));
    }
    throw new Error(`shardlet did not register node ${BENCH_NODE_NAME} and watch pods within ${CONNECT_TIMEOUT_MS} ms`);
  }

  /** Pods of the namespace whose status in the API server says Running: what kubectl shows. */
  podsRunning(): number {
    return this.api.store.list(PODS, BENCH_NAMESPACE).items.filter((pod) => (pod.status as { phase?: string } | undefined)?.phase === 'Running').length;
  }

  resetRequestCount(): void {
    this.api.resetRequestCount();
  }

  /** Writes since the last reset by "<verb> <resource>", without the bench's own `benchPodCreates`. */
  kubeletWrites(benchPodCreates: number): Record<string, number> {
    const writes: Record<string, number> = {};
    for (const [key, count] of Object.entries(this.api.requestCount())) {
      if (!WRITE_VERBS.has(key.split(' ')[0])) continue;
      const byKubelet = key === 'create pods' ? count - benchPodCreates : count;
      if (byKubelet > 0) writes[key] = byKubelet;
    }
    return writes;
  }

  async stop(): Promise<void> {
    await this.submitter.close();
    await this.api.stop();
  }
}
