// RuntimeService container calls of the simulated runtime, with the CRI's
// contract: CreateContainer needs a READY sandbox, a pulled image and a
// (name, attempt) not yet used in the sandbox; StartContainer only starts a
// CREATED container; StopContainer of a stopped or unknown container and
// RemoveContainer of an unknown one succeed (api.proto: idempotent; containerd
// 1.6 answers NotFound for the unknown stop, 1.7+ and CRI-O succeed); status of
// an unknown ID is NotFound. With the crio personality CreateContainer refuses a
// container that asks for the pod's PID namespace in a sandbox without one.
import type * as cri from '../shared/cri/types.js';
import { identityOf, securityContextFailure } from './container-identity.js';
import { containerMatches } from './filters.js';
import { behaviourOf } from './process-model.js';
import type { SimContext } from './sim-context.js';
import { invalidArgument, notFound, unknown } from './sim-error.js';
import { containerName, newId, nowNs, type ContainerRecord, type SandboxRecord } from './state-store.js';
import { toContainer, toContainerStatus } from './views.js';

export async function createContainer(
  ctx: SimContext,
  req: cri.CreateContainerRequest__Output,
): Promise<cri.CreateContainerResponse> {
  const config = req.config;
  if (!config?.metadata) throw invalidArgument('container config must include metadata');
  const sandbox = ctx.store.findSandbox(req.pod_sandbox_id);
  if (!sandbox) throw notFound(`failed to find sandbox id "${req.pod_sandbox_id}": not found`);
  if (sandbox.state !== 'SANDBOX_READY') {
    throw unknown(`failed to create container in sandbox "${sandbox.id}": sandbox is in ${sandbox.state} state`);
  }
  const refused = securityContextFailure(config.linux?.security_context);
  if (refused) throw refused;
  if (ctx.personality.refusesInconsistentPidNamespace && podPidNamespaceMissing(config, sandbox)) throw unknown(CRIO_POD_PID_NAMESPACE_MISSING);
  const imageName = config.image?.image ?? '';
  const image = ctx.store.findImage(imageName);
  if (!image) throw notFound(`failed to get image "${imageName}": not found`);
  const id = newId();
  const name = containerName(config.metadata, sandbox);
  ctx.store.reserveName('container', name, id);
  await ctx.latency.wait('CreateContainer');
  if (!ctx.store.sandboxes.has(sandbox.id)) {
    ctx.store.releaseName(name);
    throw notFound(`failed to find sandbox id "${sandbox.id}": not found`);
  }
  const container: ContainerRecord = {
    id,
    sandboxId: sandbox.id,
    config,
    metadata: config.metadata,
    image,
    state: 'CONTAINER_CREATED',
    createdAtNs: nowNs(),
    startedAtNs: 0,
    finishedAtNs: 0,
    exitCode: 0,
    reason: '',
    message: '',
    resources: config.linux?.resources ?? null,
    behaviour: behaviourOf(config.command, config.args),
    reservedName: name,
  };
  ctx.store.containers.set(id, container);
  ctx.events.containerChanged(container, 'CONTAINER_CREATED_EVENT');
  return { container_id: id };
}

/** CRI-O's error (SpecAddNamespaces) for a container asking for a pod PID namespace its sandbox does not have. */
export const CRIO_POD_PID_NAMESPACE_MISSING =
  'pod level PID namespace requested for the container, but pod sandbox was not similarly configured, and does not have an infra container';

/**
 * The container asks for the pod's PID namespace (POD, the proto default) and the
 * sandbox has none: CRI-O then drops the sandbox's infra container, so there is no
 * namespace to join. containerd joins the pause process's namespace regardless.
 */
function podPidNamespaceMissing(config: cri.ContainerConfig__Output, sandbox: SandboxRecord): boolean {
  const containerPid = config.linux?.security_context?.namespace_options?.pid ?? 'POD';
  const sandboxPid = sandbox.config.linux?.security_context?.namespace_options?.pid ?? 'POD';
  return containerPid === 'POD' && sandboxPid !== 'POD';
}

export async function startContainer(ctx: SimContext, req: cri.StartContainerRequest__Output): Promise<cri.StartContainerResponse> {
  await ctx.latency.wait('StartContainer');
  const container = ctx.store.getContainer(req.container_id);
  if (container.state !== 'CONTAINER_CREATED') {
    throw unknown(`failed to set starting state for container "${container.id}": container is in ${container.state} state`);
  }
  const sandbox = ctx.store.findSandbox(container.sandboxId);
  if (sandbox?.state !== 'SANDBOX_READY') {
    throw unknown(`failed to start container "${container.id}": sandbox container "${container.sandboxId}" is not running`);
  }
  ctx.lifecycle.start(container);
  return {};
}

export async function stopContainer(ctx: SimContext, req: cri.StopContainerRequest__Output): Promise<cri.StopContainerResponse> {
  await ctx.latency.wait('StopContainer');
  const container = ctx.store.findContainer(req.container_id);
  if (container) await ctx.lifecycle.stop(container, Number(req.timeout));
  return {};
}

export async function removeContainer(
  ctx: SimContext,
  req: cri.RemoveContainerRequest__Output,
): Promise<cri.RemoveContainerResponse> {
  await ctx.latency.wait('RemoveContainer');
  const container = ctx.store.findContainer(req.container_id);
  if (!container) return {};
  ctx.lifecycle.kill(container);
  ctx.lifecycle.forget(container);
  ctx.store.releaseName(container.reservedName);
  ctx.store.containers.delete(container.id);
  ctx.events.containerChanged(container, 'CONTAINER_DELETED_EVENT');
  return {};
}

export async function listContainers(ctx: SimContext, req: cri.ListContainersRequest__Output): Promise<cri.ListContainersResponse> {
  const items = [...ctx.store.containers.values()].filter((container) => containerMatches(req.filter, container));
  await ctx.latency.wait('ListContainers', items.length);
  return { containers: items.map(toContainer) };
}

export async function containerStatus(
  ctx: SimContext,
  req: cri.ContainerStatusRequest__Output,
): Promise<cri.ContainerStatusResponse> {
  await ctx.latency.wait('ContainerStatus');
  const container = ctx.store.getContainer(req.container_id);
  const status = toContainerStatus(container, ctx.store.findSandbox(container.sandboxId));
  // containerd 2 and CRI-O report who the process started as (KEP 3619); the primary group leads the list, as the OCI process's additional GIDs.
  if (ctx.personality.supplementalGroupsPolicy) {
    const identity = identityOf(container.config.linux?.security_context);
    status.user = { linux: { uid: identity.uid, gid: identity.gid, supplemental_groups: [identity.gid, ...identity.groups.filter((gid) => gid !== identity.gid)] } };
  }
  const info: Record<string, string> = req.verbose
    ? { info: JSON.stringify({ sandboxID: container.sandboxId, behaviour: container.behaviour, runtime: 'shardlet-sim' }) }
    : {};
  return { status, info };
}

export async function updateContainerResources(
  ctx: SimContext,
  req: cri.UpdateContainerResourcesRequest__Output,
): Promise<cri.UpdateContainerResourcesResponse> {
  await ctx.latency.wait('UpdateContainerResources');
  const container = ctx.store.getContainer(req.container_id);
  if (container.state === 'CONTAINER_EXITED') {
    throw unknown(`failed to update resources: container "${container.id}" is in ${container.state} state`);
  }
  if (req.linux) container.resources = req.linux;
  ctx.lifecycle.resourcesChanged(container);
  return {};
}
