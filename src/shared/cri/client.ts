// A typed CRI client over @grpc/grpc-js, the TypeScript counterpart of upstream's
// remote runtime and image services (pkg/kubelet/cri/remote). One instance owns one
// connection: every shard thread builds its own, so a busy shard never queues
// behind another shard's calls on a shared HTTP/2 connection.
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { loadCriServices } from './load-proto.js';
import { toCriError } from './cri-error.js';
import type * as cri from './types.js';
import type { CriCallCounts, CriMethod } from './call-counts.js';
import type { RelistContainer, RelistSandbox } from './relist-codec.js';
import { unaryCall } from './unary-call.js';
import { genericMethod, STATIC_METHODS, type CriService, type UnaryMethod } from './unary-methods.js';
import { POD_UID_LABEL } from '../labels.js';

export { CriError, isLeakedTaskRefusal, isNotFound, isUnavailable, isUnimplemented, grpcCodeOf } from './cri-error.js';

/**
 * grpc-js refuses replies over 4 MiB by default; ListContainers on a node with
 * 500 pods and long annotations gets near that, so allow 16 MiB (upstream
 * kubelet allows the same for its CRI connection).
 */
export const MAX_RECEIVE_MESSAGE_BYTES = 16 * 1024 * 1024;
/**
 * Keepalive pings only serve to notice a runtime that hangs with its socket
 * still open. containerd's gRPC server (grpc-go defaults) answers pings more
 * often than every 5 minutes with GOAWAY "too_many_pings", so stay above that.
 */
export const KEEPALIVE_TIME_MS = 6 * 60_000;
export const KEEPALIVE_TIMEOUT_MS = 20_000;
/** A restarted runtime should be picked up within seconds, not grpc's default 2 minutes. */
export const INITIAL_RECONNECT_BACKOFF_MS = 200;
export const MAX_RECONNECT_BACKOFF_MS = 5_000;
/** Default deadline of PullImage: layers can be large and registries slow. */
export const DEFAULT_PULL_TIMEOUT_MS = 15 * 60_000;

export interface CriClientOptions {
  /** Deadline of every call unless the method says otherwise (upstream's --runtime-request-timeout). */
  timeoutMs: number;
  /** ImageService socket when it differs from the runtime's (--image-service-endpoint). */
  imageEndpoint?: string;
  /** Deadline of PullImage; DEFAULT_PULL_TIMEOUT_MS when unset. */
  pullTimeoutMs?: number;
  /** Counts every call made, per method (shardlet's node-wide counters). */
  callCounts?: CriCallCounts;
}

/** `unix:///abs/path.sock` as is; a bare absolute path gets the scheme. */
export function normalizeEndpoint(endpoint: string): string {
  if (endpoint.startsWith('/')) return `unix://${endpoint}`;
  return endpoint;
}

function channelOptions(): grpc.ChannelOptions {
  return {
    'grpc.max_receive_message_length': MAX_RECEIVE_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_RECEIVE_MESSAGE_BYTES,
    'grpc.use_local_subchannel_pool': 1,
    'grpc.enable_channelz': 0,
    'grpc.keepalive_time_ms': KEEPALIVE_TIME_MS,
    'grpc.keepalive_timeout_ms': KEEPALIVE_TIMEOUT_MS,
    'grpc.keepalive_permit_without_calls': 0,
    'grpc.initial_reconnect_backoff_ms': INITIAL_RECONNECT_BACKOFF_MS,
    'grpc.max_reconnect_backoff_ms': MAX_RECONNECT_BACKOFF_MS,
  };
}

export class CriClient {
  /** The runtime endpoint, normalised (`unix:///…`). */
  readonly endpoint: string;
  /** The image endpoint, normalised; equal to `endpoint` unless configured apart. */
  readonly imageEndpoint: string;
  private readonly timeoutMs: number;
  private readonly pullTimeoutMs: number;
  private readonly runtimeConn: grpc.Client;
  private readonly imageConn: grpc.Client;
  /** The connections' channels, which unary calls are made on directly (unary-call.ts). */
  private readonly runtimeChannel: grpc.ChannelInterface;
  private readonly imageChannel: grpc.ChannelInterface;
  private readonly callCounts?: CriCallCounts;

  constructor(endpoint: string, options: CriClientOptions) {
    this.endpoint = normalizeEndpoint(endpoint);
    this.imageEndpoint = normalizeEndpoint(options.imageEndpoint || endpoint);
    this.timeoutMs = options.timeoutMs;
    this.pullTimeoutMs = options.pullTimeoutMs ?? DEFAULT_PULL_TIMEOUT_MS;
    this.callCounts = options.callCounts;
    const credentials = grpc.credentials.createInsecure();
    this.runtimeConn = new grpc.Client(this.endpoint, credentials, channelOptions());
    this.imageConn =
      this.imageEndpoint === this.endpoint
        ? this.runtimeConn
        : new grpc.Client(this.imageEndpoint, credentials, channelOptions());
    this.runtimeChannel = this.runtimeConn.getChannel();
    this.imageChannel = this.imageConn.getChannel();
  }

  // ---- RuntimeService -------------------------------------------------------

  version(req: cri.VersionRequest = {}, timeoutMs?: number): Promise<cri.VersionResponse__Output> {
    return this.call(STATIC_METHODS.version, req, timeoutMs);
  }

  status(req: cri.StatusRequest = {}, timeoutMs?: number): Promise<cri.StatusResponse__Output> {
    return this.genericCall('RuntimeService', 'Status', req, timeoutMs);
  }

  updateRuntimeConfig(req: cri.UpdateRuntimeConfigRequest, timeoutMs?: number): Promise<cri.UpdateRuntimeConfigResponse__Output> {
    return this.genericCall('RuntimeService', 'UpdateRuntimeConfig', req, timeoutMs);
  }

  /** After a log rotation: the runtime writes to a fresh file at the container's log_path. */
  reopenContainerLog(req: cri.ReopenContainerLogRequest, timeoutMs?: number): Promise<cri.ReopenContainerLogResponse__Output> {
    return this.genericCall('RuntimeService', 'ReopenContainerLog', req, timeoutMs);
  }

  runPodSandbox(req: cri.RunPodSandboxRequest, timeoutMs?: number): Promise<cri.RunPodSandboxResponse__Output> {
    return this.call(STATIC_METHODS.runPodSandbox, req, timeoutMs);
  }

  stopPodSandbox(req: cri.StopPodSandboxRequest, timeoutMs?: number): Promise<cri.StopPodSandboxResponse__Output> {
    return this.call(STATIC_METHODS.stopPodSandbox, req, timeoutMs);
  }

  removePodSandbox(req: cri.RemovePodSandboxRequest, timeoutMs?: number): Promise<cri.RemovePodSandboxResponse__Output> {
    return this.call(STATIC_METHODS.removePodSandbox, req, timeoutMs);
  }

  /** Identity, state, age, IPs and network mode of the sandbox (cri.PodSandboxStatusLean). */
  podSandboxStatus(req: cri.PodSandboxStatusRequest, timeoutMs?: number): Promise<cri.PodSandboxStatusReply> {
    return this.call(STATIC_METHODS.podSandboxStatus, req, timeoutMs);
  }

  /** Sandboxes with their labels (annotations are not decoded: cri.PodSandboxLean). */
  listPodSandbox(req: cri.ListPodSandboxRequest = {}, timeoutMs?: number): Promise<cri.ListPodSandboxReply> {
    return this.call(STATIC_METHODS.listPodSandbox, req, timeoutMs);
  }

  createContainer(req: cri.CreateContainerRequest, timeoutMs?: number): Promise<cri.CreateContainerResponse__Output> {
    return this.call(STATIC_METHODS.createContainer, req, timeoutMs);
  }

  startContainer(req: cri.StartContainerRequest, timeoutMs?: number): Promise<cri.StartContainerResponse__Output> {
    return this.call(STATIC_METHODS.startContainer, req, timeoutMs);
  }

  /** The deadline covers the grace period too (req.timeout, seconds), as upstream's StopContainer adds it. */
  stopContainer(req: cri.StopContainerRequest, timeoutMs?: number): Promise<cri.StopContainerResponse__Output> {
    return this.call(STATIC_METHODS.stopContainer, req, timeoutMs ?? this.timeoutMs + Number(req.timeout ?? 0) * 1000);
  }

  removeContainer(req: cri.RemoveContainerRequest, timeoutMs?: number): Promise<cri.RemoveContainerResponse__Output> {
    return this.call(STATIC_METHODS.removeContainer, req, timeoutMs);
  }

  /** Containers with their labels and annotations (cri.ContainerLean). */
  listContainers(req: cri.ListContainersRequest = {}, timeoutMs?: number): Promise<cri.ListContainersReply> {
    return this.call(STATIC_METHODS.listContainers, req, timeoutMs);
  }

  /** Every sandbox, decoded only as far as the PLEG relist needs (relist-codec.ts). */
  listPodSandboxForRelist(timeoutMs?: number): Promise<RelistSandbox[]> {
    return this.call(STATIC_METHODS.listPodSandboxForRelist, {}, timeoutMs);
  }

  /** Every container, decoded only as far as the PLEG relist needs (relist-codec.ts). */
  listContainersForRelist(timeoutMs?: number): Promise<RelistContainer[]> {
    return this.call(STATIC_METHODS.listContainersForRelist, {}, timeoutMs);
  }

  /** One pod's sandboxes and containers, by its io.kubernetes.pod.uid label, decoded as the relist's (the evented PLEG's per-pod relist). */
  listPodForRelist(podUid: string, timeoutMs?: number): Promise<[RelistSandbox[], RelistContainer[]]> {
    return Promise.all([
      this.call(STATIC_METHODS.listPodSandboxForRelist, { filter: { label_selector: { [POD_UID_LABEL]: podUid } } }, timeoutMs),
      this.call(STATIC_METHODS.listContainersForRelist, { filter: { label_selector: { [POD_UID_LABEL]: podUid } } }, timeoutMs),
    ]);
  }

  /** The container's status without its mounts, resources and user (cri.ContainerStatusLean). */
  containerStatus(req: cri.ContainerStatusRequest, timeoutMs?: number): Promise<cri.ContainerStatusReply> {
    return this.call(STATIC_METHODS.containerStatus, req, timeoutMs);
  }

  updateContainerResources(
    req: cri.UpdateContainerResourcesRequest,
    timeoutMs?: number,
  ): Promise<cri.UpdateContainerResourcesResponse__Output> {
    return this.genericCall('RuntimeService', 'UpdateContainerResources', req, timeoutMs);
  }

  /** The deadline covers the command's own timeout (req.timeout, seconds), as upstream's ExecSync adds it. */
  execSync(req: cri.ExecSyncRequest, timeoutMs?: number): Promise<cri.ExecSyncResponse__Output> {
    return this.call(STATIC_METHODS.execSync, req, timeoutMs ?? this.timeoutMs + Number(req.timeout ?? 0) * 1000);
  }

  /** A URL on the runtime's streaming server where the client's exec session is served. */
  exec(req: cri.ExecRequest, timeoutMs?: number): Promise<cri.ExecResponse__Output> {
    return this.genericCall('RuntimeService', 'Exec', req, timeoutMs);
  }

  /** A URL on the runtime's streaming server attached to the container's main process. */
  attach(req: cri.AttachRequest, timeoutMs?: number): Promise<cri.AttachResponse__Output> {
    return this.genericCall('RuntimeService', 'Attach', req, timeoutMs);
  }

  /** A URL on the runtime's streaming server forwarding ports of the sandbox. */
  portForward(req: cri.PortForwardRequest, timeoutMs?: number): Promise<cri.PortForwardResponse__Output> {
    return this.genericCall('RuntimeService', 'PortForward', req, timeoutMs);
  }

  /**
   * The runtime's container event stream (evented PLEG). No deadline: it lives
   * until `signal` aborts. Rejects with a CriError; containerd 1.6 answers
   * UNIMPLEMENTED (see isUnimplemented), and the caller must fall back to relisting.
   * `decode` replaces the generic decoding of each event (the PLEG's lean one).
   */
  async *getContainerEvents<Event = cri.ContainerEventResponse__Output>(
    req: cri.GetEventsRequest = {},
    options: { signal?: AbortSignal; decode?: (event: Buffer) => Event } = {},
  ): AsyncGenerator<Event> {
    const method = loadCriServices().runtime.GetContainerEvents;
    const startedAt = performance.now();
    let failed = false;
    const decode: (event: Buffer) => unknown = options.decode ?? method.responseDeserialize;
    const stream = this.runtimeConn.makeServerStreamRequest(method.path, method.requestSerialize, decode, req, new grpc.Metadata());
    const cancel = (): void => stream.cancel();
    options.signal?.addEventListener('abort', cancel, { once: true });
    try {
      for await (const event of stream) yield event as Event;
    } catch (err) {
      if (options.signal?.aborted) return;
      failed = true;
      throw toCriError('RuntimeService/GetContainerEvents', err);
    } finally {
      options.signal?.removeEventListener('abort', cancel);
      stream.cancel();
      // A stream is one operation, counted when it ends.
      this.callCounts?.record('GetContainerEvents', (performance.now() - startedAt) / 1000, failed);
    }
  }

  containerStats(req: cri.ContainerStatsRequest, timeoutMs?: number): Promise<cri.ContainerStatsResponse__Output> {
    return this.genericCall('RuntimeService', 'ContainerStats', req, timeoutMs);
  }

  listContainerStats(req: cri.ListContainerStatsRequest = {}, timeoutMs?: number): Promise<cri.ListContainerStatsResponse__Output> {
    return this.genericCall('RuntimeService', 'ListContainerStats', req, timeoutMs);
  }

  podSandboxStats(req: cri.PodSandboxStatsRequest, timeoutMs?: number): Promise<cri.PodSandboxStatsResponse__Output> {
    return this.genericCall('RuntimeService', 'PodSandboxStats', req, timeoutMs);
  }

  /** A runtime without sandbox stats answers UNIMPLEMENTED (isUnimplemented): the caller falls back to ListContainerStats. */
  listPodSandboxStats(req: cri.ListPodSandboxStatsRequest = {}, timeoutMs?: number): Promise<cri.ListPodSandboxStatsResponse__Output> {
    return this.genericCall('RuntimeService', 'ListPodSandboxStats', req, timeoutMs);
  }

  // ---- ImageService ---------------------------------------------------------

  listImages(req: cri.ListImagesRequest = {}, timeoutMs?: number): Promise<cri.ListImagesResponse__Output> {
    return this.genericCall('ImageService', 'ListImages', req, timeoutMs);
  }

  /** `image` in the reply is null when the image is not on the node; else its ID and size (cri.ImageLean). */
  imageStatus(req: cri.ImageStatusRequest, timeoutMs?: number): Promise<cri.ImageStatusReply> {
    return this.call(STATIC_METHODS.imageStatus, req, timeoutMs);
  }

  pullImage(req: cri.PullImageRequest, timeoutMs?: number): Promise<cri.PullImageResponse__Output> {
    return this.call(STATIC_METHODS.pullImage, req, timeoutMs ?? this.pullTimeoutMs);
  }

  removeImage(req: cri.RemoveImageRequest, timeoutMs?: number): Promise<cri.RemoveImageResponse__Output> {
    return this.genericCall('ImageService', 'RemoveImage', req, timeoutMs);
  }

  imageFsInfo(req: cri.ImageFsInfoRequest = {}, timeoutMs?: number): Promise<cri.ImageFsInfoResponse__Output> {
    return this.genericCall('ImageService', 'ImageFsInfo', req, timeoutMs);
  }

  /** Closes the connection(s); calls in flight fail with CANCELLED. */
  close(): void {
    this.runtimeConn.close();
    if (this.imageConn !== this.runtimeConn) this.imageConn.close();
  }

  // ---- plumbing -------------------------------------------------------------

  /** A cold method, through proto-loader's codecs (unary-methods.ts). */
  private genericCall<Res>(service: CriService, name: CriMethod, req: object, timeoutMs?: number): Promise<Res> {
    return this.call(genericMethod(service, name) as UnaryMethod<object, Res>, req, timeoutMs);
  }

  /**
   * One unary call with a deadline; failures become CriError with the gRPC code kept.
   * Its duration and outcome go to the shared counters (the reply's decoding included,
   * as upstream's instrumented service times the whole call).
   */
  private call<Req, Res>(method: UnaryMethod<Req, Res>, req: Req, timeoutMs?: number): Promise<Res> {
    const channel = method.service === 'ImageService' ? this.imageChannel : this.runtimeChannel;
    return unaryCall(channel, method, req, Date.now() + (timeoutMs ?? this.timeoutMs), this.callCounts);
  }
}
