// One supervised list/watch of one named ConfigMap or Secret, as upstream's
// objectCacheItem (pkg/kubelet/util/manager/watch_based_manager.go): a reflector
// whose list and watch carry `fieldSelector=metadata.name=<name>`, which is what the
// Node authorizer lets a node read (by name, and only what its pods reference). It
// is restarted with backoff while the API server is away and keeps its object
// meanwhile, so readers keep the last known data. An object marked immutable cannot
// change, so the watch stops once it has seen one and keeps serving it, as upstream
// stops the reflector of an immutable object.
import type { KubernetesListObject, V1ConfigMap, V1Secret, Watch } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { KubeClients } from '../apiclient/kube-client.js';
import { SupervisedListWatch } from '../apiclient/supervised-list-watch.js';

export type WatchedKind = 'configmaps' | 'secrets';
export type WatchedObject = V1ConfigMap | V1Secret;

export interface ObjectWatchOptions {
  clients: KubeClients;
  /** The watch client, shaped as a reflector's (reflector-watch.ts); shared by every object watch. */
  watch: Watch;
  kind: WatchedKind;
  namespace: string;
  name: string;
  logger: Logger;
  /** The object was added, changed or deleted after the first list (or a relist found it so). */
  onChanged: () => void;
  /** The watch stopped for good because the object is immutable. */
  onImmutable?: () => void;
}

/** As apimachinery's fields.EscapeValue: a name cannot end the selector term or start another. */
export function escapeFieldSelectorValue(value: string): string {
  return value.replace(/[\\,=]/g, (ch) => `\\${ch}`);
}

/** The field selector of the list and watch of one object. */
export function nameFieldSelector(name: string): string {
  return `metadata.name=${escapeFieldSelectorValue(name)}`;
}

export class ObjectWatch {
  private readonly supervised: SupervisedListWatch<WatchedObject>;
  private stopped = false;
  private listed = false;
  private immutable?: WatchedObject;
  private readonly firstList: Promise<void>;
  private resolveFirstList!: () => void;

  constructor(private readonly options: ObjectWatchOptions) {
    this.firstList = new Promise((resolve) => (this.resolveFirstList = resolve));
    const { clients, kind, namespace, name } = options;
    const fieldSelector = nameFieldSelector(name);
    const list = kind === 'configmaps'
      ? () => clients.core.listNamespacedConfigMap({ namespace, fieldSelector })
      : () => clients.core.listNamespacedSecret({ namespace, fieldSelector });
    const listFn = async (): Promise<KubernetesListObject<WatchedObject>> => {
      const result = (await list()) as KubernetesListObject<WatchedObject>;
      // ListWatch fills its cache synchronously once this promise settles; readers wake after that.
      if (!this.listed) setImmediate(() => this.markListed());
      return result;
    };
    this.supervised = new SupervisedListWatch<WatchedObject>({
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/${kind}`,
      watch: options.watch,
      listFn,
      fieldSelector,
      logger: options.logger,
      logContext: { kind, namespace, name },
      failureMessage: 'API object list/watch failed; retrying with backoff, pods keep the last known data',
    });
    for (const verb of ['add', 'update', 'delete'] as const) {
      this.supervised.listWatch.on(verb, (obj: WatchedObject) => {
        if (obj.metadata?.name !== name) return;
        if (verb !== 'delete' && obj.immutable === true) this.freeze(obj);
        if (this.listed) options.onChanged();
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

  /** True once the object was seen immutable: nothing is watched any more. */
  isImmutable(): boolean {
    return this.immutable !== undefined;
  }

  /** Resolves once the first list has filled the cache (never, if it is stopped before). */
  whenListed(): Promise<void> {
    return this.firstList;
  }

  /** The object, undefined when it does not exist or was never seen. */
  get(): WatchedObject | undefined {
    return this.immutable ?? this.supervised.listWatch.get(this.options.name, this.options.namespace);
  }

  private freeze(obj: WatchedObject): void {
    if (this.immutable) return;
    this.immutable = obj;
    this.supervised.stop();
    this.options.logger.debug({ kind: this.options.kind, namespace: this.options.namespace, name: this.options.name }, 'Stopped watching for changes - object is immutable');
    this.options.onImmutable?.();
  }

  private markListed(): void {
    if (this.listed || this.stopped) return;
    this.listed = true;
    this.resolveFirstList();
  }
}
