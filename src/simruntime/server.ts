// Starts the simulated container runtime: a real gRPC server on a unix socket
// serving the project's CRI proto, so shardlet talks to it exactly as it talks
// to containerd. Used by `npm start`, the tests and the bench.
import { lstat, mkdir, unlink } from 'node:fs/promises';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { dirname } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { pino, type Logger } from 'pino';
import { loadCriServices } from '../shared/cri/load-proto.js';
import { sniffAuthority } from './authority-fixup.js';
import { CallStats, type SimStats } from './call-stats.js';
import { ContainerEvents } from './container-events.js';
import { ContainerLifecycle } from './container-lifecycle.js';
import { ContainerLogWriter } from './container-log-writer.js';
import { FaultInjector, type FaultRule } from './fault-injection.js';
import { sandboxDied } from './sandbox-service.js';
import { ImageCatalog } from './image-catalog.js';
import { ImageService } from './image-service.js';
import { LatencyModel, resolveLatencyOptions, type LatencyOverrides } from './latency-model.js';
import { runtimePersonality, type PersonalityName, type RuntimePersonality } from './personality.js';
import { imageServiceHandlers, runtimeServiceHandlers } from './runtime-service.js';
import type { RuntimeConditions, SimContext } from './sim-context.js';
import { StateStore } from './state-store.js';
import { StreamingServer } from './streaming/streaming-server.js';

/** Same cap as the client: big lists on dense nodes. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** How long close() lets calls in flight finish before cutting them. */
const SHUTDOWN_GRACE_MS = 1_000;

export interface SimRuntimeOptions {
  /** Absolute path of the unix socket to listen on; a stale socket there is replaced. */
  socketPath: string;
  /** Overrides of the default latency model; `{ scale: 0 }` for instant calls. */
  latency?: LatencyOverrides;
  logger?: Logger;
  /** When set, only these registry hosts resolve. */
  knownRegistries?: string[];
  /** Images present from the start, without a pull. */
  preloadImages?: string[];
  /** Groups of tagged references that are one image in the simulated registries (image-catalog.ts). */
  sameImages?: string[][];
  /**
   * Answer as this runtime does where runtimes differ (personality.ts); without
   * one, the sim's default: containerd 2.x with running containers only in its
   * sandbox stats.
   */
  personality?: PersonalityName;
  /** With the crio personality: CRI-O's enable_pod_events (default false, as CRI-O's). */
  podEvents?: boolean;
  /** false answers GetContainerEvents UNIMPLEMENTED, as containerd 1.6, whatever the personality. */
  containerEvents?: boolean;
}

export interface SimRuntime {
  /** `unix:///…`, ready for CriClient or --container-runtime-endpoint. */
  readonly endpoint: string;
  readonly socketPath: string;
  /** Calls served so far, per RPC. */
  stats(): SimStats;
  /** Flips RuntimeReady / NetworkReady as reported by Status. */
  setConditions(conditions: Partial<RuntimeConditions>): void;
  /** The next `times` calls of a method (for one pod, or any) fail with a code, or are delayed. */
  injectFault(rule: FaultRule): void;
  /** The pod's sandbox dies (its pause process and every container with it), as an OOM kill or a node problem does. */
  killSandbox(podUid: string): void;
  /** GetContainerEvents streams open now. */
  eventStreams(): number;
  /** The traits the sim answers with. */
  readonly personality: RuntimePersonality;
  close(): Promise<void>;
}

export async function startSimRuntime(options: SimRuntimeOptions): Promise<SimRuntime> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const latencyOptions = resolveLatencyOptions(options.latency);
  const store = new StateStore();
  const personality = withEventsSwitch(runtimePersonality(options.personality, options.podEvents === undefined ? {} : { podEvents: options.podEvents }), options.containerEvents);
  const logWriter = new ContainerLogWriter(store, logger, personality.logTimeOffset);
  const events = new ContainerEvents(store, personality);
  const ctx: SimContext = {
    personality,
    store,
    lifecycle: new ContainerLifecycle(logWriter, events),
    events,
    logWriter,
    latency: new LatencyModel(latencyOptions),
    catalog: new ImageCatalog({
      knownRegistries: options.knownRegistries,
      defaultImageSizeBytes: latencyOptions.defaultImageSizeBytes,
      imageSizesBytes: latencyOptions.imageSizesBytes,
      sameImages: options.sameImages,
    }),
    stats: new CallStats(),
    logger,
    faults: new FaultInjector(),
    conditions: { runtimeReady: true, networkReady: true },
    podCidr: '',
  };
  const images = new ImageService(ctx);
  for (const name of options.preloadImages ?? []) images.preload(name);

  const services = loadCriServices();
  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  });
  const streaming = await StreamingServer.start(ctx);
  server.addService(services.runtime, runtimeServiceHandlers(ctx, streaming));
  server.addService(services.image, imageServiceHandlers(ctx, images));
  await prepareSocketPath(options.socketPath);
  const endpoint = `unix://${options.socketPath}`;
  const listener = await listenForClients(server, options.socketPath);
  logger.info(
    { endpoint, latencyScale: latencyOptions.scale, personality: personality.name, containerEvents: personality.containerEvents },
    'Simulated container runtime listening',
  );

  let closed: Promise<void> | undefined;
  return {
    endpoint,
    socketPath: options.socketPath,
    stats: () => ctx.stats.snapshot(),
    setConditions: (conditions) => Object.assign(ctx.conditions, conditions),
    injectFault: (rule) => ctx.faults.inject(rule),
    killSandbox: (podUid) => sandboxDied(ctx, podUid),
    eventStreams: () => events.openStreams,
    personality,
    close: () => (closed ??= shutdown(server, listener, ctx, options.socketPath).then(() => streaming.close())),
  };
}

/** `containerEvents: false` (the switch older than personalities) answers UNIMPLEMENTED whatever the personality. */
function withEventsSwitch(personality: RuntimePersonality, containerEvents: boolean | undefined): RuntimePersonality {
  return containerEvents === false ? { ...personality, containerEvents: 'unimplemented' } : personality;
}

/**
 * Accepts the runtime's clients on the unix socket and hands each connection to
 * grpc-js, through the authority fix-up for clients that name the socket path
 * (authority-fixup.ts), as containerd takes them.
 */
async function listenForClients(server: grpc.Server, socketPath: string): Promise<NetServer> {
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  const listener = createNetServer((socket) => sniffAuthority(socket, (connection) => injector.injectConnection(connection)));
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(socketPath, () => {
      listener.off('error', reject);
      resolve();
    });
  });
  return listener;
}

/** Creates the socket's directory and removes a socket left by an earlier run. */
async function prepareSocketPath(socketPath: string): Promise<void> {
  await mkdir(dirname(socketPath), { recursive: true });
  const existing = await lstat(socketPath).catch(() => undefined);
  if (!existing) return;
  if (!existing.isSocket()) throw new Error(`${socketPath} exists and is not a socket; refusing to replace it`);
  await unlink(socketPath);
}

async function shutdown(server: grpc.Server, listener: NetServer, ctx: SimContext, socketPath: string): Promise<void> {
  listener.close();
  // Open event streams would hold tryShutdown for its whole grace period.
  ctx.events.endAll();
  await new Promise<void>((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, SHUTDOWN_GRACE_MS);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
  ctx.lifecycle.forgetAll();
  ctx.logWriter.forgetAll();
  ctx.latency.close();
  await unlink(socketPath).catch(() => undefined);
  ctx.logger.info({ socketPath }, 'Simulated container runtime stopped');
}
