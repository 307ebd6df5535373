// What kube-apiserver forwards to a node's kubelet: nodes/proxy (any method, any
// path under /api/v1/nodes/<node>/proxy/) and the pod subresources log, exec,
// attach and portforward, mapped to the kubelet's /containerLogs, /exec,
// /attach and /portForward as upstream's pod LogLocation / ExecLocation /
// PortForwardLocation build them. The kubelet is reached at the node's
// InternalIP and daemonEndpoints.kubeletEndpoint.Port over TLS with the API
// server's own client certificate (kube-apiserver-kubelet-client); its serving
// certificate is not verified, as kube-apiserver without
// --kubelet-certificate-authority. Upgrades (SPDY, WebSocket) are passed through
// as raw sockets, like the UpgradeAwareHandler: no protocol translation.
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { ApiError, badRequest, notFound } from './api-error.js';
import type { ServerContext } from './context.js';
import type { KubeObject } from './types.js';

export const KUBELET_CLIENT_IDENTITY = { user: 'kube-apiserver-kubelet-client', groups: ['system:masters'] };

export interface KubeletTarget {
  host: string;
  port: number;
  /** Path and query on the kubelet. */
  path: string;
  /** For the request counters: `nodes/proxy`, `pods/log`, … */
  resource: string;
}

const NODE_PROXY = /^\/api\/v1\/nodes\/([^/]+)\/proxy(\/.*)?$/;
const POD_STREAM = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(log|exec|attach|portforward)$/;
/** Headers that belong to the hop to the API server, not to the kubelet. */
const HOP_HEADERS = new Set(['authorization', 'host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/** The kubelet request behind an API path, or undefined when the path is not one of these. */
export function kubeletTargetOf(ctx: ServerContext, url: URL): KubeletTarget | undefined {
  const nodeProxy = NODE_PROXY.exec(url.pathname);
  if (nodeProxy) {
    const node = nodeNamed(ctx, decodeURIComponent(nodeProxy[1]!));
    return { ...kubeletEndpoint(node), path: `${nodeProxy[2] ?? '/'}${url.search}`, resource: 'nodes/proxy' };
  }
  const podStream = POD_STREAM.exec(url.pathname);
  if (!podStream) return undefined;
  const [, namespace, name, subresource] = podStream.map((part) => decodeURIComponent(part ?? '')) as [string, string, string, string];
  const pod = ctx.store.get({ key: 'pods', group: '', plural: 'pods' }, namespace, name);
  if (!pod) throw notFound('', 'pods', name);
  const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
  if (!nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  const endpoint = kubeletEndpoint(nodeNamed(ctx, nodeName));
  const query = url.searchParams;
  const podPath = `${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
  if (subresource === 'portforward') {
    return { ...endpoint, path: `/portForward/${podPath}${queryString(query.getAll('ports').map((port) => ['port', port]))}`, resource: 'pods/portforward' };
  }
  const container = encodeURIComponent(containerOf(pod, query.get('container')));
  if (subresource === 'log') return { ...endpoint, path: `/containerLogs/${podPath}/${container}${queryString(logParams(query))}`, resource: 'pods/log' };
  const params = streamParams(query, subresource === 'exec');
  return { ...endpoint, path: `/${subresource}/${podPath}/${container}${queryString(params)}`, resource: `pods/${subresource}` };
}

/** Forwards a plain request and streams the kubelet's answer back (logs with follow stream as they come). */
export function proxyRequest(req: IncomingMessage, res: ServerResponse, target: KubeletTarget, client: { certPem: string; keyPem: string }): void {
  const upstream = https.request({
    host: target.host,
    port: target.port,
    method: req.method,
    path: target.path,
    headers: forwardedHeaders(req, target),
    cert: client.certPem,
    key: client.keyPem,
    rejectUnauthorized: false,
  });
  upstream.on('response', (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', (err) => {
    if (res.headersSent) return res.destroy();
    const status = new ApiError(502, 'ServiceUnavailable', `error trying to reach service: ${err.message}`).toStatus();
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify(status));
  });
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}

/** Passes an upgrade through: the request line and headers written to the kubelet's TLS socket, then bytes both ways. */
export function proxyUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, target: KubeletTarget, client: { certPem: string; keyPem: string }): void {
  const backend = tls.connect({ host: target.host, port: target.port, cert: client.certPem, key: client.keyPem, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
  backend.once('secureConnect', () => {
    const headers = Object.entries(forwardedHeaders(req, target, true)).flatMap(([key, value]) => [value].flat().map((v) => `${key}: ${v}`));
    backend.write(`${req.method} ${target.path} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) backend.write(head);
    backend.pipe(socket);
    socket.pipe(backend);
  });
  backend.on('error', (err) => {
    if (socket.writable && backend.bytesWritten === 0) {
      const body = `error trying to reach service: ${err.message}\n`;
      socket.end(`HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    } else socket.destroy();
  });
  socket.on('error', () => backend.destroy());
  socket.on('close', () => backend.destroy());
  backend.on('close', () => socket.destroy());
}

function nodeNamed(ctx: ServerContext, name: string): KubeObject {
  const node = ctx.store.get({ key: 'nodes', group: '', plural: 'nodes' }, undefined, name);
  if (!node) throw notFound('', 'nodes', name);
  return node;
}

/** As kube-apiserver with --kubelet-preferred-address-types led by InternalIP. */
function kubeletEndpoint(node: KubeObject): { host: string; port: number } {
  const status = node.status as { addresses?: Array<{ type: string; address: string }>; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } } | undefined;
  const addresses = status?.addresses ?? [];
  const address = addresses.find((a) => a.type === 'InternalIP') ?? addresses.find((a) => a.type === 'Hostname');
  const port = status?.daemonEndpoints?.kubeletEndpoint?.Port;
  if (!address || !port) throw new ApiError(503, 'ServiceUnavailable', `node ${node.metadata.name} has no kubelet address or port in its status`);
  return { host: address.address, port };
}

/** The container asked for, or the pod's only one; several without a choice is a 400 as upstream. */
function containerOf(pod: KubeObject, asked: string | null): string {
  const names = ((pod.spec as { containers?: Array<{ name: string }> } | undefined)?.containers ?? []).map((c) => c.name);
  if (asked) return asked;
  if (names.length === 1) return names[0]!;
  throw badRequest(`a container name must be specified for pod ${pod.metadata.name}, choose one of: [${names.join(' ')}]`);
}

function logParams(query: URLSearchParams): Array<[string, string]> {
  const params: Array<[string, string]> = [];
  for (const flag of ['follow', 'previous', 'timestamps']) if (query.get(flag) === 'true') params.push([flag, 'true']);
  for (const number of ['sinceSeconds', 'tailLines', 'limitBytes']) {
    const value = query.get(number);
    if (value !== null) params.push([number, value]);
  }
  const sinceTime = query.get('sinceTime');
  if (sinceTime !== null) params.push(['sinceTime', sinceTime]);
  return params;
}

/** As upstream's streamParams: each stream asked for as "1", the command's words one param each (exec only). */
function streamParams(query: URLSearchParams, withCommand: boolean): Array<[string, string]> {
  const params: Array<[string, string]> = [];
  for (const stream of ['stdin', 'stdout', 'stderr', 'tty']) {
    const value = query.get(stream);
    if (value === 'true' || value === '1') params.push([stream, '1']);
  }
  if (withCommand) for (const word of query.getAll('command')) params.push(['command', word]);
  return params;
}

function queryString(params: Array<[string, string]>): string {
  return params.length === 0 ? '' : `?${new URLSearchParams(params).toString()}`;
}

function forwardedHeaders(req: IncomingMessage, target: KubeletTarget, upgrade = false): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { host: `${target.host}:${target.port}` };
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (HOP_HEADERS.has(key) && !(upgrade && key === 'connection')) continue;
    headers[key] = value;
  }
  if (!upgrade && req.headers['content-length']) headers['content-length'] = req.headers['content-length'];
  if (!upgrade && req.headers['transfer-encoding']) headers['transfer-encoding'] = req.headers['transfer-encoding'];
  return headers;
}
