// Finds what a streaming request targets and asks the runtime for its streaming
// URL, with upstream's answers when something is missing: upstream's
// GetPodByName (404 "pod does not exist"), findContainer over the runtime's
// running containers (500 `container not found ("name")`), GetAttach's TTY from
// the container spec, GetPortForward's sandbox, and streaming.WriteError's mapping
// of the runtime's gRPC code (NotFound 404, ResourceExhausted 429, else 500).
import { status as GrpcStatus } from '@grpc/grpc-js';
import { grpcCodeOf, type CriClient } from '../../shared/cri/client.js';
import { CONTAINER_NAME_LABEL, POD_UID_LABEL } from '../../shared/labels.js';
import { podFullName, type Pod } from '../../shared/types.js';
import type { StreamFailure, StreamOptions, StreamTarget } from './stream-request.js';

/** What the streaming routes need of the kubelet. */
export interface StreamingHost {
  /** The pods the kubelet runs (the pod manager's). */
  pods(): Pod[];
  /** The API server's mirror pods of static pods. */
  mirrorPods(): Pod[];
  /** The kubelet API's CRI client; undefined until the runtime answered at start-up. */
  cri(): CriClient | undefined;
}

/** Upstream's CacheTTL in seconds: how long a client told 429 should wait. */
export const RETRY_AFTER_SECONDS = 60;

export type ResolvedUrl = { url: string } | StreamFailure;

/** Upstream's GetPodByName. */
export function podByName(host: StreamingHost, namespace: string, name: string): Pod | undefined {
  return host.pods().find((pod) => pod.metadata?.namespace === namespace && pod.metadata?.name === name);
}

/** Upstream's TranslatePodUID: a mirror pod's UID names its static pod. */
export function translatePodUid(host: StreamingHost, uid: string): string {
  const mirror = host.mirrorPods().find((candidate) => candidate.metadata?.uid === uid);
  if (!mirror) return uid;
  return host.pods().find((pod) => podFullName(pod) === podFullName(mirror))?.metadata?.uid ?? uid;
}

/** streaming.WriteError's status for a runtime failure. */
export function runtimeFailure(err: unknown): StreamFailure {
  const code = grpcCodeOf(err);
  const statusCode = code === GrpcStatus.NOT_FOUND ? 404 : code === GrpcStatus.RESOURCE_EXHAUSTED ? 429 : 500;
  return { statusCode, message: (err as Error)?.message ?? String(err) };
}

/** The ID of the pod's running container of that name, as upstream's findContainer reads the runtime. */
export async function runningContainerId(cri: CriClient, podUid: string, containerName: string): Promise<string | undefined> {
  const { containers } = await cri.listContainers({
    filter: {
      state: { state: 'CONTAINER_RUNNING' },
      label_selector: { [POD_UID_LABEL]: podUid, [CONTAINER_NAME_LABEL]: containerName },
    },
  });
  return containers.sort((a, b) => Number(b.created_at) - Number(a.created_at))[0]?.id;
}

export async function execUrl(host: StreamingHost, pod: Pod, target: StreamTarget, options: StreamOptions, cmd: string[]): Promise<ResolvedUrl> {
  const found = await findContainer(host, pod, target);
  if ('statusCode' in found) return found;
  const { cri, containerId } = found;
  try {
    const reply = await cri.exec({ container_id: containerId, cmd, ...options });
    return { url: reply.url };
  } catch (err) {
    return runtimeFailure(err);
  }
}

export async function attachUrl(host: StreamingHost, pod: Pod, target: StreamTarget, options: StreamOptions): Promise<ResolvedUrl> {
  const found = await findContainer(host, pod, target);
  if ('statusCode' in found) return found;
  const fullName = podFullName(pod);
  const spec = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []), ...(pod.spec?.ephemeralContainers ?? [])].find(
    (container) => container.name === target.containerName,
  );
  if (!spec) return { statusCode: 500, message: `container ${target.containerName} not found in pod ${fullName}` };
  // Whether the process runs on a TTY was fixed when the container started.
  const tty = spec.tty ?? false;
  try {
    const reply = await found.cri.attach({ container_id: found.containerId, stdin: options.stdin, stdout: options.stdout, stderr: options.stderr && !tty, tty });
    return { url: reply.url };
  } catch (err) {
    return runtimeFailure(err);
  }
}

export async function portForwardUrl(host: StreamingHost, pod: Pod, ports: number[]): Promise<ResolvedUrl> {
  const cri = host.cri();
  if (!cri) return { statusCode: 500, message: 'container runtime is not ready' };
  const uid = pod.metadata?.uid ?? '';
  try {
    const { items } = await cri.listPodSandbox({ filter: { state: { state: 'SANDBOX_READY' }, label_selector: { [POD_UID_LABEL]: uid } } });
    const sandbox = items.sort((a, b) => Number(b.created_at) - Number(a.created_at))[0];
    if (!sandbox) return { statusCode: 500, message: `pod not found ("${podFullName(pod)}")` };
    const reply = await cri.portForward({ pod_sandbox_id: sandbox.id, port: ports });
    return { url: reply.url };
  } catch (err) {
    return runtimeFailure(err);
  }
}

/**
 * The running container a path names, in the pod the path names by namespace and
 * name. A UID in the path must be that pod's (a mirror pod's UID names its static
 * pod): it narrows the request, it never redirects it to another pod. Upstream's
 * GetAttach and getPortForward check this; its exec and run look the container up
 * by the pod's full name and so never reach another pod either.
 */
export async function findContainer(
  host: StreamingHost,
  pod: Pod,
  target: StreamTarget,
): Promise<{ cri: CriClient; containerId: string } | StreamFailure> {
  const cri = host.cri();
  if (!cri) return { statusCode: 500, message: 'container runtime is not ready' };
  const uid = pod.metadata?.uid ?? '';
  if (target.podUid && translatePodUid(host, target.podUid) !== uid) return { statusCode: 500, message: `pod ${podFullName(pod)} not found` };
  try {
    const containerId = await runningContainerId(cri, uid, target.containerName);
    if (!containerId) return { statusCode: 500, message: `container not found ("${target.containerName}")` };
    return { cri, containerId };
  } catch (err) {
    return runtimeFailure(err);
  }
}
