// DELETE with DeleteOptions. Pods are deleted gracefully as upstream's
// podStrategy.CheckGracefulDeletion and the generic store's BeforeDelete decide:
// a pod bound to a node is only marked (deletionTimestamp +
// deletionGracePeriodSeconds) until a delete with grace 0 (the kubelet's, or
// `kubectl delete --grace-period=0 --force`); an unbound or terminal pod, or a
// grace period of 0, removes it at once. Other kinds are removed at once.
import { ApiError, badRequest, conflict, successStatus } from './api-error.js';
import type { ResourceRequest, ServerContext } from './context.js';
import { admissionOf, getObject, refOf } from './crud.js';
import { podDeletionGracePeriod } from './defaults.js';
import { setDeletingGeneration } from './pod-generation.js';
import type { KubeObject } from './types.js';

interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export function deleteOptionsOf(request: ResourceRequest, body: unknown): DeleteOptions {
  const options: DeleteOptions = typeof body === 'object' && body !== null ? { ...(body as DeleteOptions) } : {};
  const fromQuery = request.query.get('gracePeriodSeconds');
  if (fromQuery !== null) {
    const parsed = Number(fromQuery);
    if (!Number.isInteger(parsed)) throw badRequest(`invalid gracePeriodSeconds: ${fromQuery}`);
    options.gracePeriodSeconds = parsed;
  }
  return options;
}

function checkPreconditions(request: ResourceRequest, current: KubeObject, options: DeleteOptions): void {
  const { uid, resourceVersion } = options.preconditions ?? {};
  const name = current.metadata.name;
  if (uid && uid !== current.metadata.uid) {
    throw new ApiError(409, 'Conflict', `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid}`, conflict(request.def.group, request.def.plural, name).details);
  }
  if (resourceVersion && resourceVersion !== current.metadata.resourceVersion) {
    throw new ApiError(409, 'Conflict', `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`, conflict(request.def.group, request.def.plural, name).details);
  }
}

/** Marks a pod for graceful deletion; a later, shorter grace period shortens it. Returns the pod as stored. */
function markPodDeleted(ctx: ServerContext, request: ResourceRequest, pod: KubeObject, gracePeriod: number): KubeObject {
  const existing = pod.metadata.deletionGracePeriodSeconds as number | undefined;
  if (existing !== undefined && existing <= gracePeriod) return pod;
  setDeletingGeneration(pod);
  pod.metadata.deletionTimestamp = new Date(Date.now() + gracePeriod * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  pod.metadata.deletionGracePeriodSeconds = gracePeriod;
  return ctx.store.update(refOf(request), pod);
}

/** Deletes as asked and returns the response body: the pod (deleted or marked), or a Success Status. */
export function deleteObject(ctx: ServerContext, request: ResourceRequest, body: unknown): object {
  ctx.admit(admissionOf(request, 'DELETE', undefined, getObject(ctx, request)));
  return removeObject(ctx, request, body);
}

/** The delete itself, without admission: what the eviction subresource calls after admitting the Eviction. */
export function removeObject(ctx: ServerContext, request: ResourceRequest, body: unknown): object {
  const current = getObject(ctx, request);
  const options = deleteOptionsOf(request, body);
  checkPreconditions(request, current, options);
  if (request.key === 'pods') {
    const gracePeriod = podDeletionGracePeriod(current, options.gracePeriodSeconds);
    if (gracePeriod > 0) return markPodDeleted(ctx, request, current, gracePeriod);
    return ctx.store.remove(refOf(request), request.namespace, current.metadata.name);
  }
  const removed = ctx.store.remove(refOf(request), request.namespace, current.metadata.name);
  return successStatus({ name: removed.metadata.name, group: request.def.group || undefined, kind: request.def.plural, uid: removed.metadata.uid });
}
