// The API objects each pod's volumes, env and image pulls refer to, for the shard
// that syncs it (shards never talk to the API server). As upstream's watch-based
// configmap and secret managers (pkg/kubelet/configmap, pkg/kubelet/secret,
// pkg/kubelet/util/manager/watch_based_manager.go): a pod's references register it,
// the ConfigMaps and Secrets of its namespace are listed and watched while some pod
// there refers to one, and reads come from that cache. Unlike upstream, which only
// lets the periodic resync pick changes up, a change to an object a pod refers to
// resyncs that pod at once: a mounted ConfigMap update reaches it without waiting,
// and a pod held back by a missing Secret starts as soon as the Secret exists.
// Projected service account tokens come from the TokenRequest API (token-cache.ts).
import type { KubernetesObject, V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ConfigMapData, PodApiData, SecretData, ServiceAccountTokenData } from '../../shared/shard-protocol.js';
import { serviceAccountTokenKey } from '../../shared/shard-protocol.js';
import { podUid, type Pod } from '../../shared/types.js';
import type { KubeClients } from '../apiclient/kube-client.js';
import { NamespaceWatch, type WatchedKind } from './namespace-watch.js';
import { referencedObjects, type TokenReference } from './referenced-objects.js';
import { ServiceAccountTokenCache } from './token-cache.js';

/**
 * How long dataFor waits for the first list of a namespace (upstream's managers poll
 * for about a second, then fail the sync). After that the pod gets null for what
 * it refers to and is resynced once the list is in.
 */
export const FIRST_LIST_WAIT_MS = 5_000;

export interface PodApiDataProviderOptions {
  clients: KubeClients;
  logger: Logger;
  /** Objects these pods refer to were added, changed or deleted (or a token is due): resync them. */
  onObjectChanged: (podUids: string[]) => void;
  firstListWaitMs?: number;
}

/** What one registered pod refers to, by kind. */
interface PodReferences {
  namespace: string;
  configmaps: Set<string>;
  secrets: Set<string>;
}

type CachedObject = V1ConfigMap | V1Secret;

function watchKey(kind: WatchedKind, namespace: string): string {
  return `${kind}/${namespace}`;
}

function configMapDataOf(configMap: V1ConfigMap): ConfigMapData {
  return { data: { ...configMap.data }, binaryData: { ...configMap.binaryData } };
}

function secretDataOf(secret: V1Secret): SecretData {
  return { type: secret.type ?? 'Opaque', data: { ...secret.data } };
}

export class PodApiDataProvider {
  private readonly refsByPod = new Map<string, PodReferences>();
  private readonly watchesByKey = new Map<string, NamespaceWatch<CachedObject>>();
  /** Watches some pod got an answer from before their first list: resync their pods once it is in. */
  private readonly answeredBeforeListed = new Set<string>();
  private readonly tokens: ServiceAccountTokenCache;
  private readonly changedPodUids = new Set<string>();
  private flushScheduled = false;
  private stopped = false;

  constructor(private readonly options: PodApiDataProviderOptions) {
    this.tokens = new ServiceAccountTokenCache({
      clients: options.clients,
      logger: options.logger,
      onRefreshDue: (uid) => this.markChanged([uid]),
    });
  }

  /** The ConfigMaps, Secrets and tokens the pod refers to (null: does not exist, or never seen). */
  async dataFor(pod: Pod): Promise<PodApiData> {
    const uid = podUid(pod);
    const namespace = pod.metadata?.namespace || 'default';
    const refs = referencedObjects(pod);
    this.refsByPod.set(uid, { namespace, configmaps: refs.configMaps, secrets: refs.secrets });
    const configMapWatch = refs.configMaps.size > 0 ? this.ensureWatch('configmaps', namespace) : undefined;
    const secretWatch = refs.secrets.size > 0 ? this.ensureWatch('secrets', namespace) : undefined;
    this.stopUnusedWatches();
    this.tokens.retain(uid, refs.tokens);
    const [, , serviceAccountTokens] = await Promise.all([
      this.waitForFirstList(configMapWatch, 'configmaps', namespace),
      this.waitForFirstList(secretWatch, 'secrets', namespace),
      this.tokensFor(pod, refs.tokens),
    ]);
    return {
      configMaps: this.read(configMapWatch, refs.configMaps, (obj) => configMapDataOf(obj as V1ConfigMap)),
      secrets: this.read(secretWatch, refs.secrets, (obj) => secretDataOf(obj as V1Secret)),
      serviceAccountTokens,
    };
  }

  /** The pod is gone from the node: drop its references, its tokens, and watches nobody needs now. */
  forgetPod(uid: string): void {
    this.refsByPod.delete(uid);
    this.tokens.forgetPod(uid);
    this.stopUnusedWatches();
  }

  stop(): void {
    this.stopped = true;
    for (const watch of this.watchesByKey.values()) watch.stop();
    this.watchesByKey.clear();
    this.tokens.stop();
  }

  /** Namespaces watched, as `<kind>/<namespace>` (for tests and debugging). */
  watchedNamespaces(): string[] {
    return [...this.watchesByKey.keys()].sort();
  }

  private ensureWatch(kind: WatchedKind, namespace: string): NamespaceWatch<CachedObject> {
    const key = watchKey(kind, namespace);
    let watch = this.watchesByKey.get(key);
    if (watch) return watch;
    watch = new NamespaceWatch<CachedObject>({
      clients: this.options.clients,
      kind,
      namespace,
      logger: this.options.logger,
      onObjectChanged: (name) => this.markChanged(this.podsReferring(kind, namespace, (names) => names.has(name))),
    });
    this.watchesByKey.set(key, watch);
    const started = watch;
    void started.whenListed().then(() => {
      if (!this.answeredBeforeListed.delete(key) || this.watchesByKey.get(key) !== started) return;
      this.markChanged(this.podsReferring(kind, namespace, (names) => names.size > 0));
    });
    watch.start();
    return watch;
  }

  private stopUnusedWatches(): void {
    const needed = new Set<string>();
    for (const refs of this.refsByPod.values()) {
      if (refs.configmaps.size > 0) needed.add(watchKey('configmaps', refs.namespace));
      if (refs.secrets.size > 0) needed.add(watchKey('secrets', refs.namespace));
    }
    for (const [key, watch] of this.watchesByKey) {
      if (needed.has(key)) continue;
      watch.stop();
      this.watchesByKey.delete(key);
      this.answeredBeforeListed.delete(key);
    }
  }

  private async waitForFirstList(watch: NamespaceWatch<CachedObject> | undefined, kind: WatchedKind, namespace: string): Promise<void> {
    if (!watch || watch.hasSynced()) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.firstListWaitMs ?? FIRST_LIST_WAIT_MS)));
    await Promise.race([watch.whenListed(), timedOut]);
    clearTimeout(timer);
    if (watch.hasSynced()) return;
    this.answeredBeforeListed.add(watchKey(kind, namespace));
    this.options.logger.warn({ kind, namespace }, 'API objects not listed yet; pods referring to them are resynced once they are');
  }

  private read<T>(watch: NamespaceWatch<CachedObject> | undefined, names: Set<string>, convert: (obj: CachedObject) => T): Record<string, T | null> {
    const dataByName: Record<string, T | null> = {};
    for (const name of names) {
      const obj = watch?.get(name);
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

  private podsReferring(kind: WatchedKind, namespace: string, matches: (names: Set<string>) => boolean): string[] {
    const uids: string[] = [];
    for (const [uid, refs] of this.refsByPod) {
      if (refs.namespace === namespace && matches(refs[kind])) uids.push(uid);
    }
    return uids;
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
