// Shared by the test API server's tests: a started server, an admin kubeconfig
// and a raw HTTPS client that speaks as the admin (or as nobody).
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApiServer, type TestApiServer, type TestApiServerOptions } from '../../src/testapiserver/index.js';

export interface Harness {
  server: TestApiServer;
  dir: string;
  adminKubeconfig: string;
  request(method: string, urlPath: string, options?: RequestOptions): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): Promise<void>;
}

export interface RequestOptions {
  body?: unknown;
  contentType?: string;
  /** 'admin' (client certificate, default), 'none', or a bearer token. */
  auth?: 'admin' | 'none' | { token: string };
}

export async function startHarness(options: TestApiServerOptions = {}): Promise<Harness> {
  const server = await startTestApiServer(options);
  const dir = await mkdtemp(path.join(tmpdir(), 'shardlet-apiserver-test-'));
  const adminKubeconfig = await server.writeKubeconfig(path.join(dir, 'admin.kubeconfig'), { user: 'admin' });
  const admin = await server.clientCredentials({ user: 'admin' });
  const request: Harness['request'] = (method, urlPath, opts = {}) =>
    new Promise((resolve, reject) => {
      const auth = opts.auth ?? 'admin';
      const headers: Record<string, string> = { Accept: 'application/json' };
      const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
      if (payload !== undefined) {
        headers['Content-Type'] = opts.contentType ?? 'application/json';
        headers['Content-Length'] = String(Buffer.byteLength(payload));
      }
      if (typeof auth === 'object') headers.Authorization = `Bearer ${auth.token}`;
      const req = https.request(
        new URL(urlPath, server.url),
        { method, headers, agent: false, ca: admin.caPem, ...(auth === 'admin' ? { cert: admin.certPem, key: admin.keyPem } : {}) },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            resolve({ status: res.statusCode ?? 0, body: text.startsWith('{') ? JSON.parse(text) : text });
          });
        },
      );
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  return {
    server,
    dir,
    adminKubeconfig,
    request,
    close: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function podManifest(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: name } },
    spec: { containers: [{ name: 'main', image: 'busybox:1.36', command: ['sleep', '3600'] }], ...extra },
  };
}

/** Waits until `check` returns a value, polling every 20 ms. */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
