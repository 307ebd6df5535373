// Hands the bench's pods to shardlet's source all at once and notes when each was
// handed over: the start of its pod-startup latency ("the pod's appearance in its
// source"). Static: a manifest file written into --pod-manifest-path. API: a POST
// to the test API server, as a user's client would create it.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import type { ClientCredentials } from '../src/testapiserver/server.js';
import { BENCH_NAMESPACE, BENCH_NODE_NAME, podManifest, type BenchPod } from './bench-pods.js';
import { limiter } from './limiter.js';

/** Creates in flight at once: a busy client, not a connection per pod. */
const API_CREATE_CONCURRENCY = 32;

export interface PodSubmitter {
  /**
   * Submits every pod; resolves with when each was handed over, in epoch ms, by
   * "namespace/name" as shardlet reports the pod.
   */
  submit(pods: readonly BenchPod[]): Promise<Map<string, number>>;
}

/** "namespace/name" as shardlet reports a static pod: named <name>-<node>. */
export function staticPodKey(pod: BenchPod): string {
  return `${BENCH_NAMESPACE}/${pod.name}-${BENCH_NODE_NAME}`;
}

/** Writes one JSON manifest per pod. */
export function staticSubmitter(manifestDir: string): PodSubmitter {
  return {
    async submit(pods) {
      const submittedAtMs = new Map<string, number>();
      for (const pod of pods) {
        submittedAtMs.set(staticPodKey(pod), Date.now());
        writeFileSync(join(manifestDir, `${pod.name}.json`), JSON.stringify(podManifest(pod)));
      }
      return submittedAtMs;
    },
  };
}

/** Deletes a static pod the way an operator does: its manifest goes. */
export function removeStaticPod(manifestDir: string, pod: BenchPod): void {
  rmSync(join(manifestDir, `${pod.name}.json`), { force: true });
}

/** The API server's admin client: plain HTTPS with a client certificate. */
export class ApiSubmitter implements PodSubmitter {
  private readonly agent: Agent;

  constructor(
    private readonly serverUrl: string,
    credentials: ClientCredentials,
  ) {
    this.agent = new Agent({
      connections: API_CREATE_CONCURRENCY,
      connect: { ca: credentials.caPem, cert: credentials.certPem, key: credentials.keyPem },
    });
  }

  /** The bench namespace, created before shardlet's writes are counted. */
  async createNamespace(): Promise<void> {
    await this.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: BENCH_NAMESPACE } });
  }

  async submit(pods: readonly BenchPod[]): Promise<Map<string, number>> {
    const submittedAtMs = new Map<string, number>();
    const limit = limiter(API_CREATE_CONCURRENCY);
    await Promise.all(
      pods.map((pod) =>
        limit(() => {
          // Taken when the request goes out, not when it was queued behind others.
          submittedAtMs.set(`${BENCH_NAMESPACE}/${pod.name}`, Date.now());
          // Bound to the node already: the test API server has no scheduler.
          return this.post(`/api/v1/namespaces/${BENCH_NAMESPACE}/pods`, podManifest(pod, BENCH_NODE_NAME));
        }),
      ),
    );
    return submittedAtMs;
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async post(path: string, body: unknown): Promise<void> {
    const reply = await request(`${this.serverUrl}${path}`, {
      method: 'POST',
      dispatcher: this.agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await reply.body.text();
    if (reply.statusCode !== 201) throw new Error(`bench: POST ${path}: HTTP ${reply.statusCode}: ${text.slice(0, 300)}`);
  }
}
