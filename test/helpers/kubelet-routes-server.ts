// Runs a shardlet Kubelet in the test's process and mounts its kubelet API routes
// (KubeletRoutes) on a plain HTTP server: the tiny adapter the route modules are
// tested through until the :10250 server (TLS, authn/authz) is merged in front of them.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { Kubelet } from '../../src/main/kubelet.js';
import { parseFlags } from '../../src/main/options/flags.js';
import { loadKubeletConfig, mergeFlags } from '../../src/main/options/kubelet-config.js';
import type { KubeletRoutes } from '../../src/main/server/kubelet-routes.js';

export interface InProcessKubelet {
  kubelet: Kubelet;
  manifestDir: string;
  podLogsDir: string;
  /** Port of the plain-HTTP adapter serving the kubelet's routes. */
  port: number;
  stop(): Promise<void>;
}

/** A standalone kubelet on `runtimeEndpoint`, with extra KubeletConfiguration fields, and its routes on a free port. */
export async function startInProcessKubelet(options: {
  runtimeEndpoint: string;
  nodeName: string;
  workers?: number;
  config?: Record<string, unknown>;
}): Promise<InProcessKubelet> {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-routes-'));
  const manifestDir = join(workDir, 'manifests');
  const podLogsDir = join(workDir, 'pod-logs');
  mkdirSync(manifestDir);
  const configPath = join(workDir, 'kubelet.yaml');
  writeFileSync(
    configPath,
    // The adapter serves the routes itself: no :10250 server and no healthz port (tests must not bind fixed ports).
    stringify({ apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', podLogsDir, staticPodPath: manifestDir, fileCheckFrequency: '1s', enableServer: false, healthzPort: 0, ...options.config }),
  );
  const flags = parseFlags([
    `--config=${configPath}`,
    `--container-runtime-endpoint=${options.runtimeEndpoint}`,
    `--root-dir=${join(workDir, 'root')}`,
    `--workers=${options.workers ?? 1}`,
    `--hostname-override=${options.nodeName}`,
  ]);
  const kubelet = new Kubelet(mergeFlags(await loadKubeletConfig(configPath), flags), pino({ level: 'warn' }));
  await kubelet.start();
  // The routes as the kubelet registers them for its :10250 server.
  const routes = kubelet.apiRoutes();
  const server = mountRoutes(routes);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    kubelet,
    manifestDir,
    podLogsDir,
    port: (server.address() as AddressInfo).port,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await kubelet.stop();
    },
  };
}

/** Every request to the route that matches its path, with the signal aborted when the client goes away. */
export function mountRoutes(routes: KubeletRoutes): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = routes.match(url.pathname);
    if (!route?.request || !route.methods.includes(req.method ?? '')) {
      res.writeHead(route ? 405 : 404).end();
      return;
    }
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    void route.request(req, res, { url, user: { name: 'test', groups: [] }, signal: abort.signal });
  });
}

/** GET `path` (with its query) on the adapter; the whole body as text. */
export async function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** A streaming GET (follow): the text received so far, and a way to hang up. */
export function httpFollow(port: number, path: string): { text(): string; ended(): boolean; close(): void } {
  let received = '';
  let ended = false;
  const req = request({ host: '127.0.0.1', port, path }, (res) => {
    res.on('data', (chunk: Buffer) => (received += chunk.toString()));
    res.on('end', () => (ended = true));
    res.on('error', () => (ended = true));
  });
  req.on('error', () => (ended = true));
  req.end();
  return { text: () => received, ended: () => ended, close: () => req.destroy() };
}
