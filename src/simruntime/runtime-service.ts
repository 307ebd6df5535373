// The grpc-js implementations of RuntimeService and ImageService for the
// simulated runtime: the runtime-wide calls live here, sandbox, container and
// image calls in their own modules.
import type { ServerWritableStream } from '@grpc/grpc-js';
import type * as cri from '../shared/cri/types.js';
import * as containers from './container-service.js';
import { reopenContainerLog } from './log-service.js';
import * as execs from './exec-service.js';
import type { ImageService } from './image-service.js';
import * as sandboxes from './sandbox-service.js';
import * as stats from './stats-service.js';
import type { SimContext } from './sim-context.js';
import type { StreamingServer } from './streaming/streaming-server.js';
import { unaryHandler } from './unary-handler.js';

export const SIM_RUNTIME_NAME = 'shardlet-sim';
export const SIM_RUNTIME_VERSION = '0.1.0';
export const SIM_RUNTIME_API_VERSION = 'v1';

async function version(ctx: SimContext): Promise<cri.VersionResponse> {
  await ctx.latency.wait('Version');
  return {
    version: '0.1.0',
    runtime_name: SIM_RUNTIME_NAME,
    runtime_version: SIM_RUNTIME_VERSION,
    runtime_api_version: SIM_RUNTIME_API_VERSION,
  };
}

async function status(ctx: SimContext, req: cri.StatusRequest__Output): Promise<cri.StatusResponse> {
  await ctx.latency.wait('Status');
  const { runtimeReady, networkReady } = ctx.conditions;
  const conditions: cri.RuntimeCondition[] = [
    { type: 'RuntimeReady', status: runtimeReady, reason: runtimeReady ? '' : 'SimulatedRuntimeNotReady', message: '' },
    {
      type: 'NetworkReady',
      status: networkReady,
      reason: networkReady ? '' : 'NetworkPluginNotReady',
      message: networkReady ? '' : 'Network plugin returns error: cni plugin not initialized',
    },
  ];
  const features = { recursive_read_only_mounts: false, user_namespaces: false };
  return {
    status: { conditions },
    info: req.verbose ? { config: JSON.stringify({ podCidr: ctx.podCidr, runtime: SIM_RUNTIME_NAME }) } : {},
    runtime_handlers: [
      { name: '', features },
      { name: 'runc', features },
    ],
    features: { supplemental_groups_policy: ctx.personality.supplementalGroupsPolicy },
  };
}

async function updateRuntimeConfig(
  ctx: SimContext,
  req: cri.UpdateRuntimeConfigRequest__Output,
): Promise<cri.UpdateRuntimeConfigResponse> {
  await ctx.latency.wait('UpdateRuntimeConfig');
  ctx.podCidr = req.runtime_config?.network_config?.pod_cidr ?? '';
  return {};
}

/** A stream of every container and sandbox change (container-events.ts), or UNIMPLEMENTED as containerd 1.6. */
function getContainerEvents(ctx: SimContext, call: ServerWritableStream<cri.GetEventsRequest__Output, cri.ContainerEventResponse>): void {
  ctx.stats.begin('GetContainerEvents')();
  ctx.events.serve(call);
}

export function runtimeServiceHandlers(ctx: SimContext, streaming: StreamingServer): cri.RuntimeServiceHandlers {
  const env = ctx;
  return {
    Version: unaryHandler(env, 'Version', () => version(ctx)),
    Status: unaryHandler(env, 'Status', (req: cri.StatusRequest__Output) => status(ctx, req)),
    UpdateRuntimeConfig: unaryHandler(env, 'UpdateRuntimeConfig', (req: cri.UpdateRuntimeConfigRequest__Output) =>
      updateRuntimeConfig(ctx, req),
    ),
    RunPodSandbox: unaryHandler(env, 'RunPodSandbox', (req: cri.RunPodSandboxRequest__Output) => sandboxes.runPodSandbox(ctx, req)),
    StopPodSandbox: unaryHandler(env, 'StopPodSandbox', (req: cri.StopPodSandboxRequest__Output, _callerGone, deadlineMs) =>
      sandboxes.stopPodSandbox(ctx, req, deadlineMs),
    ),
    RemovePodSandbox: unaryHandler(env, 'RemovePodSandbox', (req: cri.RemovePodSandboxRequest__Output) =>
      sandboxes.removePodSandbox(ctx, req),
    ),
    PodSandboxStatus: unaryHandler(env, 'PodSandboxStatus', (req: cri.PodSandboxStatusRequest__Output) =>
      sandboxes.podSandboxStatus(ctx, req),
    ),
    ListPodSandbox: unaryHandler(env, 'ListPodSandbox', (req: cri.ListPodSandboxRequest__Output) => sandboxes.listPodSandbox(ctx, req)),
    CreateContainer: unaryHandler(env, 'CreateContainer', (req: cri.CreateContainerRequest__Output) =>
      containers.createContainer(ctx, req),
    ),
    StartContainer: unaryHandler(env, 'StartContainer', (req: cri.StartContainerRequest__Output) => containers.startContainer(ctx, req)),
    StopContainer: unaryHandler(env, 'StopContainer', (req: cri.StopContainerRequest__Output) => containers.stopContainer(ctx, req)),
    RemoveContainer: unaryHandler(env, 'RemoveContainer', (req: cri.RemoveContainerRequest__Output) =>
      containers.removeContainer(ctx, req),
    ),
    ListContainers: unaryHandler(env, 'ListContainers', (req: cri.ListContainersRequest__Output) => containers.listContainers(ctx, req)),
    ContainerStatus: unaryHandler(env, 'ContainerStatus', (req: cri.ContainerStatusRequest__Output) =>
      containers.containerStatus(ctx, req),
    ),
    UpdateContainerResources: unaryHandler(env, 'UpdateContainerResources', (req: cri.UpdateContainerResourcesRequest__Output) =>
      containers.updateContainerResources(ctx, req),
    ),
    ExecSync: unaryHandler(env, 'ExecSync', (req: cri.ExecSyncRequest__Output) => execs.execSync(ctx, req)),
    Exec: unaryHandler(env, 'Exec', (req: cri.ExecRequest__Output) => execs.exec(ctx, streaming, req)),
    Attach: unaryHandler(env, 'Attach', (req: cri.AttachRequest__Output) => execs.attach(ctx, streaming, req)),
    PortForward: unaryHandler(env, 'PortForward', (req: cri.PortForwardRequest__Output) => execs.portForward(ctx, streaming, req)),
    GetContainerEvents: (call) => getContainerEvents(ctx, call),
    ContainerStats: unaryHandler(env, 'ContainerStats', (req: cri.ContainerStatsRequest__Output) => stats.containerStatsCall(ctx, req)),
    ListContainerStats: unaryHandler(env, 'ListContainerStats', (req: cri.ListContainerStatsRequest__Output) => stats.listContainerStats(ctx, req)),
    PodSandboxStats: unaryHandler(env, 'PodSandboxStats', (req: cri.PodSandboxStatsRequest__Output) => stats.podSandboxStatsCall(ctx, req)),
    ListPodSandboxStats: unaryHandler(env, 'ListPodSandboxStats', (req: cri.ListPodSandboxStatsRequest__Output) =>
      stats.listPodSandboxStats(ctx, req),
    ),
    ReopenContainerLog: unaryHandler(env, 'ReopenContainerLog', (req: cri.ReopenContainerLogRequest__Output) => reopenContainerLog(ctx, req)),
  };
}

export function imageServiceHandlers(ctx: SimContext, images: ImageService): cri.ImageServiceHandlers {
  return {
    ListImages: unaryHandler(ctx, 'ListImages', (req: cri.ListImagesRequest__Output) => images.listImages(req)),
    ImageStatus: unaryHandler(ctx, 'ImageStatus', (req: cri.ImageStatusRequest__Output) => images.imageStatus(req)),
    PullImage: unaryHandler(ctx, 'PullImage', (req: cri.PullImageRequest__Output, callerGone) => images.pullImage(req, callerGone)),
    RemoveImage: unaryHandler(ctx, 'RemoveImage', (req: cri.RemoveImageRequest__Output) => images.removeImage(req)),
    ImageFsInfo: unaryHandler(ctx, 'ImageFsInfo', () => images.imageFsInfo()),
  };
}
