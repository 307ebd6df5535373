// How long each simulated CRI call takes. The defaults are what a bare gRPC
// client measured against containerd 1.6 + runc + the bridge CNI on the target
// machines (see DESIGN.md); image pulls cost a fixed resolve time plus the image's
// bytes over a registry link shared by concurrent pulls. Every delay is a timer,
// never a lock, so concurrent calls overlap as they do on a real runtime.
import { readFileSync } from 'node:fs';
import { RegistryLink } from './registry-link.js';

/** Names of the CRI methods the sim serves, as in the proto. */
export type RpcName =
  | 'Version'
  | 'Status'
  | 'UpdateRuntimeConfig'
  | 'RunPodSandbox'
  | 'StopPodSandbox'
  | 'RemovePodSandbox'
  | 'PodSandboxStatus'
  | 'ListPodSandbox'
  | 'CreateContainer'
  | 'StartContainer'
  | 'StopContainer'
  | 'RemoveContainer'
  | 'ListContainers'
  | 'ContainerStatus'
  | 'UpdateContainerResources'
  | 'ExecSync'
  | 'GetContainerEvents'
  | 'ListImages'
  | 'ImageStatus'
  | 'PullImage'
  | 'RemoveImage'
  | 'ImageFsInfo';

/** Measured on containerd 1.6 where noted; the rest are small bookkeeping calls. */
export const DEFAULT_CALL_LATENCY_MS: Readonly<Record<RpcName, number>> = {
  Version: 1,
  Status: 1,
  UpdateRuntimeConfig: 1,
  RunPodSandbox: 90, // measured: netns + CNI bridge ADD + pause task
  StopPodSandbox: 90, // measured: CNI DEL + pause task kill
  RemovePodSandbox: 10,
  PodSandboxStatus: 1,
  ListPodSandbox: 1,
  CreateContainer: 8, // measured: snapshot + OCI spec
  StartContainer: 55, // measured: runc create + start
  StopContainer: 10,
  RemoveContainer: 5,
  ListContainers: 1,
  ContainerStatus: 1,
  UpdateContainerResources: 2,
  ExecSync: 20,
  GetContainerEvents: 0,
  ListImages: 1,
  ImageStatus: 1,
  PullImage: 30, // manifest resolution before any layer moves
  RemoveImage: 5,
  ImageFsInfo: 1,
};

export const DEFAULT_IMAGE_SIZE_BYTES = 50_000_000;
export const DEFAULT_REGISTRY_BANDWIDTH_BYTES_PER_SECOND = 100_000_000;
/** ±20 % uniform jitter on every call. */
export const DEFAULT_JITTER_FRACTION = 0.2;
/** Extra cost of a list call per item returned (the runtime builds every entry). */
export const DEFAULT_LIST_ITEM_LATENCY_MS = 0.005;

export interface LatencyOptions {
  /** Multiplies every delay, transfers included; 0 makes the sim instant (fast tests). */
  scale: number;
  /** Each delay is drawn uniformly from d × (1 ± jitter). */
  jitter: number;
  /** Per-call base latency, milliseconds. */
  callLatencyMs: Record<RpcName, number>;
  listItemLatencyMs: number;
  /** Shared by all pulls in flight; 0 means unlimited. */
  registryBandwidthBytesPerSecond: number;
  defaultImageSizeBytes: number;
  /** Sizes by image name as written or canonical (docker.io/library/busybox:latest). */
  imageSizesBytes: Record<string, number>;
}

/** What a JSON file or the caller may override. */
export type LatencyOverrides = Partial<Omit<LatencyOptions, 'callLatencyMs'>> & {
  callLatencyMs?: Partial<Record<RpcName, number>>;
};

export function defaultLatencyOptions(): LatencyOptions {
  return {
    scale: 1,
    jitter: DEFAULT_JITTER_FRACTION,
    callLatencyMs: { ...DEFAULT_CALL_LATENCY_MS },
    listItemLatencyMs: DEFAULT_LIST_ITEM_LATENCY_MS,
    registryBandwidthBytesPerSecond: DEFAULT_REGISTRY_BANDWIDTH_BYTES_PER_SECOND,
    defaultImageSizeBytes: DEFAULT_IMAGE_SIZE_BYTES,
    imageSizesBytes: {},
  };
}

/** Defaults, then each layer of overrides in order (file first, flags last). */
export function resolveLatencyOptions(...layers: Array<LatencyOverrides | undefined>): LatencyOptions {
  const options = defaultLatencyOptions();
  for (const layer of layers) {
    if (!layer) continue;
    const { callLatencyMs, imageSizesBytes, ...scalars } = layer;
    for (const [key, value] of Object.entries(scalars)) {
      if (value !== undefined) (options as unknown as Record<string, unknown>)[key] = value;
    }
    Object.assign(options.callLatencyMs, callLatencyMs ?? {});
    Object.assign(options.imageSizesBytes, imageSizesBytes ?? {});
  }
  validate(options);
  return options;
}

/** Reads a latency JSON file: any subset of LatencyOptions. */
export function loadLatencyFile(path: string): LatencyOverrides {
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`latency file ${path}: expected a JSON object`);
  }
  const unknownRpc = Object.keys((parsed as LatencyOverrides).callLatencyMs ?? {}).filter(
    (name) => !(name in DEFAULT_CALL_LATENCY_MS),
  );
  if (unknownRpc.length > 0) throw new Error(`latency file ${path}: unknown RPC name(s) in callLatencyMs: ${unknownRpc.join(', ')}`);
  return parsed as LatencyOverrides;
}

function validate(options: LatencyOptions): void {
  const nonNegative: Array<[string, number]> = [
    ['scale', options.scale],
    ['jitter', options.jitter],
    ['listItemLatencyMs', options.listItemLatencyMs],
    ['registryBandwidthBytesPerSecond', options.registryBandwidthBytesPerSecond],
    ['defaultImageSizeBytes', options.defaultImageSizeBytes],
    ...Object.entries(options.callLatencyMs),
  ];
  for (const [name, value] of nonNegative) {
    if (typeof value !== 'number' || !(value >= 0)) throw new Error(`latency option ${name} must be a number ≥ 0, got ${value}`);
  }
  if (options.jitter >= 1) throw new Error(`latency option jitter must be below 1, got ${options.jitter}`);
}

export class LatencyModel {
  private readonly link: RegistryLink;

  constructor(readonly options: LatencyOptions = defaultLatencyOptions()) {
    const scaledBandwidth = options.scale === 0 ? Infinity : options.registryBandwidthBytesPerSecond / options.scale;
    this.link = new RegistryLink(scaledBandwidth);
  }

  /** One draw of the delay of `rpc`, in ms; list calls pay per item returned. */
  delayMs(rpc: RpcName, items = 0): number {
    const baseMs = this.options.callLatencyMs[rpc] + items * this.options.listItemLatencyMs;
    const jitterFactor = 1 + (Math.random() * 2 - 1) * this.options.jitter;
    return baseMs * jitterFactor * this.options.scale;
  }

  /** Waits out the delay of one call. */
  async wait(rpc: RpcName, items = 0): Promise<void> {
    const ms = this.delayMs(rpc, items);
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** Moves an image's bytes over the shared registry link. */
  download(bytes: number): Promise<void> {
    return this.link.transfer(bytes);
  }

  close(): void {
    this.link.close();
  }
}
