// The process object-watch-cost.ts measures: shardlet's PodApiDataProvider alone,
// with the node's kubeconfig, asked for the API data of N pods that each mount a
// Secret of their own, then left at rest holding the N watches. Argument: a JSON
// ObjectWatchJob. It sends `{ ready: true, registerMs, missing, firstPassMissing }` on its IPC
// channel once every pod's Secret was answered (or it gave up), and runs until it is killed.
import { pino } from 'pino';
import { loadKubeClients } from '../src/main/cluster/apiclient/kube-client.js';
import { PodApiDataProvider } from '../src/main/cluster/apidata/pod-api-data.js';
import type { Pod } from '../src/shared/types.js';

export interface ObjectWatchJob {
  kubeconfig: string;
  namespace: string;
  pods: number;
}

const REGISTER_TIMEOUT_MS = 4 * 60_000;

export function benchSecretName(index: number): string {
  return `bench-secret-${index}`;
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? '{}') as ObjectWatchJob;
  const clients = loadKubeClients(job.kubeconfig, 50, 100);
  const provider = new PodApiDataProvider({ clients, logger: pino({ level: 'warn' }), onObjectChanged: () => {} });
  const startedAt = performance.now();
  const pods: Pod[] = Array.from({ length: job.pods }, (_, i) => ({
    metadata: { name: `bench-pod-${i}`, namespace: job.namespace, uid: `bench-uid-${i}` },
    spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 's', secret: { secretName: benchSecretName(i) } }] },
  }));
  // A pod whose Secret was not listed within FIRST_LIST_WAIT_MS gets null and asks again, as its resync would.
  let waiting = pods;
  let firstPassMissing = -1;
  while (waiting.length > 0 && performance.now() - startedAt < REGISTER_TIMEOUT_MS) {
    const answers = await Promise.all(waiting.map((pod) => provider.dataFor(pod)));
    waiting = waiting.filter((_, i) => Object.values(answers[i].secrets).some((secret) => secret === null));
    if (firstPassMissing < 0) firstPassMissing = waiting.length;
  }
  process.send?.({ ready: true, registerMs: performance.now() - startedAt, missing: waiting.length, firstPassMissing });
  // At rest until killed, watches or not (with no pods nothing else keeps the process up).
  setInterval(() => {}, 60_000);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
