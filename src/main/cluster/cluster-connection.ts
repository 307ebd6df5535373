// Everything the kubelet runs against the API server (--kubeconfig), started in
// upstream's order: the client certificate (TLS bootstrap, rotation), the serving
// certificate when serverTLSBootstrap asks for one, the API clients, then the status
// manager, mirror pods, the objects pods refer to, events, the API pod source, and
// node registration, status and Lease. Loaded through boundary.ts only, so a
// standalone node never loads @kubernetes/client-node.
import type { Logger } from 'pino';
import { CriClient } from '../../shared/cri/client.js';
import type { CriCallCounts } from '../../shared/cri/call-counts.js';
import { isApiPod } from '../../shared/pod-kinds.js';
import { podFullName, type Pod, type PodStatus, type PodUpdate } from '../../shared/types.js';
import { PodApiDataProvider } from './apidata/pod-api-data.js';
import { loadKubeClients, type KubeClients } from './apiclient/kube-client.js';
import { CertificateStore, ClientCertificateRotation, ensureClientCertificate, KUBELET_CLIENT_PREFIX } from './bootstrap/index.js';
import { ApiSource } from './config/api-source.js';
import { EventRecorder } from './events/event-recorder.js';
import { NodeLeaseController } from './nodestatus/lease-controller.js';
import { NodeStatusManager } from './nodestatus/node-status-manager.js';
import type { KubeletOptions } from '../options/kubelet-options.js';
import type { PodManager } from '../pod/pod-manager.js';
import { MirrorPods } from './status/mirror-pods.js';
import type { PodStatusCache } from '../status/pod-status-cache.js';
import { isPodStatusByKubeletEqual } from '../status/status-equality.js';
import { StatusManager } from './status/status-manager.js';
import { kubeletVersion } from '../version.js';

export interface ClusterHost {
  options: KubeletOptions;
  logger: Logger;
  signal: AbortSignal;
  criCalls: CriCallCounts;
  podManager: PodManager;
  statuses: PodStatusCache;
  /** Hands a burst of API pod events to the config merge. */
  emit(update: PodUpdate): void;
  /** A ConfigMap or Secret a pod uses changed: sync it now. */
  syncNow(uid: string): void;
  /** serverTLSBootstrap: asks for the serving certificate once the client certificate is there. */
  bootstrapServingCertificate(): Promise<void>;
  /** The port the kubelet API bound, advertised in the Node's status. */
  kubeletPort?: number;
  /** The eviction manager's pressure conditions, shown on the Node. */
  pressure(): ReadonlySet<string>;
  /** The node shutdown manager's ShutdownStatus: the Node is NotReady while it shuts down. */
  shuttingDown?(): boolean;
}

export class ClusterConnection {
  private readonly stoppables: Array<{ stop(): void | Promise<void> }> = [];
  private nodeStatus?: NodeStatusManager;

  private constructor(
    readonly statusManager: StatusManager,
    readonly mirrorPods: MirrorPods,
    readonly apiData: PodApiDataProvider,
    readonly events: EventRecorder,
  ) {}

  static async connect(host: ClusterHost): Promise<ClusterConnection> {
    const { options, logger } = host;
    const rotation = options.bootstrapKubeconfig ? await bootstrapClientCertificate(host) : undefined;
    // serverTLSBootstrap asks with the client certificate; the server is listening meanwhile.
    void host.bootstrapServingCertificate();
    const clients = loadKubeClients(options.kubeconfig, options.kubeAPIQPS, options.kubeAPIBurst);
    logger.info({ server: clients.server }, 'Cluster mode: pods from the API server');
    let connection: ClusterConnection | undefined;
    const nodeUid = () => connection?.nodeStatus?.nodeUid();
    const statusManager = new StatusManager(clients, logger);
    connection = new ClusterConnection(
      statusManager,
      new MirrorPods(clients, options.nodeName, logger, nodeUid),
      new PodApiDataProvider({ clients, logger, onObjectChanged: (uids) => uids.forEach((uid) => host.syncNow(uid)) }),
      new EventRecorder({ clients, nodeName: options.nodeName, logger, qps: options.eventRecordQPS, burst: options.eventBurst }),
    );
    if (rotation) connection.stoppables.push(rotation);
    host.statuses.onChange(({ pod, status }) => {
      // A static pod's status is shown on its mirror pod.
      const target = isApiPod(pod) ? pod : host.podManager.mirrorOf(podFullName(pod));
      if (target) statusManager.setPodStatus(target, status);
    });
    const source = new ApiSource({ clients, nodeName: options.nodeName, logger, onUpdate: (update) => host.emit(update) });
    await source.start();
    connection.stoppables.push(source, statusManager, connection.events, connection.apiData);
    await connection.startNodeStatus(host, clients);
    return connection;
  }

  /** Sends the Node's status now rather than at the next period (a node shutdown began). */
  syncNodeStatus(): void {
    this.nodeStatus?.syncNow();
  }

  /** Housekeeping: one current mirror pod per running static pod, showing its status. */
  reconcileMirrorPods(runningStaticPods: Pod[], podManager: PodManager, statusOf: (uid: string) => PodStatus | undefined): void {
    this.mirrorPods.reconcile(runningStaticPods, (fullName) => podManager.mirrorOf(fullName), podManager.mirrorPods());
    for (const pod of runningStaticPods) {
      const mirror = podManager.mirrorOf(podFullName(pod));
      const status = statusOf(pod.metadata?.uid ?? '');
      if (mirror && status && !isPodStatusByKubeletEqual(mirror.status ?? {}, status)) this.statusManager.setPodStatus(mirror, status);
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.stoppables.map((stoppable) => stoppable.stop()));
  }

  /** Node registration, node status every nodeStatusUpdateFrequency, and the node Lease heartbeat. */
  private async startNodeStatus(host: ClusterHost, clients: KubeClients): Promise<void> {
    const { options, logger } = host;
    const cri = new CriClient(options.runtimeEndpoint, { timeoutMs: options.runtimeRequestTimeoutMs, callCounts: host.criCalls });
    const nodeStatus = new NodeStatusManager({
      clients,
      options,
      cri,
      logger,
      kubeletVersion: kubeletVersion(),
      kubeletPort: host.kubeletPort,
      pressure: () => host.pressure(),
      shuttingDown: () => host.shuttingDown?.() ?? false,
    });
    this.nodeStatus = nodeStatus;
    const lease = new NodeLeaseController({
      clients,
      nodeName: options.nodeName,
      leaseDurationSeconds: options.nodeLeaseDurationSeconds,
      logger,
      nodeUid: () => nodeStatus.nodeUid(),
    });
    await nodeStatus.start();
    lease.start();
    this.stoppables.push(lease, nodeStatus, { stop: () => cri.close() });
  }
}

/**
 * Upstream's TLS bootstrap (--bootstrap-kubeconfig): a kubeconfig whose client
 * certificate is valid is kept; otherwise the bootstrap credentials ask for one
 * (a CSR for system:node:<name>) and the kubeconfig is written to use it. With
 * rotateCertificates, the certificate in --cert-dir is renewed before it expires;
 * new API requests read the renewed file through the kubeconfig's symlink.
 */
async function bootstrapClientCertificate(host: ClusterHost): Promise<ClientCertificateRotation | undefined> {
  const { options, logger } = host;
  const outcome = await ensureClientCertificate({
    kubeconfigPath: options.kubeconfig,
    bootstrapKubeconfigPath: options.bootstrapKubeconfig,
    certDir: options.certDir,
    nodeName: options.nodeName,
    logger,
    signal: host.signal,
  });
  logger.info({ source: outcome.source, kubeconfig: outcome.kubeconfigPath }, 'Client certificate ready');
  if (!options.rotateCertificates) return undefined;
  if (!(await new CertificateStore(options.certDir, KUBELET_CLIENT_PREFIX).current())) {
    logger.info({ certDir: options.certDir }, 'rotateCertificates: the kubeconfig does not use a certificate from --cert-dir; nothing to rotate');
    return undefined;
  }
  const rotation = new ClientCertificateRotation({
    certDir: options.certDir,
    kubeconfigPath: options.kubeconfig,
    bootstrapKubeconfigPath: options.bootstrapKubeconfig,
    nodeName: options.nodeName,
    logger,
  });
  await rotation.start();
  return rotation;
}
