// The POST-only subresources: pods/binding (what a scheduler sends),
// serviceaccounts/token (TokenRequest, for projected service-account tokens) and
// pods/eviction (policy/v1 Eviction, what kubectl drain sends: a graceful delete,
// no PodDisruptionBudgets here).
import { badRequest, invalid } from './api-error.js';
import type { ResourceRequest, ServerContext } from './context.js';
import { admissionOf, getObject, refOf } from './crud.js';
import { removeObject } from './delete.js';
import { bindPod } from './defaults.js';
import type { KubeObject } from './types.js';

const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;

/** A request body as admission sees it (a Binding, an Eviction, a TokenRequest). */
function asObject(body: unknown): KubeObject {
  const object = body && typeof body === 'object' && !Array.isArray(body) ? (body as KubeObject) : ({} as KubeObject);
  return { ...object, metadata: object.metadata && typeof object.metadata === 'object' ? object.metadata : { name: '' } };
}
const MIN_TOKEN_EXPIRATION_SECONDS = 600;

export function bindPodTo(ctx: ServerContext, request: ResourceRequest, body: unknown): object {
  const target = (body as { target?: { name?: string } } | undefined)?.target?.name;
  if (!target) throw badRequest('a Binding needs target.name');
  const pod = getObject(ctx, request);
  ctx.admit(admissionOf(request, 'CREATE', asObject(body)));
  if ((pod.spec as { nodeName?: string } | undefined)?.nodeName) {
    throw invalid('Binding', pod.metadata.name, 'spec.nodeName', `pod ${pod.metadata.name} is already assigned to a node`);
  }
  bindPod(pod, target);
  ctx.store.update(refOf(request), pod);
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}

/** As the eviction REST: the pod is deleted with the Eviction's deleteOptions; 201 Success. */
export function evictPod(ctx: ServerContext, request: ResourceRequest, body: unknown): object {
  const eviction = body as { kind?: string; deleteOptions?: unknown } | undefined;
  if (eviction?.kind !== undefined && eviction.kind !== 'Eviction') throw badRequest(`expected an Eviction, got ${eviction.kind}`);
  ctx.admit(admissionOf(request, 'CREATE', asObject(body)));
  removeObject(ctx, { ...request, subresource: undefined }, eviction?.deleteOptions);
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}

interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds?: number;
  boundObjectRef?: { kind?: string; name?: string; uid?: string };
}

export function requestToken(ctx: ServerContext, request: ResourceRequest, body: unknown): object {
  const serviceAccount: KubeObject = getObject(ctx, request);
  ctx.admit(admissionOf(request, 'CREATE', asObject(body)));
  const spec: TokenRequestSpec = (body as { spec?: TokenRequestSpec } | undefined)?.spec ?? {};
  const expirationSeconds = spec.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
  if (expirationSeconds < MIN_TOKEN_EXPIRATION_SECONDS) {
    throw invalid('TokenRequest', serviceAccount.metadata.name, 'spec.expirationSeconds', 'may not specify a duration less than 10 minutes');
  }
  const bound = spec.boundObjectRef;
  const { token, expiresAt } = ctx.authenticator.issueServiceAccountToken({
    namespace: request.namespace ?? 'default',
    serviceAccountName: serviceAccount.metadata.name,
    serviceAccountUid: serviceAccount.metadata.uid ?? '',
    audiences: spec.audiences?.length ? spec.audiences : ['https://kubernetes.default.svc'],
    expirationSeconds,
    boundPod: bound?.kind === 'Pod' && bound.name ? { name: bound.name, uid: bound.uid ?? '' } : undefined,
  });
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name: serviceAccount.metadata.name, namespace: request.namespace, creationTimestamp: null },
    spec: { ...spec, audiences: spec.audiences ?? ['https://kubernetes.default.svc'], expirationSeconds },
    status: { token, expirationTimestamp: expiresAt.toISOString().replace(/\.\d+Z$/, 'Z') },
  };
}
