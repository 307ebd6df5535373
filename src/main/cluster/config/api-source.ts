// The API server pod source, as upstream's NewSourceApiserver: list and watch the
// pods bound to this node (fieldSelector spec.nodeName=<node>) and hand the merge
// the full set as a SET from source "api" (upstream's undelta store), once per burst
// of changes. The list/watch is supervised (restarted with backoff while the server
// is away); the first SET goes out only after the first successful list, which is
// what sources-ready waits for.
import type { V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { API_SOURCE, type Pod, type PodUpdate } from '../../../shared/types.js';
import type { KubeClients } from '../apiclient/kube-client.js';
import { SupervisedListWatch } from '../apiclient/supervised-list-watch.js';

export interface ApiSourceOptions {
  clients: KubeClients;
  nodeName: string;
  logger: Logger;
  onUpdate: (update: PodUpdate) => void;
}

export class ApiSource {
  private readonly pods: SupervisedListWatch<V1Pod>;
  private stopped = false;
  private listed = false;
  private setScheduled = false;

  constructor(private readonly options: ApiSourceOptions) {
    const { clients, nodeName, logger } = options;
    const fieldSelector = `spec.nodeName=${nodeName}`;
    this.pods = new SupervisedListWatch<V1Pod>({
      path: '/api/v1/pods',
      watch: clients.watch,
      listFn: () => clients.core.listPodForAllNamespaces({ fieldSelector }),
      fieldSelector,
      logger,
      logContext: { source: API_SOURCE },
      failureMessage: 'API server pod list/watch failed; retrying with backoff, running pods are left alone',
      onStarted: () => {
        this.listed = true;
        this.scheduleSet();
      },
    });
    for (const verb of ['add', 'update', 'delete'] as const) this.pods.listWatch.on(verb, () => this.scheduleSet());
  }

  /** Starts listing and watching; resolves after the first attempt (retries go on). */
  start(): Promise<void> {
    return this.pods.start();
  }

  stop(): void {
    this.stopped = true;
    this.pods.stop();
  }

  /** Many watch events in one burst make one SET. */
  private scheduleSet(): void {
    if (!this.listed || this.setScheduled) return;
    this.setScheduled = true;
    setImmediate(() => {
      this.setScheduled = false;
      if (this.stopped) return;
      this.options.onUpdate({ op: 'SET', source: API_SOURCE, pods: this.pods.listWatch.list() as Pod[] });
    });
  }
}
