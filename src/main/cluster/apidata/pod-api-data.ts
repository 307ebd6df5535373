// The API objects each pod's volumes, env and image pulls refer to, for the shard
// that syncs it (shards never talk to the API server). As upstream's watch-based
// configmap and secret managers (pkg/kubelet/configmap, pkg/kubelet/secret,
// pkg/kubelet/util/manager/watch_based_manager.go and cache_based_manager.go): a pod's
// references register it (RegisterPod), each referenced (kind, namespace, name) gets
// one list/watch by name (object-watch.ts), shared by the pods that refer to it and
// stopped when the last of them is gone (UnregisterPod, DeleteReference), and reads
// come from that cache. The Node authorizer allows exactly this: a node may read only
// the Secrets and ConfigMaps its pods reference, by name. Unlike upstream, which only
// lets the periodic resync pick changes up, a change to an object a pod refers to
// resyncs that pod at once: a mounted ConfigMap update reaches it without waiting,
// and a pod held back by a missing Secret starts as soon as the Secret exists.
// Projected service account tokens come from the TokenRequest API (token-cache.ts).
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ConfigMapData, PodApiData, SecretData, ServiceAccountTokenData } from '../../../shared/shard-protocol.js';
import { serviceAccountTokenKey } from '../../../shared/shard-protocol.js';
import { podUid, type Pod } from '../../../shared/types.js';
import type { KubeClients } from '../apiclient/kube-client.js';
import { ReflectorWatch } from '../apiclient/reflector-watch.js';
import { ObjectWatch, type WatchedKind, type WatchedObject } from './object-watch.js';
import { referencedObjects, type TokenReference } from './referenced-objects.js';
import { ServiceAccountTokenCache } from './token-cache.js';

/**
 * How long dataFor waits for the first list of the objects a pod refers to (upstream's
 * managers poll for about a second, then fail the sync). After that the pod gets null
 * for what is not listed yet and is resynced once it is.
 */
export const FIRST_LIST_WAIT_MS = 5_000;

export interface PodApiDataProviderOptions {
  clients: KubeClients;
  logger: Logger;
  /** Objects these pods refer to were added, changed or deleted (or a token is due): resync them. */
  onObjectChanged: (podUids: string[]) => void;
  firstListWaitMs?: number;
}

/** One watched object and the pods that refer to it (upstream's objectCacheItem and its refCount). */
interface ObjectReference {
  kind: WatchedKind;
  namespace: string;
  name: string;
  watch: ObjectWatch;
  podUids: Set<string>;
  /** Some pod got an answer before the first list: resync the referring pods once it is in. */
  answeredBeforeListed: boolean;
}

function objectKey(kind: WatchedKind, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

function configMapDataOf(configMap: V1ConfigMap): ConfigMapData {
  return { data: { ...configMap.data }, binaryData: { ...configMap.binaryData } };
}

function secretDataOf(secret: V1Secret): SecretData {
  return { type: secret.type ?? 'Opaque', data: { ...secret.data } };
}

export class PodApiDataProvider {
  /** The objects each registered pod refers to, by objectKey. */
  private readonly keysByPod = new Map<string, Set<string>>();
  private readonly objects = new Map<string, ObjectReference>();
  private readonly tokens: ServiceAccountTokenCache;
  private readonly watchClient: ReflectorWatch;
  private readonly changedPodUids = new Set<string>();
  private flushScheduled = false;
  private stopped = false;

  constructor(private readonly options: PodApiDataProviderOptions) {
    this.watchClient = new ReflectorWatch(options.clients.config);
    this.tokens = new ServiceAccountTokenCache({
      clients: options.clients,
      logger: options.logger,
      onRefreshDue: (uid) => this.markChanged([uid]),
    });
  }

  /** Registers what the pod refers to and answers the ConfigMaps, Secrets and tokens (null: does not exist, or never seen). */
  async dataFor(pod: Pod): Promise<PodApiData> {
    const uid = podUid(pod);
    const namespace = pod.metadata?.namespace || 'default';
    const refs = referencedObjects(pod);
    this.registerPod(uid, namespace, refs.configMaps, refs.secrets);
    this.tokens.retain(uid, refs.tokens);
    const configMaps = this.referencesOf('configmaps', namespace, refs.configMaps);
    const secrets = this.referencesOf('secrets', namespace, refs.secrets);
    const [, serviceAccountTokens] = await Promise.all([this.waitForFirstLists([...configMaps.values(), ...secrets.values()]), this.tokensFor(pod, refs.tokens)]);
    return {
      configMaps: this.read(configMaps, (obj) => configMapDataOf(obj as V1ConfigMap)),
      secrets: this.read(secrets, (obj) => secretDataOf(obj as V1Secret)),
      serviceAccountTokens,
    };
  }

  /** The pod is gone from the node, or terminated (upstream's UnregisterPod): drop its references, its tokens, and watches nobody needs now. */
  forgetPod(uid: string): void {
    for (const key of this.keysByPod.get(uid) ?? []) this.deleteReference(key, uid);
    this.keysByPod.delete(uid);
    this.tokens.forgetPod(uid);
  }

  stop(): void {
    this.stopped = true;
    for (const ref of this.objects.values()) ref.watch.stop();
    this.objects.clear();
    this.keysByPod.clear();
    this.tokens.stop();
  }

  /** Objects with a list/watch open, as `<kind>/<namespace>/<name>` (immutable ones seen are not watched). */
  watchedObjects(): string[] {
    return [...this.objects].filter(([, ref]) => !ref.watch.isImmutable()).map(([key]) => key).sort();
  }

  /** Objects some pod refers to, watched or held as immutable, as `<kind>/<namespace>/<name>`. */
  referencedObjects(): string[] {
    return [...this.objects.keys()].sort();
  }

  /**
   * As upstream's cacheBasedManager.RegisterPod: the pod's new references are added
   * before its old ones are dropped, so an object it keeps referring to keeps its watch.
   */
  private registerPod(uid: string, namespace: string, configMaps: Set<string>, secrets: Set<string>): void {
    const keys = new Set<string>();
    for (const [kind, names] of [['configmaps', configMaps], ['secrets', secrets]] as const) {
      for (const name of names) {
        const key = objectKey(kind, namespace, name);
        keys.add(key);
        this.addReference(key, kind, namespace, name, uid);
      }
    }
    for (const key of this.keysByPod.get(uid) ?? []) {
      if (!keys.has(key)) this.deleteReference(key, uid);
    }
    if (keys.size > 0) this.keysByPod.set(uid, keys);
    else this.keysByPod.delete(uid);
  }

  private addReference(key: string, kind: WatchedKind, namespace: string, name: string, uid: string): void {
    let ref = this.objects.get(key);
    if (!ref) {
      const watch = new ObjectWatch({
        clients: this.options.clients,
        watch: this.watchClient,
        kind,
        namespace,
        name,
        logger: this.options.logger,
        onChanged: () => this.markChanged([...(this.objects.get(key)?.podUids ?? [])]),
      });
      const created: ObjectReference = { kind, namespace, name, watch, podUids: new Set(), answeredBeforeListed: false };
      ref = created;
      this.objects.set(key, created);
      void watch.whenListed().then(() => {
        if (!created.answeredBeforeListed || this.objects.get(key) !== created) return;
        created.answeredBeforeListed = false;
        this.markChanged([...created.podUids]);
      });
      watch.start();
      this.options.logger.debug({ kind, namespace, name }, 'Watching an API object a pod refers to');
    }
    ref.podUids.add(uid);
  }

  /** As upstream's DeleteReference: the last pod's release stops the watch. */
  private deleteReference(key: string, uid: string): void {
    const ref = this.objects.get(key);
    if (!ref) return;
    ref.podUids.delete(uid);
    if (ref.podUids.size > 0) return;
    ref.watch.stop();
    this.objects.delete(key);
    this.options.logger.debug({ kind: ref.kind, namespace: ref.namespace, name: ref.name }, 'Stopped watching an API object: no pod refers to it');
  }

  /** The pod's references of one kind, by name. */
  private referencesOf(kind: WatchedKind, namespace: string, names: Set<string>): Map<string, ObjectReference> {
    const refs = new Map<string, ObjectReference>();
    for (const name of names) {
      const ref = this.objects.get(objectKey(kind, namespace, name));
      if (ref) refs.set(name, ref);
    }
    return refs;
  }

  private async waitForFirstLists(refs: ObjectReference[]): Promise<void> {
    const pending = refs.filter((ref) => !ref.watch.hasSynced());
    if (pending.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.firstListWaitMs ?? FIRST_LIST_WAIT_MS)));
    await Promise.race([Promise.all(pending.map((ref) => ref.watch.whenListed())), timedOut]);
    clearTimeout(timer);
    const unlisted = pending.filter((ref) => !ref.watch.hasSynced());
    if (unlisted.length === 0) return;
    for (const ref of unlisted) ref.answeredBeforeListed = true;
    this.options.logger.warn(
      { objects: unlisted.length, kinds: [...new Set(unlisted.map((ref) => ref.kind))] },
      'API objects not listed yet; pods referring to them are resynced once they are',
    );
  }

  private read<T>(refs: Map<string, ObjectReference>, convert: (obj: WatchedObject) => T): Record<string, T | null> {
    const dataByName: Record<string, T | null> = {};
    for (const [name, ref] of refs) {
      const obj = ref.watch.get();
      dataByName[name] = obj ? convert(obj) : null;
    }
    return dataByName;
  }

  private async tokensFor(pod: Pod, refs: TokenReference[]): Promise<Record<string, ServiceAccountTokenData | null>> {
    const podRef = { namespace: pod.metadata?.namespace || 'default', name: pod.metadata?.name ?? '', uid: podUid(pod) };
    const tokens = await Promise.all(refs.map((ref) => this.tokens.get(podRef, ref)));
    const tokensByKey: Record<string, ServiceAccountTokenData | null> = {};
    refs.forEach((ref, i) => (tokensByKey[serviceAccountTokenKey(ref.audience, ref.expirationSeconds)] = tokens[i] ?? null));
    return tokensByKey;
  }

  /** Changes in one burst (a relist, a quick series of writes) make one call. */
  private markChanged(uids: string[]): void {
    if (this.stopped || uids.length === 0) return;
    for (const uid of uids) this.changedPodUids.add(uid);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const changed = [...this.changedPodUids];
      this.changedPodUids.clear();
      if (!this.stopped && changed.length > 0) this.options.onObjectChanged(changed);
    });
  }
}
