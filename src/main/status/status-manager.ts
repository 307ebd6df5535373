// Upstream's status manager for API pods: the latest status of each pod is patched
// to the API server (pods/status, strategic merge patch with the UID as
// precondition), coalesced per pod so that only the newest status goes out,
// rate-limited by kubeAPIQPS / kubeAPIBurst; a pod whose graceful deletion has
// finished on the node is then deleted from the API server (grace 0, UID
// precondition), as upstream's canBeDeleted / DeletePod.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ErrorCodes } from '../../shared/errors.js';
import type { Pod, PodStatus } from '../../shared/types.js';
import type { KubeClients } from '../apiclient/kube-client.js';
import { httpStatusOf } from '../apiclient/api-errors.js';

export const STATUS_RETRY_MS = 1_000;

interface PendingWrite {
  pod: Pod;
  status?: PodStatus;
  deletePod?: boolean;
}


export class StatusManager {
  private readonly pendingByUid = new Map<string, PendingWrite>();
  private draining = false;
  private stopped = false;
  /** API writes made, by kind, for the bench and the write count. */
  readonly writes = { statusPatches: 0, podDeletes: 0 };

  constructor(
    private readonly clients: KubeClients,
    private readonly logger: Logger,
  ) {}

  /** Records a pod's newest status; only the latest one per pod is sent. */
  setPodStatus(pod: Pod, status: PodStatus): void {
    const uid = pod.metadata?.uid ?? '';
    const pending = this.pendingByUid.get(uid);
    this.pendingByUid.set(uid, { ...pending, pod, status });
    this.drain();
  }

  /** The pod's containers are gone after a graceful deletion: remove it from the API server. */
  podTerminated(pod: Pod): void {
    if (!pod.metadata?.deletionTimestamp) return;
    const uid = pod.metadata.uid ?? '';
    this.pendingByUid.set(uid, { ...this.pendingByUid.get(uid), pod, deletePod: true });
    this.drain();
  }

  stop(): void {
    this.stopped = true;
  }

  private drain(): void {
    if (this.draining || this.stopped) return;
    this.draining = true;
    void this.drainLoop().finally(() => {
      this.draining = false;
    });
  }

  private async drainLoop(): Promise<void> {
    while (!this.stopped && this.pendingByUid.size > 0) {
      const [uid, write] = this.pendingByUid.entries().next().value as [string, PendingWrite];
      this.pendingByUid.delete(uid);
      await this.clients.limiter.take();
      try {
        await this.send(write);
      } catch (err) {
        const code = httpStatusOf(err);
        if (code === 404 || code === 409) continue; // the pod is gone or was replaced: its status no longer matters
        this.logger.warn({ code: ErrorCodes.API_UNAVAILABLE, uid, err: (err as Error).message }, 'Pod status write failed; retrying');
        if (!this.pendingByUid.has(uid)) this.pendingByUid.set(uid, write);
        await new Promise((resolve) => setTimeout(resolve, STATUS_RETRY_MS));
      }
    }
  }

  private async send(write: PendingWrite): Promise<void> {
    const name = write.pod.metadata?.name ?? '';
    const namespace = write.pod.metadata?.namespace ?? 'default';
    const uid = write.pod.metadata?.uid ?? '';
    if (write.status) {
      const body = { metadata: { uid }, status: write.status };
      await this.clients.core.patchNamespacedPodStatus(
        { name, namespace, body },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      );
      this.writes.statusPatches++;
    }
    if (write.deletePod) {
      await this.clients.core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0, body: { preconditions: { uid } } });
      this.writes.podDeletes++;
      this.logger.info({ pod: `${namespace}/${name}`, uid }, 'Deleted pod from the API server after graceful termination');
    }
  }
}
