// Mirror pods, as upstream's mirror client and the kubelet's syncPod: every static
// pod this node runs has a copy on the API server (same name and namespace, the
// config.mirror annotation holding the static pod's config hash, owned by the Node),
// so the cluster can see it. A mirror pod that is missing, being deleted, or made
// from an older version of the static pod is replaced; one whose static pod is gone
// is deleted. Deleting a mirror pod never touches the static pod: only its copy
// comes back.
import type { Logger } from 'pino';
import { ErrorCodes } from '../../../shared/errors.js';
import { CONFIG_HASH_ANNOTATION, CONFIG_MIRROR_ANNOTATION } from '../../../shared/labels.js';
import { podFullName, type Pod } from '../../../shared/types.js';
import type { KubeClients } from '../apiclient/kube-client.js';
import { httpStatusOf } from '../apiclient/api-errors.js';


/** The mirror pod's body for a static pod (upstream's mirror client CreateMirrorPod). */
export function mirrorPodFor(staticPod: Pod, nodeName: string, nodeUid?: string): Pod {
  const metadata = staticPod.metadata ?? {};
  const hash = metadata.annotations?.[CONFIG_HASH_ANNOTATION] ?? metadata.uid ?? '';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: metadata.name,
      namespace: metadata.namespace,
      labels: metadata.labels,
      annotations: { ...metadata.annotations, [CONFIG_MIRROR_ANNOTATION]: hash },
      ownerReferences: nodeUid ? [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUid, controller: true }] : undefined,
    },
    spec: staticPod.spec,
  };
}

/**
 * How long a mirror pod the API server has accepted (or already had) is taken as
 * there while the pod watch has not shown it yet (a watch that restarts with
 * backoff after an outage can take that long): housekeeping does not create it again.
 */
export const MIRROR_CREATE_SETTLE_MS = 30_000;

export class MirrorPods {
  /** Full names with a create or delete under way, so that housekeeping does not repeat it. */
  private readonly busyFullNames = new Set<string>();
  /** Mirror pods created (or found existing) and not yet seen by the watch: config hash and when. */
  private readonly createdByFullName = new Map<string, { hash: string; atMs: number }>();
  readonly writes = { creates: 0, deletes: 0 };

  constructor(
    private readonly clients: KubeClients,
    private readonly nodeName: string,
    private readonly logger: Logger,
    private readonly nodeUid: () => string | undefined = () => undefined,
  ) {}

  /** Makes the API server's mirror pods match the static pods that run here. */
  reconcile(staticPods: Pod[], mirrorOf: (fullName: string) => Pod | undefined, mirrorPods: Pod[]): void {
    const wanted = new Set<string>();
    for (const staticPod of staticPods) {
      const fullName = podFullName(staticPod);
      wanted.add(fullName);
      const mirror = mirrorOf(fullName);
      const hash = staticPod.metadata?.annotations?.[CONFIG_HASH_ANNOTATION] ?? staticPod.metadata?.uid;
      const current = mirror && !mirror.metadata?.deletionTimestamp && mirror.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION] === hash;
      if (current || (!mirror && this.createdRecently(fullName, hash ?? ''))) continue;
      this.run(fullName, () => this.replace(staticPod, mirror));
    }
    for (const mirror of mirrorPods) {
      const fullName = podFullName(mirror);
      this.createdByFullName.delete(fullName);
      if (!wanted.has(fullName)) this.run(fullName, () => this.delete(mirror));
    }
  }

  private createdRecently(fullName: string, hash: string): boolean {
    const created = this.createdByFullName.get(fullName);
    if (created && created.hash === hash && Date.now() - created.atMs < MIRROR_CREATE_SETTLE_MS) return true;
    this.createdByFullName.delete(fullName);
    return false;
  }

  private run(fullName: string, work: () => Promise<void>): void {
    if (this.busyFullNames.has(fullName)) return;
    this.busyFullNames.add(fullName);
    work()
      .catch((err: unknown) =>
        this.logger.warn({ code: ErrorCodes.API_UNAVAILABLE, pod: fullName, err: (err as Error).message }, 'Mirror pod update failed; retrying'),
      )
      .finally(() => this.busyFullNames.delete(fullName));
  }

  private async replace(staticPod: Pod, stale: Pod | undefined): Promise<void> {
    if (stale) await this.delete(stale);
    // As upstream's mirror client: no mirror pod before the Node's UID is known, for its
    // owner reference (NodeRestriction refuses a mirror pod not owned by its node).
    const nodeUid = this.nodeUid();
    if (!nodeUid) {
      this.logger.debug({ pod: podFullName(staticPod) }, 'Mirror pod waits for the node to be registered');
      return;
    }
    const body = mirrorPodFor(staticPod, this.nodeName, nodeUid);
    await this.clients.limiter.take();
    const created = { hash: body.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION] ?? '', atMs: Date.now() };
    try {
      await this.clients.core.createNamespacedPod({ namespace: body.metadata?.namespace ?? 'default', body });
      this.writes.creates++;
      this.logger.info({ pod: podFullName(staticPod) }, 'Created mirror pod');
    } catch (err) {
      // Already there (our watch has not seen it yet): the watch will tell, or the next reconcile after the settle time.
      if (httpStatusOf(err) !== 409) throw err;
    }
    this.createdByFullName.set(podFullName(staticPod), created);
  }

  private async delete(mirror: Pod): Promise<void> {
    const name = mirror.metadata?.name ?? '';
    const namespace = mirror.metadata?.namespace ?? 'default';
    await this.clients.limiter.take();
    try {
      await this.clients.core.deleteNamespacedPod({
        name,
        namespace,
        gracePeriodSeconds: 0,
        body: { preconditions: { uid: mirror.metadata?.uid } },
      });
      this.writes.deletes++;
      this.logger.info({ pod: `${namespace}/${name}` }, 'Deleted mirror pod');
    } catch (err) {
      if (httpStatusOf(err) !== 404 && httpStatusOf(err) !== 409) throw err;
    }
  }
}
