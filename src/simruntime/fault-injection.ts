// Faults a test asks the simulated runtime for: the next N calls of one CRI method,
// for one pod or any, fail with a chosen gRPC code, or are held for a while first
// (a runtime that is slow or hangs), so the kubelet's error paths (FailedCreatePodSandBox,
// CreateContainerError, RunContainerError, ErrImagePull, a StopContainer past its
// deadline) are tested against the same wire errors a real runtime sends.
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { RpcName } from './latency-model.js';
import { SimError } from './sim-error.js';
import type { StateStore } from './state-store.js';

export interface FaultRule {
  method: RpcName;
  /** Only calls about this pod (by its sandbox's metadata.uid); any pod when absent. */
  podUid?: string;
  /** How many matching calls the fault applies to. */
  times: number;
  /** The status the call fails with; OK lets it go on after the delay. */
  code: GrpcStatus;
  message?: string;
  /** Held this long before failing or going on. */
  delayMs?: number;
}

export class FaultInjector {
  private readonly rules: FaultRule[] = [];

  inject(rule: FaultRule): void {
    if (!Number.isInteger(rule.times) || rule.times < 1) throw new Error(`fault times must be a positive integer, got ${rule.times}`);
    this.rules.push({ ...rule });
  }

  /** Drops every fault not yet used up. */
  clear(): void {
    this.rules.length = 0;
  }

  /** Applies the first fault matching this call (using up one of its times): waits, then throws or returns. */
  async apply(method: RpcName, request: unknown, store: StateStore): Promise<void> {
    if (this.rules.length === 0) return;
    const index = this.rules.findIndex((rule) => rule.method === method && (rule.podUid === undefined || rule.podUid === podUidOf(request, store)));
    if (index < 0) return;
    const rule = this.rules[index]!;
    if (--rule.times === 0) this.rules.splice(index, 1);
    if (rule.delayMs) await new Promise((resolve) => setTimeout(resolve, rule.delayMs));
    if (rule.code !== GrpcStatus.OK) throw new SimError(rule.code, rule.message ?? `injected ${GrpcStatus[rule.code]} for ${method}`);
  }
}

/** The pod a CRI request is about: from the sandbox config it carries, or the sandbox or container it names. */
function podUidOf(request: unknown, store: StateStore): string | undefined {
  const fields = request as {
    config?: { metadata?: { uid?: string } };
    sandbox_config?: { metadata?: { uid?: string } };
    pod_sandbox_id?: string;
    container_id?: string;
  };
  if (fields.config?.metadata?.uid) return fields.config.metadata.uid;
  if (fields.sandbox_config?.metadata?.uid) return fields.sandbox_config.metadata.uid;
  const sandboxId = fields.pod_sandbox_id || (fields.container_id ? store.findContainer(fields.container_id)?.sandboxId : undefined);
  return sandboxId ? store.findSandbox(sandboxId)?.config.metadata?.uid : undefined;
}
