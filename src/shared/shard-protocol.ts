// The boundary between the main thread and a shard. Everything here crosses a
// MessagePort (piscina task payloads and results, comlink calls), so it is plain,
// small and serialisable: no classes, no functions, no Errors (see errors.ts).
import type { Pod, PodStatus } from './types.js';
import { MessagePort } from 'node:worker_threads';
import type { WireError } from './errors.js';
import type { ProbeResult, ProbeType } from './prober/probe-results.js';
import type { CgroupLayout } from './cm/cgroup-fs.js';
import type { CgroupDriver, CgroupName } from './cm/cgroup-name.js';

/** Where pod cgroups go (cgroupsPerQOS): the host's cgroup mounts, the driver and cgroupRoot. */
export interface PodCgroupSettings {
  layout: CgroupLayout;
  driver: CgroupDriver;
  root: CgroupName;
}

/** Settings a shard needs from the node's configuration, fixed for its life. */
export interface ShardSettings {
  runtimeEndpoint: string;
  imageEndpoint: string;
  runtimeRequestTimeoutMs: number;
  nodeName: string;
  /** The node's primary IP, for status.hostIP and the downward API. */
  hostIP: string;
  rootDir: string;
  podLogsDir: string;
  /** KubeletConfiguration.podPidsLimit; -1 or 0 means unlimited. */
  podPidsLimit: number;
  /** Exited instances kept per container name; negative keeps all (upstream's MaxPerPodContainer). */
  maxDeadContainersPerContainer?: number;
  /** A dead container created less than this long ago is never removed (upstream's MinAge, --minimum-container-ttl-duration); 0 when absent. */
  containerGCMinAgeMs?: number;
  /** Absent when cgroupsPerQOS is off: sandboxes then get no cgroup_parent. */
  podCgroups?: PodCgroupSettings;
  clusterDNS: string[];
  clusterDomain: string;
  resolvConf: string;
  /** pino level name for the shard's logger. */
  logLevel: string;
  /** The node-wide CRI call counters (CriCallCounts.buffer), shared with every thread. */
  criCallCounts: SharedArrayBuffer;
  /**
   * Whether the PLEG receives the runtime's container events now (RuntimeEventsFlag.buffer,
   * src/shared/pleg/runtime-events-flag.ts), set by the PLEG and read by the shards; absent
   * reads as "no events".
   */
  runtimeEventsLive?: SharedArrayBuffer;
  /**
   * The node-wide count of image removals begun (ImageRemovals.buffer,
   * src/shared/images/image-removals.ts): the image GC adds to it, the shards drop
   * what they knew of present images when it moves. Absent reads as no removal.
   */
  imageRemovals?: SharedArrayBuffer;
  /**
   * The node-wide permits for sandbox and container creations in flight
   * (CreationPermits.buffer for `shards` shards, src/shared/runtime-creation/);
   * absent with --runtime-creation-limit=off: creations go to the runtime unguarded.
   */
  runtimeCreationPermits?: { buffer: SharedArrayBuffer; shards: number };
}

/** What a pod worker asks its shard to do, as upstream's SyncPod / SyncTerminatingPod / SyncTerminatedPod. */
export type SyncKind = 'sync' | 'terminating' | 'terminated';

/** A pod sync as the pod worker asks for it (the shard's Shard.sync takes it whole; threads get a ShardSyncRequest). */
export interface SyncPodRequest {
  kind: SyncKind;
  pod: Pod;
  /** For 'terminating': the grace period to give containers (already resolved by the pod worker). */
  gracePeriodSeconds?: number;
  /** For 'terminated': also remove the containers and sandboxes (no source wants the pod any more). */
  removeFromRuntime?: boolean;
  /** The last status the main thread holds, for startTime and condition transition times. */
  previousStatus?: PodStatus;
  /** Cluster mode: the API objects the pod's volumes, env and image pulls refer to. */
  apiData?: PodApiData;
  /** The runtime holds nothing of this pod (its first sync, and it was not there at start-up): no need to read it. */
  runtimeKnownEmpty?: boolean;
  /**
   * The pod's runtime state is still the one its last sync ended with: that sync
   * succeeded, and the relists since (one begun after it, at least) brought no news
   * of the pod. The shard then syncs from the state it kept, as upstream's SyncPod
   * from the PLEG's cache, instead of reading the runtime again.
   */
  runtimeUnchanged?: boolean;
}

/**
 * A SyncPodRequest as it crosses to a shard thread. Most syncs of a pod repeat what
 * its shard was sent before (resyncs, PLEG wake-ups, init container steps), so the
 * pod, its API data and its previous status travel only when the shard may not hold
 * them: otherwise the request names the earlier request that carried them (its
 * `seq`), or, for the status, the request whose result it was. The shard keeps what
 * it was last sent per pod, as a cache it may lose, and answers a NeedFullRequest when
 * it does not hold exactly what a request names (a replaced thread, a lost request):
 * the main thread then sends everything. A sync never runs on a stale spec.
 */
export interface ShardSyncRequest {
  uid: string;
  kind: SyncKind;
  /** Numbers the requests to one shard, never reused: what later requests name. */
  seq: number;
  pod?: Pod;
  /** Instead of `pod`: the pod that request `podFrom` carried. */
  podFrom?: number;
  gracePeriodSeconds?: number;
  removeFromRuntime?: boolean;
  runtimeKnownEmpty?: boolean;
  runtimeUnchanged?: boolean;
  previousStatus?: PodStatus;
  /** Instead of `previousStatus`: the status this shard returned for request `previousStatusFrom`. */
  previousStatusFrom?: number;
  apiData?: PodApiData;
  /** Instead of `apiData`: the API data that request `apiDataFrom` carried. */
  apiDataFrom?: number;
}

/** A shard's answer to a ShardSyncRequest naming something it does not hold: nothing was synced; send it all. */
export interface NeedFullRequest {
  needFull: true;
  uid: string;
}

export type ShardSyncReply = SyncPodResult | NeedFullRequest;

export function isNeedFullRequest(reply: ShardSyncReply): reply is NeedFullRequest {
  return (reply as Partial<NeedFullRequest>).needFull === true;
}

/** A ConfigMap's payload as the API holds it (binaryData base64). */
export interface ConfigMapData {
  data: Record<string, string>;
  binaryData: Record<string, string>;
}

/** A Secret's payload as the API holds it (every value base64). */
export interface SecretData {
  type: string;
  data: Record<string, string>;
}

/** A token from the TokenRequest API for a projected serviceAccountToken source. */
export interface ServiceAccountTokenData {
  token: string;
  expirationTimestamp: string;
}

/**
 * The API objects one pod refers to, fetched and kept current by the main thread
 * (the shard never talks to the API server). Keyed by object name in the pod's
 * namespace; null means the object does not exist (yet). Tokens are keyed by
 * serviceAccountTokenKey(audience, expirationSeconds).
 */
export interface PodApiData {
  configMaps: Record<string, ConfigMapData | null>;
  secrets: Record<string, SecretData | null>;
  serviceAccountTokens: Record<string, ServiceAccountTokenData | null>;
}

/** The key of a projected service account token in PodApiData. */
export function serviceAccountTokenKey(audience: string, expirationSeconds: number): string {
  return `${audience}|${expirationSeconds}`;
}

export interface SyncPodResult {
  uid: string;
  /** The API status as upstream's generateAPIPodStatus computes it from the runtime. */
  status: PodStatus;
  /** True once the runtime has no running container or ready sandbox for the pod. */
  terminated: boolean;
  /** Set when something (a CrashLoopBackOff, an image pull backoff) is due before the next resync. */
  requeueAfterMs?: number;
  /**
   * The requeue is for something this sync already read (an init container that
   * exited): the sync it brings may start from the state this one left, without
   * waiting for a relist to confirm it. Unset for a requeue that is a look again.
   */
  requeueOnKeptState?: boolean;
  /** Errors of this sync (each also reflected in the status' waiting reasons). */
  errors: WireError[];
  /** When this sync pulled images for the pod: the first pull's start and the last one's end (epoch ms). */
  imagePulls?: ImagePullInterval;
  /** The pod's sandboxes and containers by ID as this sync last saw them, in the relist's terms. */
  runtimeObjects: Record<string, RuntimeObjectState>;
  /** The same as the sync found them before acting: what its decisions already took into account. */
  actedOnObjects: Record<string, RuntimeObjectState>;
  /** Dead containers and sandboxes the sync's own GC removed: the relist reporting them gone is no news. */
  removedObjectIds: string[];
}

/** The span of a pod's image pulls, which the pod-startup SLO leaves out of the start latency. */
export interface ImagePullInterval {
  firstStartedAtMs: number;
  lastFinishedAtMs: number;
}

/**
 * An event about a pod, as upstream's recorder.Eventf on the pod (or one of its
 * containers). A shard never holds its events until the sync ends: each leaves in a
 * PodEventMessage as it is recorded (Killing before StopContainer, Pulling before
 * PullImage), as upstream's recorder writes at once.
 */
export interface PodEventRecord {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** The container the event is about, as upstream's field path: spec.containers{app}. */
  fieldPath?: string;
  timestampMs: number;
}

/** A pull's result, shared by every shard that waited on the same image; on success with the image's size, which the leader reads once for every pod's Pulled event. */
/** A pull's outcome; a successful one carries the user the image runs as (its ImageStatus after the pull), when read. */
export type PullOutcome = { ok: true; imageRef: string; sizeBytes: number; user?: { uid: number } | { username: string } } | { ok: false; error: WireError };

/** Answer to a pull request: pull it yourself (and report back), or here is the other puller's outcome. */
export type PullGrant = { role: 'leader'; ticket: string } | { role: 'follower'; outcome: PullOutcome };

/**
 * Node-wide image pull coordination, served by the main thread (over comlink for
 * thread shards, directly for --workers 0). It holds serializeImagePulls /
 * maxParallelImagePulls across every shard and de-duplicates concurrent pulls of one
 * image: only the leader calls PullImage, the followers get its outcome.
 */
export interface PullCoordinatorApi {
  acquire(imageKey: string, shardIndex: number): Promise<PullGrant>;
  release(ticket: string, outcome: PullOutcome): Promise<void>;
}

/** One change seen by the PLEG relist, as upstream's PodLifecycleEvent. */
export type PlegEventType = 'ContainerStarted' | 'ContainerDied' | 'ContainerRemoved' | 'ContainerChanged' | 'PodSandboxChanged';

export interface PlegEvent {
  podUid: string;
  type: PlegEventType;
  /** Container or sandbox ID the event is about. */
  id: string;
  /** Its state at this relist ('none' once it is gone). */
  state: RuntimeObjectState | 'none';
}

/** The coarse state the relist keeps of a sandbox (ready = 'running') or a container. */
export type RuntimeObjectState = 'running' | 'exited' | 'unknown' | 'created';

/** A pod found in the runtime, by its labels. */
export interface RuntimePodRef {
  uid: string;
  name: string;
  namespace: string;
  /** Any container running or sandbox ready. */
  active: boolean;
}

/** PLEG → main: what one relist found (the relist's own result, a piscina task result). */
export interface RelistResult {
  events: PlegEvent[];
  /** Present only when the set of runtime pods (or their activity) changed since the last relist. */
  runtimePods?: RuntimePodRef[];
  /** Wall-clock time (epoch ms) the relist began: what it shows is at least this recent. */
  startedAtMs: number;
  /** How long the relist's own work took (list calls and diff), for kubelet_pleg_relist_duration_seconds. */
  durationMs?: number;
  /** What the runtime holds, for kubelet_running_pods and kubelet_running_containers. */
  counts?: RuntimeCounts;
  /**
   * Set on a per-pod relist, which a container event from the runtime triggered
   * (evented PLEG): its events concern only this pod, and it says nothing of the
   * runtime's pod set or of the PLEG's health (the periodic full relist does).
   */
  podUid?: string;
  /** Full relists only: what the container event watcher did since the previous full relist. */
  evented?: EventedPlegCounts;
}

/** The evented PLEG's figures over one full relist period (counts, not totals). */
export interface EventedPlegCounts {
  /** Container events received from the runtime's GetContainerEvents stream. */
  containerEvents: number;
  /** Per-pod relists those events triggered (several events of one pod in a row make one). */
  podRelists: number;
  /** Per-pod relists that failed (the periodic relist covers the pod). */
  podRelistErrors: number;
  /** Streams opened, and streams that failed or ended without being asked to (UNIMPLEMENTED included). */
  streamConnects: number;
  streamErrors: number;
  /** Whether events flow at the end of the period. */
  live: boolean;
}

/**
 * PLEG thread → main, every relist's result, full and per-pod alike, posted on
 * the PLEG thread's parentPort (piscina's 'message' event) in the order the PLEG
 * applied them, so a pod's events reach the pod workers in order; the full
 * relist's piscina task only says it is done. Called directly with --workers 0.
 */
export interface PlegRelistMessage {
  kind: 'pleg-relist';
  result: RelistResult;
}

export function isPlegRelistMessage(message: unknown): message is PlegRelistMessage {
  return (message as Partial<PlegRelistMessage> | null)?.kind === 'pleg-relist';
}

/** Pods with a ready sandbox and containers per state, as upstream's PLEG counts them after each relist. */
export interface RuntimeCounts {
  podsWithReadySandbox: number;
  containersByState: Record<RuntimeObjectState, number>;
}

/** main → shard thread: a piscina task. `exit` ends the thread (fault injection, tests only). */
export type ShardTask = { op: 'sync'; request: ShardSyncRequest } | { op: 'probe-stats' } | { op: 'exit' };

/** What the main thread gives each worker thread at its start (piscina workerData). */
export interface WorkerBootData {
  index: number;
  settings: ShardSettings;
  /** Lets a test end the thread on purpose ({ op: 'exit' }), to prove that a lost shard is replaced. */
  faultInjection: boolean;
}

/**
 * shard thread → main, once at its start (piscina's 'message' event): the port on
 * which the main thread serves it the pull coordinator over comlink.
 */
export interface PullPortMessage {
  kind: 'pull-port';
  port: MessagePort;
}

export function pullPortMessage(port: MessagePort): PullPortMessage {
  return { kind: 'pull-port', port };
}

/** Whether a worker's message is its pull port (piscina's 'message' event carries anything a worker posts). */
export function isPullPortMessage(message: unknown): message is PullPortMessage {
  const candidate = message as Partial<PullPortMessage> | null;
  return candidate?.kind === 'pull-port' && candidate.port instanceof MessagePort;
}

/** The name of the function every worker thread exports for its own CPU time (piscina's `run(…, { name })`). */
export const THREAD_CPU_TASK = 'threadCpuMicros';
/** The name of the function every worker thread exports for its own heap figures (/stats/heap). */
export const THREAD_HEAP_TASK = 'threadHeap';

/**
 * shard → main, whenever a probe result of a container changes (never for a probe
 * that only repeats its result): the main thread syncs the pod at once, as
 * upstream's syncLoop does on a prober results update. Posted on the shard thread's
 * parentPort (piscina's 'message' event), or called directly with --workers 0.
 */
export interface ProbeResultMessage {
  kind: 'probe-result';
  podUid: string;
  podName: string;
  podNamespace: string;
  containerName: string;
  containerId: string;
  probeType: ProbeType;
  result: ProbeResult;
}

export function isProbeResultMessage(message: unknown): message is ProbeResultMessage {
  return (message as Partial<ProbeResultMessage> | null)?.kind === 'probe-result';
}

/** The pod an event is about, enough for its involvedObject (an orphan has no spec, only these). */
export interface EventPodRef {
  uid: string;
  name: string;
  namespace: string;
}

/**
 * shard → main, each pod event as the shard records it: the sync's own (Pulling,
 * Pulled, Created, Started, Killing, BackOff, Failed…) while the sync still runs,
 * and the probes' (Unhealthy) at the pod's next sync. Posted on the shard thread's
 * parentPort (piscina's 'message' event), or called directly with --workers 0: one
 * channel, so a shard's events reach the main thread in the order it recorded them,
 * each once. They do not travel with the sync's result, which goes on another port.
 */
export interface PodEventMessage {
  kind: 'pod-event';
  pod: EventPodRef;
  event: PodEventRecord;
}

export function isPodEventMessage(message: unknown): message is PodEventMessage {
  return (message as Partial<PodEventMessage> | null)?.kind === 'pod-event';
}

/** Everything a shard sends the main thread outside its task results. */
export type ShardMessage = ProbeResultMessage | PodEventMessage;

/** Probes run by one shard since it started, per result (prober_probe_total's counts, pulled on demand). */
export interface ProbeCountRecord {
  podUid: string;
  podName: string;
  podNamespace: string;
  containerName: string;
  probeType: ProbeType;
  result: 'successful' | 'failed' | 'unknown';
  count: number;
}

/** What a shard reports of its probes when asked (ShardTask `probe-stats`). */
export interface ProbeStats {
  counts: ProbeCountRecord[];
  /** Durations of the shard's most recent probes (ms, oldest first, at most a few thousand), for latency percentiles. */
  recentDurationsMs: number[];
  /** Probes this shard ran since it started. */
  totalProbes: number;
  workers: number;
}
