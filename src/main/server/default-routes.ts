// The kubelet API's own endpoints besides those of logs, streaming, metrics and
// stats: /healthz, /pods (the pods this kubelet runs, with the statuses it
// computed, as the read-only server's /pods), /runningpods/ (what the runtime
// runs) and /configz (the resolved configuration).
import type { ServerResponse } from 'node:http';
import type { Pod } from '../../shared/types.js';
import { configzDocument } from './configz.js';
import { writeHealthz, type Health } from './healthz.js';
import type { KubeletRoutes } from './kubelet-routes.js';

export interface DefaultRoutesSource {
  healthy(): Health;
  /** The pods this kubelet manages, statuses included. */
  pods(): Pod[];
  runningPods(): Promise<Pod[]>;
  resolvedConfig: Readonly<Record<string, unknown>>;
}

/** Registers /healthz, /pods, /configz and, with debugging handlers, /runningpods/. */
export function addDefaultRoutes(routes: KubeletRoutes, source: DefaultRoutesSource, debuggingHandlers: boolean): void {
  routes.add({ path: '/healthz', methods: ['GET', 'HEAD'], request: (req, res) => writeHealthz(res, source.healthy(), req.method === 'HEAD') });
  routes.add({ path: '/pods', methods: ['GET'], request: (_req, res) => sendJson(res, 200, podList(source.pods())) });
  if (!debuggingHandlers) return;
  routes.add({ path: '/configz', methods: ['GET'], request: (_req, res) => sendJson(res, 200, configzDocument(source.resolvedConfig)) });
  routes.add({
    path: '/runningpods/',
    methods: ['GET'],
    request: async (_req, res) => {
      try {
        sendJson(res, 200, podList(await source.runningPods()));
      } catch (err) {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`${(err as Error).message}\n`);
      }
    },
  });
}

function podList(items: Pod[]): object {
  return { kind: 'PodList', apiVersion: 'v1', metadata: {}, items };
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
