// One supervised ListWatch of the ConfigMaps or the Secrets of one namespace: the
// cache behind upstream's watch-based configmap and secret managers
// (pkg/kubelet/util/manager/watch_based_manager.go), here one reflector per
// namespace and kind rather than per object. client-node's ListWatch resumes from
// the last resourceVersion and relists on 410 Gone but stops on any other error, so
// this restarts it with backoff, as the API source does; its objects stay in place
// meanwhile, so readers keep the last known data while the API server is away.
import { ListWatch, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ErrorCodes } from '../../shared/errors.js';
import type { KubeClients } from '../apiclient/kube-client.js';

export const INITIAL_RESTART_BACKOFF_MS = 1_000;
export const MAX_RESTART_BACKOFF_MS = 30_000;

export type WatchedKind = 'configmaps' | 'secrets';

export interface NamespaceWatchOptions {
  clients: KubeClients;
  kind: WatchedKind;
  namespace: string;
  logger: Logger;
  /** An object was added, changed or deleted (also for what a relist found changed). */
  onObjectChanged: (name: string) => void;
}

export class NamespaceWatch<T extends KubernetesObject> {
  private readonly listWatch: ListWatch<T>;
  private stopped = false;
  private listed = false;
  private readonly firstList: Promise<void>;
  private resolveFirstList!: () => void;
  private restartBackoffMs = INITIAL_RESTART_BACKOFF_MS;
  private restartTimer?: NodeJS.Timeout;
  private failing = false;
  /** ListWatch reports a failed list or watch through its error event, not by rejecting start(). */
  private attemptFailed = false;

  constructor(private readonly options: NamespaceWatchOptions) {
    this.firstList = new Promise((resolve) => (this.resolveFirstList = resolve));
    const { clients, kind, namespace } = options;
    const list = kind === 'configmaps' ? () => clients.core.listNamespacedConfigMap({ namespace }) : () => clients.core.listNamespacedSecret({ namespace });
    const listFn = async (): Promise<KubernetesListObject<T>> => {
      const result = (await list()) as KubernetesListObject<T>;
      // ListWatch fills its cache synchronously once this promise settles; readers wake after that.
      if (!this.listed) setImmediate(() => this.markListed());
      return result;
    };
    this.listWatch = new ListWatch<T>(`/api/v1/namespaces/${encodeURIComponent(namespace)}/${kind}`, clients.watch, listFn, false);
    for (const verb of ['add', 'update', 'delete'] as const) {
      this.listWatch.on(verb, (obj: T) => {
        if (this.listed && obj.metadata?.name) options.onObjectChanged(obj.metadata.name);
      });
    }
    this.listWatch.on('error', (err: unknown) => this.onError(err));
  }

  /** Starts listing and watching; retries go on in the background. */
  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    void this.listWatch.stop();
  }

  /** True once the first list has filled the cache. */
  hasSynced(): boolean {
    return this.listed;
  }

  /** Resolves once the first list has filled the cache (never, if it is stopped before). */
  whenListed(): Promise<void> {
    return this.firstList;
  }

  /** The cached object, undefined when it does not exist or was never seen. */
  get(name: string): T | undefined {
    return this.listWatch.get(name, this.options.namespace);
  }

  private markListed(): void {
    if (this.listed || this.stopped) return;
    this.listed = true;
    this.resolveFirstList();
  }

  private async run(): Promise<void> {
    this.attemptFailed = false;
    try {
      await this.listWatch.start();
    } catch (err) {
      this.onError(err);
      return;
    }
    // A stop() during the list does not reach the watch ListWatch opens right after it.
    if (this.stopped) {
      void this.listWatch.stop();
      return;
    }
    if (this.attemptFailed) return;
    if (this.failing) {
      this.failing = false;
      this.options.logger.info({ kind: this.options.kind, namespace: this.options.namespace }, 'API object watch resumed');
    }
    this.restartBackoffMs = INITIAL_RESTART_BACKOFF_MS;
  }

  private onError(err: unknown): void {
    this.attemptFailed = true;
    if (this.stopped) return;
    const delayMs = this.restartBackoffMs;
    this.restartBackoffMs = Math.min(this.restartBackoffMs * 2, MAX_RESTART_BACKOFF_MS);
    if (!this.failing) {
      this.failing = true;
      this.options.logger.warn(
        {
          code: ErrorCodes.API_UNAVAILABLE,
          kind: this.options.kind,
          namespace: this.options.namespace,
          err: (err as Error)?.message ?? String(err),
          retryInMs: delayMs,
        },
        'API object list/watch failed; retrying with backoff, pods keep the last known data',
      );
    }
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => void this.run(), delayMs);
  }
}
