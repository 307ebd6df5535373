// certificates.k8s.io/v1 CertificateSigningRequests with kube-apiserver's
// strategies: on create the requester's identity is recorded in spec.username,
// uid and groups (whatever the body said) and status is cleared; the spec never
// changes afterwards; the `approval` subresource changes only the Approved and
// Denied conditions, the `status` subresource everything else (the certificate,
// once set, stays).
import { invalid } from './api-error.js';
import type { ResourceRef } from './store.js';
import type { ClientIdentity } from './tls.js';
import type { KubeObject } from './types.js';

export const CSR_RESOURCE: ResourceRef = { key: 'certificatesigningrequests.certificates.k8s.io', group: 'certificates.k8s.io', plural: 'certificatesigningrequests' };
export const KUBELET_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';

const APPROVAL_CONDITION_TYPES = new Set(['Approved', 'Denied']);
const MIN_EXPIRATION_SECONDS = 600;
const KNOWN_USAGES = new Set([
  'signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment',
  'cert sign', 'crl sign', 'encipher only', 'decipher only', 'any', 'server auth', 'client auth', 'code signing',
  'email protection', 's/mime', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'timestamping', 'ocsp signing',
  'microsoft sgc', 'netscape sgc',
]);

export interface CsrSpec {
  request?: string;
  signerName?: string;
  usages?: string[];
  expirationSeconds?: number;
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface CsrCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface CsrStatus {
  conditions?: CsrCondition[];
  certificate?: string;
}

export function csrSpec(csr: KubeObject): CsrSpec {
  return (csr.spec as CsrSpec | undefined) ?? {};
}

export function csrStatus(csr: KubeObject): CsrStatus {
  return (csr.status as CsrStatus | undefined) ?? {};
}

export function hasCondition(csr: KubeObject, type: string): boolean {
  return (csrStatus(csr).conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/** The PEM inside spec.request (base64 on the wire), or undefined when it is none. */
export function requestPemOf(csr: KubeObject): string | undefined {
  const encoded = csrSpec(csr).request;
  if (!encoded) return undefined;
  const pem = Buffer.from(encoded, 'base64').toString();
  return /-----BEGIN CERTIFICATE REQUEST-----[\s\S]+-----END CERTIFICATE REQUEST-----/.test(pem) ? pem : undefined;
}

/** Validation and the requester's identity on create, as upstream's csrStrategy.PrepareForCreate + Validate. */
export function prepareCsrCreate(csr: KubeObject, requester: ClientIdentity | undefined): void {
  const name = csr.metadata.name;
  const spec = csrSpec(csr);
  if (!requestPemOf(csr)) throw invalid('CertificateSigningRequest', name, 'spec.request', 'Invalid value: "<omitted>": PEM block type must be CERTIFICATE REQUEST');
  if (!spec.signerName) throw invalid('CertificateSigningRequest', name, 'spec.signerName', 'Required value');
  if (!spec.usages?.length) throw invalid('CertificateSigningRequest', name, 'spec.usages', 'Required value');
  const unknown = spec.usages.find((u) => !KNOWN_USAGES.has(u));
  if (unknown) throw invalid('CertificateSigningRequest', name, 'spec.usages', `Unsupported value: "${unknown}"`);
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds < MIN_EXPIRATION_SECONDS) {
    throw invalid('CertificateSigningRequest', name, 'spec.expirationSeconds', `Invalid value: ${spec.expirationSeconds}: may not specify a duration less than 600 seconds (10 minutes)`);
  }
  const groups = requester?.groups ?? [];
  const { extra: _ignoredExtra, ...requested } = spec;
  csr.spec = { ...requested, username: requester?.user ?? '', uid: '', groups };
  csr.status = {};
}

function checkConditions(csr: KubeObject): void {
  if (hasCondition(csr, 'Approved') && hasCondition(csr, 'Denied')) {
    throw invalid('CertificateSigningRequest', csr.metadata.name, 'status.conditions', 'Approved and Denied conditions are mutually exclusive');
  }
}

/**
 * The object an update of `subresource` stores: `approval` takes only the
 * incoming Approved/Denied conditions, `status` everything but those; a plain
 * update keeps spec and status.
 */
export function csrUpdate(subresource: string | undefined, current: KubeObject, incoming: KubeObject): KubeObject {
  const before = csrStatus(current);
  const after = csrStatus(incoming);
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const stamp = (c: CsrCondition): CsrCondition => ({ ...c, lastUpdateTime: c.lastUpdateTime ?? now, lastTransitionTime: c.lastTransitionTime ?? now });
  let next: KubeObject;
  if (subresource === 'approval') {
    const kept = (before.conditions ?? []).filter((c) => !APPROVAL_CONDITION_TYPES.has(c.type));
    const approval = (after.conditions ?? []).filter((c) => APPROVAL_CONDITION_TYPES.has(c.type)).map(stamp);
    const removed = (before.conditions ?? []).find((c) => APPROVAL_CONDITION_TYPES.has(c.type) && !approval.some((a) => a.type === c.type));
    if (removed) throw invalid('CertificateSigningRequest', current.metadata.name, 'status.conditions', `updates may not remove a condition of type "${removed.type}"`);
    next = { ...current, status: { ...before, conditions: [...kept, ...approval] } };
  } else if (subresource === 'status') {
    if (before.certificate && after.certificate !== before.certificate) {
      throw invalid('CertificateSigningRequest', current.metadata.name, 'status.certificate', 'updates may not modify existing certificate content');
    }
    const approval = (before.conditions ?? []).filter((c) => APPROVAL_CONDITION_TYPES.has(c.type));
    const others = (after.conditions ?? []).filter((c) => !APPROVAL_CONDITION_TYPES.has(c.type)).map(stamp);
    next = { ...current, status: { ...after, conditions: [...approval, ...others] } };
  } else {
    next = { ...incoming, spec: current.spec, status: current.status };
    next.metadata = { ...incoming.metadata, deletionTimestamp: current.metadata.deletionTimestamp };
    if (next.metadata.deletionTimestamp === undefined) delete next.metadata.deletionTimestamp;
  }
  checkConditions(next);
  return next;
}
