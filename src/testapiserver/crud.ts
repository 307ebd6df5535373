// get, list, create, update, patch and delete for every resource, including the
// status subresource, with upstream's rules for what each may change.
import { randomBytes } from 'node:crypto';
import { ApiError, badRequest, conflict, invalid, notFound } from './api-error.js';
import type { ResourceRequest, ServerContext } from './context.js';
import { CSR_RESOURCE, csrUpdate, prepareCsrCreate } from './certificates.js';
import type { AdmissionAttributes, Operation } from './admission.js';
import { applyDefaults, bindPod } from './defaults.js';
import { applyPatch } from './patch.js';
import { setCreatedGeneration, setUpdatedGeneration } from './pod-generation.js';
import { apiVersionOf } from './resources.js';
import { seedNamespaceContents } from './seed.js';
import { matchesFilter, parseFieldSelector, parseLabelSelector, type ObjectFilter } from './selectors.js';
import type { ResourceRef } from './store.js';
import type { KubeObject } from './types.js';

const GENERATED_NAME_SUFFIX_LENGTH = 5;
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function refOf(request: ResourceRequest): ResourceRef {
  return { key: request.key, group: request.def.group, plural: request.def.plural };
}

export function filterOf(request: ResourceRequest): ObjectFilter {
  return {
    namespace: request.namespace,
    labels: parseLabelSelector(request.query.get('labelSelector')),
    fields: parseFieldSelector(request.query.get('fieldSelector')),
  };
}

function generatedName(prefix: string): string {
  const bytes = randomBytes(GENERATED_NAME_SUFFIX_LENGTH);
  return prefix + [...bytes].map((b) => NAME_ALPHABET[b % NAME_ALPHABET.length]).join('');
}

/** Checks the body of a create or update against the URL and fills in kind, apiVersion and namespace. */
function normalizeBody(request: ResourceRequest, body: unknown): KubeObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the request body must be a JSON object');
  const obj = body as KubeObject;
  obj.metadata ??= { name: '' };
  obj.kind = request.def.kind;
  obj.apiVersion = apiVersionOf(request.def);
  if (request.def.namespaced) {
    if (obj.metadata.namespace && obj.metadata.namespace !== request.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    obj.metadata.namespace = request.namespace;
  } else delete obj.metadata.namespace;
  return obj;
}

function requireNamespace(ctx: ServerContext, request: ResourceRequest): void {
  if (!request.def.namespaced) return;
  if (!request.namespace) throw badRequest('a namespace is required for this resource');
  if (!ctx.store.get({ key: 'namespaces', group: '', plural: 'namespaces' }, undefined, request.namespace)) {
    throw notFound('', 'namespaces', request.namespace);
  }
}

/** What admission and validation see of a write to this request's resource. */
export function admissionOf(request: ResourceRequest, operation: Operation, object: KubeObject | undefined, oldObject?: KubeObject): AdmissionAttributes {
  return {
    operation,
    user: request.user,
    group: request.def.group,
    resource: request.def.plural,
    subresource: request.subresource ?? '',
    namespace: request.namespace ?? '',
    name: request.name ?? object?.metadata.name ?? '',
    object,
    oldObject,
  };
}

export function getObject(ctx: ServerContext, request: ResourceRequest): KubeObject {
  return ctx.store.mustGet(refOf(request), request.namespace, request.name ?? '');
}

export function listObjects(ctx: ServerContext, request: ResourceRequest): { items: KubeObject[]; resourceVersion: string } {
  const filter = filterOf(request);
  const listed = ctx.store.list(refOf(request), request.namespace);
  return { items: listed.items.filter((o) => matchesFilter(filter, o)), resourceVersion: String(listed.resourceVersion) };
}

export function listDocument(request: ResourceRequest, items: KubeObject[], resourceVersion: string): object {
  return { kind: `${request.def.kind}List`, apiVersion: apiVersionOf(request.def), metadata: { resourceVersion }, items };
}

export function createObject(ctx: ServerContext, request: ResourceRequest, body: unknown): KubeObject {
  const obj = normalizeBody(request, body);
  requireNamespace(ctx, request);
  if (!obj.metadata.name && typeof obj.metadata.generateName === 'string') obj.metadata.name = generatedName(obj.metadata.generateName);
  if (!obj.metadata.name) throw invalid(request.def.kind, '', 'metadata.name', 'Required value: name or generateName is required');
  for (const field of ['resourceVersion', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds']) delete obj.metadata[field];
  applyDefaults(request.key, obj);
  setCreatedGeneration(request.key, obj);
  if (request.key === CSR_RESOURCE.key) prepareCsrCreate(obj, request.user);
  ctx.admit(admissionOf(request, 'CREATE', obj));
  // The scheduler's part, after the pod was admitted as its creator sent it.
  if (request.key === 'pods' && ctx.defaultNodeName && !(obj.spec as { nodeName?: string }).nodeName) bindPod(obj, ctx.defaultNodeName);
  const created = ctx.store.create(refOf(request), obj);
  if (request.key === 'namespaces') seedNamespaceContents(ctx.store, created.metadata.name, ctx.caPem);
  return created;
}

/** The UID precondition a body may carry (the kubelet's status patches do). */
function checkUidPrecondition(request: ResourceRequest, current: KubeObject, incoming: KubeObject): void {
  const uid = incoming.metadata.uid;
  if (uid && uid !== current.metadata.uid) {
    const err = conflict(request.def.group, request.def.plural, current.metadata.name);
    throw new ApiError(409, 'Conflict', `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid}`, err.details);
  }
}

/**
 * Writes `incoming` over `current`: the status subresource changes only status;
 * the main resource of a kind with a status subresource keeps the old status.
 */
function writeUpdate(ctx: ServerContext, request: ResourceRequest, current: KubeObject, incoming: KubeObject): KubeObject {
  checkUidPrecondition(request, current, incoming);
  const expectedRv = incoming.metadata.resourceVersion;
  let next: KubeObject;
  if (request.key === CSR_RESOURCE.key) next = csrUpdate(request.subresource, current, incoming);
  else if (request.subresource === 'status') next = { ...current, status: incoming.status };
  else {
    next = { ...incoming, metadata: { ...incoming.metadata, deletionTimestamp: current.metadata.deletionTimestamp, deletionGracePeriodSeconds: current.metadata.deletionGracePeriodSeconds } };
    if (request.def.subresources.includes('status')) next.status = current.status;
    applyDefaults(request.key, next);
    setUpdatedGeneration(request.key, current, next);
  }
  for (const field of ['deletionTimestamp', 'deletionGracePeriodSeconds']) if (next.metadata[field] === undefined) delete next.metadata[field];
  // A subresource write is admitted with what its sender sent (NodeRestriction compares labels in it).
  ctx.admit(admissionOf(request, 'UPDATE', request.subresource ? incoming : next, current));
  return ctx.store.update(refOf(request), next, expectedRv);
}

export function updateObject(ctx: ServerContext, request: ResourceRequest, body: unknown): KubeObject {
  const incoming = normalizeBody(request, body);
  if (incoming.metadata.name !== request.name) {
    throw badRequest(`the name of the object (${incoming.metadata.name}) does not match the name on the URL (${request.name})`);
  }
  return writeUpdate(ctx, request, getObject(ctx, request), incoming);
}

export function patchObject(ctx: ServerContext, request: ResourceRequest, contentType: string, patch: unknown): KubeObject {
  const current = getObject(ctx, request);
  const patched = applyPatch(contentType, current, patch) as KubeObject;
  if (typeof patched !== 'object' || patched === null || !patched.metadata) throw badRequest('the patch removed the object metadata');
  const incoming = normalizeBody(request, patched);
  if (incoming.metadata.name !== current.metadata.name) throw badRequest('a patch may not change metadata.name');
  // A patch is unconditional unless it names a resourceVersion itself.
  const patchRv = (patch as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
  incoming.metadata.resourceVersion = typeof patchRv === 'string' ? patchRv : undefined;
  if (incoming.metadata.uid !== current.metadata.uid && !(patch as { metadata?: { uid?: string } })?.metadata?.uid) {
    incoming.metadata.uid = current.metadata.uid;
  }
  return writeUpdate(ctx, request, current, incoming);
}
