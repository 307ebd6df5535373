// The kubelet's node status loop, as upstream's syncNodeStatus: register the
// Node once (registerWithAPIServer: create; on AlreadyExists reconcile the
// existing one; back off from 100 ms to 7 s while the API server is away),
// then every nodeStatusUpdateFrequency compute the status (updateRuntimeUp's
// view of the runtime, the setters) and PATCH nodes/<name>/status when it
// changed or nodeStatusReportFrequency has passed (tryUpdateNodeStatus, up to
// five tries). The first try works from the copy last written or read, as
// upstream's first try reads its informer's cache; retries GET the node.
import { setTimeout as sleep } from 'node:timers/promises';
import { PatchStrategy, setHeaderOptions, type V1Node, type V1NodeStatus } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { CriClient } from '../../../shared/cri/client.js';
import { ErrorCodes } from '../../../shared/errors.js';
import type { KubeClients } from '../apiclient/kube-client.js';
import type { KubeletOptions } from '../../options/kubelet-options.js';
import {
  NETWORK_STATE_UNKNOWN_MESSAGE,
  RUNTIME_DOWN_MESSAGE,
  RUNTIME_STATUS_NOT_CHECKED_MESSAGE,
  aggregateMessages,
  networkNotReadyMessage,
  nodeConditions,
  runtimeNotReadyMessage,
  type NodeHealth,
  type RuntimeCondition,
} from './conditions.js';
import { readMachineInfo, type MachineInfo } from '../../nodestatus/machine-info.js';
import { initialNode, nodeStatus, type RuntimeVersionInfo } from './node-object.js';
import { reconcileExistingNode, registrationBackoffMs } from './registration.js';
import { NODE_STATUS_UPDATE_RETRY, nodeStatusHasChanged, reportJitterAfterSendMs, shouldSendNodeStatus } from './status-update-policy.js';
import { httpStatusOf } from '../apiclient/api-errors.js';

/** A runtime whose last good Status is older than this is reported down (maxWaitForContainerRuntime). */
export const RUNTIME_SYNC_THRESHOLD_MS = 30_000;

export interface NodeStatusManagerConfig {
  clients: KubeClients;
  options: KubeletOptions;
  cri: CriClient;
  logger: Logger;
  /** nodeInfo.kubeletVersion, e.g. "v1.32.0-shardlet.1". */
  kubeletVersion: string;
  /** The machine as cadvisor would report it; read from the host (rootDir's file system) when absent. */
  machine?: MachineInfo;
  /** The port the kubelet API server bound, published as daemonEndpoints.kubeletEndpoint.Port. */
  kubeletPort?: number;
  /** The eviction manager's pressure conditions (MemoryPressure, DiskPressure, PIDPressure). */
  pressure?: () => ReadonlySet<string>;
  /** The node shutdown manager's ShutdownStatus: Ready goes False while the node shuts down. */
  shuttingDown?: () => boolean;
}


/** A merge patch for a string map: `after`'s entries, and null for keys `after` dropped. */
function mapPatch(before: Record<string, string> | undefined, after: Record<string, string> | undefined): Record<string, string | null> {
  const patch: Record<string, string | null> = { ...(after ?? {}) };
  for (const key of Object.keys(before ?? {})) if (!(key in (after ?? {}))) patch[key] = null;
  return patch;
}

/**
 * The PATCH for nodes/<name>/status. Addresses are declared merge-by-type but
 * a dual-stack node has two InternalIPs, so upstream replaces the whole list
 * when it changed (fixupPatchForNodeStatusAddresses); a JSON merge patch does
 * that on every server. Otherwise a strategic merge patch, so conditions that
 * others own (NetworkUnavailable) are merged, not overwritten.
 */
export function nodeStatusPatch(previous: V1NodeStatus | undefined, next: V1NodeStatus): { body: object; contentType: string } {
  const status = {
    ...next,
    capacity: mapPatch(previous?.capacity, next.capacity),
    allocatable: mapPatch(previous?.allocatable, next.allocatable),
  };
  const addressesChanged =
    (previous?.addresses ?? []).length > 0 && JSON.stringify(previous?.addresses) !== JSON.stringify(next.addresses);
  return { body: { status }, contentType: addressesChanged ? PatchStrategy.MergePatch : PatchStrategy.StrategicMergePatch };
}

/** The runtime as upstream's runtimeState sees it, refreshed by updateRuntimeUp. */
class RuntimeState {
  private lastSyncMs?: number;
  private runtimeError = '';
  private networkError = NETWORK_STATE_UNKNOWN_MESSAGE;
  /** The last answer of CRI Version; kept while the runtime does not answer. */
  version?: RuntimeVersionInfo;
  /** CRI Status features (runtimeState.runtimeFeatures); unknown until the runtime answered. */
  supplementalGroupsPolicy?: boolean;

  /** updateRuntimeUp: a failed Status call changes nothing, so the last sync ages into "runtime is down". */
  async refresh(cri: CriClient, nowMs: number): Promise<void> {
    try {
      const version = await cri.version({ version: '' });
      this.version = { runtimeName: version.runtime_name, runtimeVersion: version.runtime_version };
      const response = await cri.status({ verbose: false });
      this.supplementalGroupsPolicy = response.features?.supplemental_groups_policy === true;
      const conditions: RuntimeCondition[] = (response.status?.conditions ?? []).map((condition) => ({
        type: condition.type,
        status: condition.status,
        reason: condition.reason,
        message: condition.message,
      }));
      const network = conditions.find((condition) => condition.type === 'NetworkReady');
      this.networkError = network?.status ? '' : networkNotReadyMessage(network);
      const runtime = conditions.find((condition) => condition.type === 'RuntimeReady');
      if (!runtime?.status) {
        this.runtimeError = runtimeNotReadyMessage(runtime);
        return;
      }
      this.runtimeError = '';
      this.lastSyncMs = nowMs;
    } catch {
      // As upstream: the sanity check failed; what it last saw stands until the threshold passes.
    }
  }

  /** runtimeErrors / networkErrors as the Ready setter reads them. */
  health(nowMs: number): NodeHealth {
    const runtimeErrors: string[] = [];
    if (this.lastSyncMs === undefined) runtimeErrors.push(RUNTIME_STATUS_NOT_CHECKED_MESSAGE);
    else if (nowMs - this.lastSyncMs >= RUNTIME_SYNC_THRESHOLD_MS) runtimeErrors.push(RUNTIME_DOWN_MESSAGE);
    if (this.runtimeError) runtimeErrors.push(this.runtimeError);
    const health: NodeHealth = {
      runtimeReady: runtimeErrors.length === 0,
      runtimeMessage: '',
      networkReady: this.networkError === '',
      networkMessage: this.networkError,
      memoryPressure: false,
      diskPressure: false,
      pidPressure: false,
      shuttingDown: false,
    };
    if (runtimeErrors.length > 0) {
      // utilerrors flattens nested aggregates: one list of every message, not "[[a, b], c]".
      health.runtimeMessage = aggregateMessages(this.networkError ? [...runtimeErrors, this.networkError] : runtimeErrors);
      health.networkReady = true;
    }
    return health;
  }
}

export class NodeStatusManager {
  /** Node writes made, for the write-count figures. */
  readonly writes = { nodeCreates: 0, nodePatches: 0, statusPatches: 0 };
  private readonly runtime = new RuntimeState();
  private readonly abort = new AbortController();
  private machine?: MachineInfo;
  /** The Node as last written or read. */
  private node?: V1Node;
  private registered = false;
  private registerAttempt = 0;
  private lastSentMs?: number;
  private delayAfterChangeMs = 0;
  /** True from the first failure until the next success: one warning per failure streak. */
  private failing = false;
  /** Ends the run loop's current wait early (syncNow). */
  private wake?: AbortController;
  private syncRequested = false;

  constructor(private readonly config: NodeStatusManagerConfig) {
    this.machine = config.machine;
  }

  /** The runtime's health with the eviction manager's pressure conditions. */
  private health(nowMs: number): NodeHealth {
    const pressure = this.config.pressure?.() ?? new Set<string>();
    return {
      ...this.runtime.health(nowMs),
      memoryPressure: pressure.has('MemoryPressure'),
      diskPressure: pressure.has('DiskPressure'),
      pidPressure: pressure.has('PIDPressure'),
      shuttingDown: this.config.shuttingDown?.() ?? false,
    };
  }

  /** The Node's UID once registered or read (for the Lease's owner reference). */
  nodeUid(): string | undefined {
    return this.node?.metadata?.uid;
  }

  /** Runs the first sync (registration attempt and status) and keeps syncing in the background; never throws. */
  async start(): Promise<void> {
    this.machine ??= readMachineInfo({ rootDir: this.config.options.rootDir });
    const delayMs = await this.syncNodeStatus();
    void this.run(delayMs);
  }

  stop(): void {
    this.abort.abort();
  }

  /**
   * A round now, out of turn (the node shutdown manager calls upstream's
   * syncNodeStatus when a shutdown begins, so the Node shows NotReady at once);
   * a round in flight is followed by another one.
   */
  syncNow(): void {
    this.syncRequested = true;
    this.wake?.abort();
  }

  private async run(firstDelayMs: number): Promise<void> {
    let delayMs = firstDelayMs;
    while (!this.abort.signal.aborted) {
      if (!this.syncRequested) {
        this.wake = new AbortController();
        try {
          await sleep(delayMs, undefined, { signal: AbortSignal.any([this.abort.signal, this.wake.signal]) });
        } catch {
          if (this.abort.signal.aborted) return;
        }
      }
      this.syncRequested = false;
      delayMs = await this.syncNodeStatus();
    }
  }

  /** One round; returns the wait before the next one. */
  private async syncNodeStatus(): Promise<number> {
    const { options, logger } = this.config;
    try {
      await this.runtime.refresh(this.config.cri, Date.now());
      if (options.registerNode && !this.registered) {
        if (!(await this.registerWithApiServer())) return registrationBackoffMs(this.registerAttempt++);
        this.registered = true;
        this.registerAttempt = 0;
      }
      await this.updateNodeStatus();
    } catch (err) {
      logger.error({ code: ErrorCodes.INTERNAL, node: options.nodeName, err: (err as Error).message }, 'Node status sync failed');
    }
    return options.nodeStatusUpdateFrequencyMs;
  }

  private buildInitialNode(): V1Node {
    const { options, kubeletVersion } = this.config;
    const now = new Date();
    const node = initialNode(options, this.machine!, this.runtimeVersion(), kubeletVersion, {
      health: this.health(now.getTime()),
      now,
      kubeletPort: this.config.kubeletPort,
    });
    // As the VersionInfo setter's error: the field stays empty until the runtime answers.
    if (!this.runtime.version) node.status!.nodeInfo!.containerRuntimeVersion = '';
    this.setFeatures(node.status!);
    return node;
  }

  private runtimeVersion(): RuntimeVersionInfo {
    return this.runtime.version ?? { runtimeName: '', runtimeVersion: '' };
  }

  /** tryRegisterWithAPIServer: true once the Node exists and carries what this kubelet owns. */
  private async registerWithApiServer(): Promise<boolean> {
    const { clients, options, logger } = this.config;
    const node = this.buildInitialNode();
    try {
      await clients.limiter.take();
      this.node = await clients.core.createNode({ body: node });
      this.writes.nodeCreates += 1;
      // The create carried the full status: it counts as the first report.
      this.lastSentMs = Date.now();
      this.recovered();
      logger.info({ node: options.nodeName, uid: this.nodeUid() }, 'Successfully registered node');
      return true;
    } catch (err) {
      if (httpStatusOf(err) !== 409) {
        this.failed(err, 'Unable to register node with API server');
        return false;
      }
    }
    try {
      const existing = await clients.core.readNode({ name: options.nodeName });
      const { node: reconciled, changed } = reconcileExistingNode(node, existing);
      this.node = existing;
      if (changed) {
        const body = {
          metadata: {
            labels: mapPatch(existing.metadata?.labels, reconciled.metadata?.labels),
            annotations: mapPatch(existing.metadata?.annotations, reconciled.metadata?.annotations),
          },
        };
        await clients.limiter.take();
        this.node = await clients.core.patchNode(
          { name: options.nodeName, body },
          setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
        );
        this.writes.nodePatches += 1;
      }
      this.recovered();
      logger.info({ node: options.nodeName, uid: this.nodeUid(), reconciled: changed }, 'Node was previously registered');
      return true;
    } catch (err) {
      this.failed(err, 'Unable to reconcile the existing node');
      return false;
    }
  }

  /** updateNodeStatus: up to NODE_STATUS_UPDATE_RETRY tries, then wait for the next period. */
  private async updateNodeStatus(): Promise<void> {
    let lastError: unknown;
    for (let attempt = 0; attempt < NODE_STATUS_UPDATE_RETRY && !this.abort.signal.aborted; attempt++) {
      try {
        await this.tryUpdateNodeStatus(attempt);
        this.recovered();
        return;
      } catch (err) {
        lastError = err;
      }
    }
    if (lastError !== undefined) this.failed(lastError, 'Unable to update node status');
  }

  private async tryUpdateNodeStatus(attempt: number): Promise<void> {
    const { clients, options } = this.config;
    const original =
      attempt === 0 && this.node ? this.node : await clients.core.readNode({ name: options.nodeName });
    this.node = original;
    const now = new Date();
    const next = this.computeStatus(original, now);
    const nowMs = now.getTime();
    const reportFrequencyMs = options.nodeStatusReportFrequencyMs;
    if (!shouldSendNodeStatus(original.status, next, this.lastSentMs, nowMs, reportFrequencyMs, this.delayAfterChangeMs)) return;
    const changed = nodeStatusHasChanged(original.status, next);
    const { body, contentType } = nodeStatusPatch(original.status, next);
    await clients.limiter.take();
    this.node = await clients.core.patchNodeStatus({ name: options.nodeName, body }, setHeaderOptions('Content-Type', contentType));
    this.writes.statusPatches += 1;
    this.lastSentMs = nowMs;
    this.delayAfterChangeMs = reportJitterAfterSendMs(changed, reportFrequencyMs);
  }

  /** The setters applied to the stored node's status. */
  private computeStatus(original: V1Node, now: Date): V1NodeStatus {
    const { options, kubeletVersion } = this.config;
    const status = nodeStatus(options, this.machine!, this.runtimeVersion(), kubeletVersion, { kubeletPort: this.config.kubeletPort });
    status.conditions = nodeConditions(original.status?.conditions, this.health(now.getTime()), now);
    if (!this.runtime.version) {
      // As the VersionInfo setter's error: the runtime version stays what the node had.
      status.nodeInfo!.containerRuntimeVersion = original.status?.nodeInfo?.containerRuntimeVersion ?? '';
    }
    this.setFeatures(status);
    return status;
  }

  /** Upstream's NodeFeatures setter: status.features from the runtime's, once it has answered. */
  private setFeatures(status: V1NodeStatus): void {
    const supported = this.runtime.supplementalGroupsPolicy;
    if (supported !== undefined) status.features = { supplementalGroupsPolicy: supported };
  }

  private failed(err: unknown, what: string): void {
    const { logger, options } = this.config;
    const fields = { node: options.nodeName, status: httpStatusOf(err), err: (err as Error)?.message ?? String(err) };
    if (this.failing) {
      logger.debug(fields, `${what}; retrying`);
      return;
    }
    this.failing = true;
    logger.warn({ code: ErrorCodes.API_UNAVAILABLE, ...fields }, `${what}; retrying with backoff`);
  }

  private recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.config.logger.info({ node: this.config.options.nodeName }, 'Node status reaches the API server again');
  }
}
