// GET /containerLogs/{namespace}/{pod}/{container} of the kubelet API, as
// upstream's getContainerLogs (pkg/kubelet/server/server.go) with
// GetKubeletContainerLogs and the runtime manager's GetContainerLogs behind it:
// the pod from the pod manager, the container instance from the pod's status,
// the log path from CRI ContainerStatus, then the file itself. Status codes and
// messages are upstream's: 400 for a missing path part, an undecodable query or
// a container without logs, 422 for an invalid query, 404 for an unknown pod or
// container.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { CriClient } from '../../shared/cri/client.js';
import type { ShardletError } from '../../shared/errors.js';
import type { Pod, PodStatus } from '../../shared/types.js';
import type { Route, RouteContext } from '../server/kubelet-routes.js';
import { logContainerId } from './log-container-id.js';
import { LogQueryError, parseLogQuery } from './log-options.js';
import { readContainerLog } from './container-log-reader.js';

export const CONTAINER_LOGS_PATH = '/containerLogs/';

/** What the route reads from the kubelet. */
export interface ContainerLogsHost {
  /** A pod the kubelet runs (static pods too), by namespace and name: upstream's GetPodByName. */
  podByName(namespace: string, name: string): Pod | undefined;
  statusOf(uid: string): PodStatus | undefined;
  /** The kubelet API's CRI channel; undefined until the runtime has answered at start-up. */
  cri(): CriClient | undefined;
  /** The PodLogsQuerySplitStreams feature gate: `stream` may be given. */
  splitStreams: boolean;
  logger: Logger;
}

export function containerLogsRoute(host: ContainerLogsHost): Route {
  return {
    path: CONTAINER_LOGS_PATH,
    methods: ['GET'],
    request: (req, res, ctx) => serveContainerLogs(host, req, res, ctx),
  };
}

async function serveContainerLogs(host: ContainerLogsHost, _req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> {
  const parts = ctx.url.pathname.slice(CONTAINER_LOGS_PATH.length).split('/').map(decodePart);
  if (parts.length > 3 || parts.includes(undefined)) return fail(res, 404, '404 page not found');
  const [namespace = '', podName = '', containerName = ''] = parts as string[];
  if (!podName) return fail(res, 400, '{"message": "Missing podID."}');
  if (!containerName) return fail(res, 400, '{"message": "Missing container name."}');
  if (!namespace) return fail(res, 400, '{"message": "Missing podNamespace."}');
  let query;
  try {
    query = parseLogQuery(ctx.url.searchParams, Date.now(), host.splitStreams);
  } catch (err) {
    if (err instanceof LogQueryError) return fail(res, err.statusCode, err.message);
    throw err;
  }
  const pod = host.podByName(namespace, podName);
  if (!pod) return fail(res, 404, `pod ${JSON.stringify(podName)} does not exist`);
  if (!hasContainer(pod, containerName)) return fail(res, 404, `container ${JSON.stringify(containerName)} not found in pod ${JSON.stringify(podName)}`);

  const choice = logContainerId(host.statusOf(pod.metadata?.uid ?? ''), containerName, podName, query.previous);
  if ('error' in choice) return fail(res, 400, choice.error);
  const cri = host.cri();
  if (!cri) return fail(res, 503, 'the container runtime is not ready yet');
  let logPath: string;
  try {
    logPath = (await cri.containerStatus({ container_id: choice.containerId })).status?.log_path ?? '';
  } catch (err) {
    host.logger.debug({ containerId: choice.containerId, err }, 'Failed to get container status for logs');
    return fail(res, 400, `unable to retrieve container logs for ${choice.containerId}`);
  }

  res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
  // Headers out at once, as upstream's zero-byte write does: a follower sees the stream open before the first line.
  res.flushHeaders();
  try {
    await readContainerLog(
      {
        path: logPath,
        signal: ctx.signal,
        isRunning: () => isRunning(cri, choice.containerId),
        write: (chunk) => writeChunk(res, chunk, ctx.signal),
      },
      query.read,
    );
  } catch (err) {
    // The status line is out: the error can only end the body, as upstream's does.
    host.logger.info({ pod: `${namespace}/${podName}`, container: containerName, code: (err as ShardletError).code, err: (err as Error).message }, 'Container log read failed');
    if (!res.writableEnded) res.write((err as Error).message);
  }
  if (!res.writableEnded) res.end();
}

/** A path segment with its %-escapes decoded; undefined when they are malformed. */
function decodePart(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** Containers, init containers and ephemeral containers, as upstream's GetContainerSpec. */
function hasContainer(pod: Pod, name: string): boolean {
  const spec = pod.spec;
  return [spec?.containers, spec?.initContainers, spec?.ephemeralContainers].some((list) => list?.some((container) => container.name === name));
}

/** A failure answered as a CRI NotFound counts as not running: the container is gone. */
async function isRunning(cri: CriClient, containerId: string): Promise<boolean> {
  try {
    return (await cri.containerStatus({ container_id: containerId })).status?.state === 'CONTAINER_RUNNING';
  } catch {
    return false;
  }
}

function writeChunk(res: ServerResponse, chunk: Buffer, signal: AbortSignal): Promise<void> {
  if (res.write(chunk) || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

function fail(res: ServerResponse, statusCode: number, message: string): void {
  res.writeHead(statusCode, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(message);
}
