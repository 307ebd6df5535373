// One supervised ListWatch of the ConfigMaps or the Secrets of one namespace: the
// cache behind upstream's watch-based configmap and secret managers
// (pkg/kubelet/util/manager/watch_based_manager.go), here one reflector per
// namespace and kind rather than per object. The list/watch is supervised (restarted
// with backoff while the API server is away) and its objects stay in place
// meanwhile, so readers keep the last known data.
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { KubeClients } from '../apiclient/kube-client.js';
import { SupervisedListWatch } from '../apiclient/supervised-list-watch.js';

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
  private readonly supervised: SupervisedListWatch<T>;
  private stopped = false;
  private listed = false;
  private readonly firstList: Promise<void>;
  private resolveFirstList!: () => void;

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
    this.supervised = new SupervisedListWatch<T>({
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/${kind}`,
      watch: clients.watch,
      listFn,
      logger: options.logger,
      logContext: { kind, namespace },
      failureMessage: 'API object list/watch failed; retrying with backoff, pods keep the last known data',
    });
    for (const verb of ['add', 'update', 'delete'] as const) {
      this.supervised.listWatch.on(verb, (obj: T) => {
        if (this.listed && obj.metadata?.name) options.onObjectChanged(obj.metadata.name);
      });
    }
  }

  /** Starts listing and watching; retries go on in the background. */
  start(): void {
    void this.supervised.start();
  }

  stop(): void {
    this.stopped = true;
    this.supervised.stop();
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
    return this.supervised.listWatch.get(name, this.options.namespace);
  }

  private markListed(): void {
    if (this.listed || this.stopped) return;
    this.listed = true;
    this.resolveFirstList();
  }
}
