// Routes one authenticated request to discovery or to a resource verb, and
// answers it. Verbs are named as the apiserver's audit log names them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AGGREGATED_DISCOVERY_CONTENT_TYPE, aggregatedDiscovery } from './aggregated-discovery.js';
import { ApiError, methodNotAllowed } from './api-error.js';
import type { ResourceRequest, ServerContext } from './context.js';
import { createObject, getObject, listDocument, listObjects, patchObject, updateObject } from './crud.js';
import { deleteObject } from './delete.js';
import { SERVER_VERSION, apiGroupDocument, apiGroupList, apiResourceList, apiVersions, subresourceKindOf } from './discovery.js';
import { readObject, send, sendJson, sendObject, type BodyTarget } from './http-util.js';
import { negotiateOutput } from './negotiation.js';
import { openApiV3Document, openApiV3Root } from './openapi.js';
import { parseResourcePath, splitApiPath } from './router.js';
import { bindPodTo, evictPod, requestToken } from './subresources.js';
import { answerReview } from './access-reviews.js';
import { requestAttributesOf } from './authz/attributes.js';
import { authorizeOrThrow } from './authz/authorizer.js';
import { REVIEW_RESOURCES } from './resources.js';
import { kubeletTargetOf, proxyRequest } from './kubelet-proxy.js';
import { toTable } from './table.js';
import type { ClientIdentity } from './tls.js';
import { serveWatch } from './watch.js';

/** Records a request as verb + resource[/subresource]; `request` when it named a resource (the request log reads it). */
export type CountRequest = (verb: string, resource: string, request?: ResourceRequest) => void;

function notFoundPath(pathname: string): ApiError {
  return new ApiError(404, 'NotFound', `the server could not find the requested resource (${pathname})`);
}

/** Answers the non-resource paths; false when the path is not one of them. */
function serveFixedPath(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/version') sendJson(res, 200, SERVER_VERSION);
  else if (path === '/healthz' || path === '/livez' || path === '/readyz') {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('ok');
  } else if (path === '/api' || path === '/apis') serveRootDiscovery(req, res, path);
  else if (path === '/openapi/v3') sendJson(res, 200, openApiV3Root());
  else if (path.startsWith('/openapi/v3/')) {
    const doc = openApiV3Document(path.slice('/openapi/v3/'.length));
    if (!doc) throw notFoundPath(pathname);
    sendJson(res, 200, doc);
  } else return false;
  return true;
}

/** /api and /apis: aggregated discovery when the client asks for it (kubectl does), else the legacy lists. */
function serveRootDiscovery(req: IncomingMessage, res: ServerResponse, path: '/api' | '/apis'): void {
  if (negotiateOutput(req.headers.accept, { conversions: ['APIGroupDiscoveryList'] }).as === 'APIGroupDiscoveryList') {
    return send(res, 200, AGGREGATED_DISCOVERY_CONTENT_TYPE, JSON.stringify(aggregatedDiscovery(path)));
  }
  sendObject(res, 200, path === '/api' ? apiVersions(req.headers.host ?? '127.0.0.1') : apiGroupList());
}

/** /api/v1, /apis/<group>, /apis/<group>/<version>: discovery documents. */
function serveDiscovery(res: ServerResponse, pathname: string): boolean {
  const parts = pathname.split('/').filter((p) => p.length > 0);
  if (parts[0] === 'apis' && parts.length === 2) {
    const doc = apiGroupDocument(parts[1]);
    if (!doc) throw notFoundPath(pathname);
    sendObject(res, 200, doc);
    return true;
  }
  const gv = splitApiPath(pathname);
  if (!gv || gv.rest.length > 0) return false;
  const doc = apiResourceList(gv.group, gv.version);
  if (!doc) throw notFoundPath(pathname);
  sendObject(res, 200, doc);
  return true;
}

function verbOf(method: string, request: ResourceRequest): string {
  const watch = request.query.get('watch');
  switch (method) {
    case 'GET': return request.name ? 'get' : watch === '1' || watch === 'true' ? 'watch' : 'list';
    case 'POST': return 'create';
    case 'PUT': return 'update';
    case 'PATCH': return 'patch';
    case 'DELETE': return request.name ? 'delete' : 'deletecollection';
    default: return method.toLowerCase();
  }
}

/** The kind a request's body must be, when it may be protobuf; none for a patch. */
function bodyTargetOf(request: ResourceRequest, verb: string): BodyTarget | undefined {
  if (verb === 'patch') return undefined;
  if (verb === 'delete' || verb === 'deletecollection') return { group: '', version: 'v1', kind: 'DeleteOptions', anyVersion: true };
  return request.subresource ? subresourceKindOf(request.def, request.subresource) : request.def;
}

async function serveResource(ctx: ServerContext, request: ResourceRequest, verb: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const sub = request.subresource;
  const label = sub ? `${request.def.plural}/${sub}` : request.def.plural;
  if (sub && !request.def.subresources.includes(sub)) throw notFoundPath(req.url ?? '');
  if (verb === 'watch') return serveWatch(ctx, request, req, res);
  const asTable = negotiateOutput(req.headers.accept, { conversions: sub ? [] : ['Table'] }).as === 'Table';
  if (verb === 'list') {
    const { items, resourceVersion } = listObjects(ctx, request);
    if (asTable) return sendJson(res, 200, toTable(request.key, items, resourceVersion, request.query.get('includeObject')));
    return sendObject(res, 200, listDocument(request, items, resourceVersion));
  }
  if (verb === 'get') {
    const obj = getObject(ctx, request);
    if (asTable) return sendJson(res, 200, toTable(request.key, [obj], obj.metadata.resourceVersion ?? '', request.query.get('includeObject')));
    return sendObject(res, 200, obj);
  }
  const body = await readObject(req, bodyTargetOf(request, verb));
  if (verb === 'create' && REVIEW_RESOURCES.has(request.key)) return sendObject(res, 201, answerReview(ctx, request, body));
  if (verb === 'create' && sub === 'binding') return sendObject(res, 201, bindPodTo(ctx, request, body));
  if (verb === 'create' && sub === 'eviction') return sendObject(res, 201, evictPod(ctx, request, body));
  if (verb === 'create' && sub === 'token') return sendObject(res, 201, requestToken(ctx, request, body));
  if (verb === 'create' && !sub && !request.name) return sendObject(res, 201, createObject(ctx, request, body));
  if (verb === 'update' && request.name) return sendObject(res, 200, updateObject(ctx, request, body));
  if (verb === 'patch' && request.name) return sendObject(res, 200, patchObject(ctx, request, req.headers['content-type'] ?? '', body));
  if (verb === 'delete' && !sub) return sendObject(res, 200, deleteObject(ctx, request, body));
  throw methodNotAllowed(verb, label);
}

const ANONYMOUS: ClientIdentity = { user: 'system:anonymous', groups: ['system:unauthenticated'] };

/**
 * Serves one request; `count` records it as verb + resource[/subresource]. The
 * authorizer decides first, from the URL alone; every 403 and 422 is recorded.
 */
export async function dispatch(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, count: CountRequest, user?: ClientIdentity): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://apiserver.invalid');
  const attributes = requestAttributesOf(req.method ?? 'GET', url, user ?? ANONYMOUS);
  try {
    authorizeOrThrow(ctx.authorizer, attributes);
    await route(ctx, req, res, count, url, user);
  } catch (err) {
    if (err instanceof ApiError) ctx.refusals.record(attributes, err);
    throw err;
  }
}

async function route(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, count: CountRequest, url: URL, user?: ClientIdentity): Promise<void> {
  if (req.method === 'GET' && serveFixedPath(req, res, url.pathname)) return;
  if (req.method === 'GET' && serveDiscovery(res, url.pathname)) return;
  const kubeletTarget = kubeletTargetOf(ctx, url);
  if (kubeletTarget) {
    count(req.method === 'GET' ? 'get' : 'create', kubeletTarget.resource);
    return proxyRequest(req, res, kubeletTarget, await ctx.kubeletClient());
  }
  const gv = splitApiPath(url.pathname);
  const request = gv && parseResourcePath(gv, url.searchParams);
  if (!request) throw notFoundPath(url.pathname);
  request.user = user;
  const verb = verbOf(req.method ?? 'GET', request);
  count(verb, request.subresource ? `${request.key}/${request.subresource}` : request.key, request);
  await serveResource(ctx, request, verb, req, res);
}
