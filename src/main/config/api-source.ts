// The API server pod source, as upstream's NewSourceApiserver: list and watch the
// pods bound to this node (fieldSelector spec.nodeName=<node>) and hand the merge
// the full set as a SET from source "api" (upstream's undelta store), once per burst
// of changes. @kubernetes/client-node's ListWatch resumes from the last
// resourceVersion and relists on 410 Gone, but stops on any other error; this source
// supervises it and restarts it with backoff while the server is away. The first
// SET goes out only after the first successful list (sources-ready waits for it).
import { ListWatch, type V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ErrorCodes } from '../../shared/errors.js';
import { API_SOURCE, type Pod, type PodUpdate } from '../../shared/types.js';
import type { KubeClients } from '../apiclient/kube-client.js';

export const INITIAL_RESTART_BACKOFF_MS = 1_000;
export const MAX_RESTART_BACKOFF_MS = 30_000;

export interface ApiSourceOptions {
  clients: KubeClients;
  nodeName: string;
  logger: Logger;
  onUpdate: (update: PodUpdate) => void;
}

export class ApiSource {
  private listWatch?: ListWatch<V1Pod>;
  private stopped = false;
  private listed = false;
  private setScheduled = false;
  private restartBackoffMs = INITIAL_RESTART_BACKOFF_MS;
  private restartTimer?: NodeJS.Timeout;
  private failing = false;
  /** ListWatch reports a failed list through its error event, not by rejecting start(). */
  private attemptFailed = false;

  constructor(private readonly options: ApiSourceOptions) {}

  /** Starts listing and watching; resolves after the first attempt (listed or not: retries go on). */
  async start(): Promise<void> {
    const { clients, nodeName } = this.options;
    const fieldSelector = `spec.nodeName=${nodeName}`;
    const listWatch = new ListWatch<V1Pod>(
      '/api/v1/pods',
      clients.watch,
      () => clients.core.listPodForAllNamespaces({ fieldSelector }),
      false,
      undefined,
      fieldSelector,
    );
    this.listWatch = listWatch;
    for (const verb of ['add', 'update', 'delete'] as const) listWatch.on(verb, () => this.scheduleSet());
    listWatch.on('error', (err: unknown) => this.onError(err));
    await this.run();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    void this.listWatch?.stop();
  }

  private async run(): Promise<void> {
    this.attemptFailed = false;
    try {
      await this.listWatch!.start();
    } catch (err) {
      this.onError(err);
      return;
    }
    // ListWatch.stop() misses a watch it opens right after a list that was under way.
    if (this.stopped) void this.listWatch!.stop();
    if (this.stopped || this.attemptFailed) return;
    if (this.failing) {
      this.failing = false;
      this.options.logger.info({ resourceVersion: this.listWatch!.latestResourceVersion() }, 'API server pod watch resumed');
    }
    this.restartBackoffMs = INITIAL_RESTART_BACKOFF_MS;
    this.listed = true;
    this.scheduleSet();
  }

  /** Many watch events in one burst make one SET. */
  private scheduleSet(): void {
    if (!this.listed || this.setScheduled) return;
    this.setScheduled = true;
    setImmediate(() => {
      this.setScheduled = false;
      if (this.stopped) return;
      const pods = this.listWatch!.list() as Pod[];
      this.options.onUpdate({ op: 'SET', source: API_SOURCE, pods });
    });
  }

  private onError(err: unknown): void {
    this.attemptFailed = true;
    if (this.stopped) return;
    const delayMs = this.restartBackoffMs;
    this.restartBackoffMs = Math.min(this.restartBackoffMs * 2, MAX_RESTART_BACKOFF_MS);
    if (!this.failing) {
      this.failing = true;
      this.options.logger.warn(
        { code: ErrorCodes.API_UNAVAILABLE, err: (err as Error)?.message ?? String(err), retryInMs: delayMs },
        'API server pod list/watch failed; retrying with backoff, running pods are left alone',
      );
    }
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => void this.run(), delayMs);
  }
}
