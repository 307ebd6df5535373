// RuntimeService pod sandbox calls of the simulated runtime, with the CRI's
// contract: a sandbox is READY when RunPodSandbox answers; StopPodSandbox kills
// its containers and frees its IP, may be repeated and succeeds for an unknown ID
// (api.proto: idempotent; containerd 1.6 answers NotFound there, 1.7+ and CRI-O
// succeed, as critest requires); RemovePodSandbox stops it first if needed and
// succeeds for an unknown ID; status of an unknown ID is NotFound. With the crio
// personality StopPodSandbox gives running containers SIGTERM and what is left of
// the call's deadline (CRI-O's stopTimeoutFromContext) instead of killing them.
import type * as cri from '../shared/cri/types.js';
import { sandboxMatches } from './filters.js';
import type { SimContext } from './sim-context.js';
import { invalidArgument, unknown } from './sim-error.js';
import { newId, nowNs, sandboxName, type SandboxRecord } from './state-store.js';
import { toPodSandbox, toPodSandboxStatus } from './views.js';

/** RuntimeClass handlers the sim accepts; '' is the default. */
export const KNOWN_RUNTIME_HANDLERS = ['', 'runc'];

export async function runPodSandbox(ctx: SimContext, req: cri.RunPodSandboxRequest__Output): Promise<cri.RunPodSandboxResponse> {
  const config = req.config;
  if (!config?.metadata) throw invalidArgument('sandbox config must include metadata');
  if (!KNOWN_RUNTIME_HANDLERS.includes(req.runtime_handler)) {
    throw unknown(`failed to get sandbox runtime: no runtime for "${req.runtime_handler}" is configured`);
  }
  const hostNetwork = config.linux?.security_context?.namespace_options?.network === 'NODE';
  if (hostNetwork && config.hostname) {
    // runc shares the node's UTS namespace with a host-network sandbox and will not rename the node.
    throw unknown(
      'failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to set hostname without a private UTS namespace: unknown',
    );
  }
  const id = newId();
  const name = sandboxName(config.metadata);
  // Reserved before the slow part, as containerd does, so a duplicate fails at once.
  ctx.store.reserveName('sandbox', name, id);
  try {
    await ctx.latency.wait('RunPodSandbox');
  } catch (err) {
    ctx.store.releaseName(name);
    throw err;
  }
  const sandbox: SandboxRecord = {
    id,
    config,
    metadata: config.metadata,
    state: 'SANDBOX_READY',
    createdAtNs: nowNs(),
    ip: hostNetwork ? '' : ctx.store.ips.allocate(),
    hostNetwork,
    runtimeHandler: req.runtime_handler,
    reservedName: name,
  };
  ctx.store.sandboxes.set(id, sandbox);
  // containerd reports a new sandbox as a container created and then started, under the sandbox's ID.
  ctx.events.sandboxChanged(sandbox, 'CONTAINER_CREATED_EVENT');
  ctx.events.sandboxChanged(sandbox, 'CONTAINER_STARTED_EVENT');
  return { pod_sandbox_id: id };
}

/** CRI-O's stop timeout for a StopPodSandbox call without a deadline (defaultStopTimeout). */
export const CRIO_DEFAULT_STOP_TIMEOUT_SECONDS = 10;

export async function stopPodSandbox(
  ctx: SimContext,
  req: cri.StopPodSandboxRequest__Output,
  deadlineMs?: number,
): Promise<cri.StopPodSandboxResponse> {
  await ctx.latency.wait('StopPodSandbox');
  const sandbox = ctx.store.findSandbox(req.pod_sandbox_id);
  if (!sandbox) return {};
  if (ctx.personality.sandboxStop === 'stop-until-deadline') {
    // As CRI-O's stopTimeoutFromContext: whole seconds left of the caller's deadline.
    const timeoutSeconds = deadlineMs === undefined ? CRIO_DEFAULT_STOP_TIMEOUT_SECONDS : Math.max(Math.trunc((deadlineMs - Date.now()) / 1000), 0);
    await Promise.all(ctx.store.containersOf(sandbox.id).map((container) => ctx.lifecycle.stop(container, timeoutSeconds)));
  }
  stopSandbox(ctx, sandbox);
  return {};
}

export async function removePodSandbox(
  ctx: SimContext,
  req: cri.RemovePodSandboxRequest__Output,
): Promise<cri.RemovePodSandboxResponse> {
  await ctx.latency.wait('RemovePodSandbox');
  const sandbox = ctx.store.findSandbox(req.pod_sandbox_id);
  if (!sandbox) return {};
  stopSandbox(ctx, sandbox);
  for (const container of ctx.store.containersOf(sandbox.id)) {
    ctx.lifecycle.forget(container);
    ctx.store.releaseName(container.reservedName);
    ctx.store.containers.delete(container.id);
    ctx.events.containerChanged(container, 'CONTAINER_DELETED_EVENT');
  }
  ctx.store.releaseName(sandbox.reservedName);
  ctx.store.sandboxes.delete(sandbox.id);
  ctx.events.sandboxChanged(sandbox, 'CONTAINER_DELETED_EVENT');
  return {};
}

export async function podSandboxStatus(
  ctx: SimContext,
  req: cri.PodSandboxStatusRequest__Output,
): Promise<cri.PodSandboxStatusResponse> {
  await ctx.latency.wait('PodSandboxStatus');
  const sandbox = ctx.store.getSandbox(req.pod_sandbox_id);
  const info: Record<string, string> = req.verbose
    ? { info: JSON.stringify({ id: sandbox.id, hostNetwork: sandbox.hostNetwork, runtime: 'shardlet-sim' }) }
    : {};
  return { status: toPodSandboxStatus(sandbox), info, containers_statuses: [], timestamp: 0 };
}

export async function listPodSandbox(ctx: SimContext, req: cri.ListPodSandboxRequest__Output): Promise<cri.ListPodSandboxResponse> {
  const items = [...ctx.store.sandboxes.values()].filter((sandbox) => sandboxMatches(req.filter, sandbox));
  await ctx.latency.wait('ListPodSandbox', items.length);
  return { items: items.map(toPodSandbox) };
}

/** Kills the sandbox's running containers and tears its network down; repeatable. */
function stopSandbox(ctx: SimContext, sandbox: SandboxRecord): void {
  for (const container of ctx.store.containersOf(sandbox.id)) ctx.lifecycle.kill(container);
  if (sandbox.ip) ctx.store.ips.release(sandbox.ip);
  sandbox.ip = '';
  if (sandbox.state === 'SANDBOX_NOTREADY') return;
  sandbox.state = 'SANDBOX_NOTREADY';
  ctx.events.sandboxChanged(sandbox, 'CONTAINER_STOPPED_EVENT');
}

/** The pod's ready sandbox dies with its containers (what a test's killSandbox models): the runtime reports it NOTREADY. */
export function sandboxDied(ctx: SimContext, podUid: string): void {
  for (const sandbox of ctx.store.sandboxes.values()) {
    if (sandbox.config.metadata?.uid === podUid && sandbox.state === 'SANDBOX_READY') stopSandbox(ctx, sandbox);
  }
}
