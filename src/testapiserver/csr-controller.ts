// What kube-controller-manager does with CSRs, in-process: the csrapproving
// controller (auto-approve, on by default here, switchable) and the csrsigning
// controller (the server's CA signs approved requests of the kubelet's signers).
// Auto-approval follows upstream's recognisers for kubelet client certificates:
// a well-formed node client request from the node it names (selfnodeclient) or
// from anyone else (nodeclient), approved when a SubjectAccessReview says the
// requester may create certificatesigningrequests/<that> (the TLS bootstrapping
// bindings give it to system:bootstrappers and system:nodes). Upstream never auto-approves kubelet-serving
// requests; this test server approves the ones a node makes for itself, so that
// serverTLSBootstrap can be tested without a hand in the loop.
import type { Logger } from 'pino';
import {
  CSR_RESOURCE, csrSpec, csrStatus, hasCondition, KUBE_APISERVER_CLIENT_SIGNER, KUBELET_CLIENT_SIGNER, KUBELET_SERVING_SIGNER,
  requestPemOf, type CsrCondition,
} from './certificates.js';
import { type CsrSubject, inspectCsr, signCsr } from './csr-signer.js';
import type { Store } from './store.js';
import type { KeyPair } from './tls.js';
import type { KubeObject } from './types.js';

/** kube-controller-manager's --cluster-signing-duration default: one year. */
export const DEFAULT_CLUSTER_SIGNING_DURATION_MS = 365 * 24 * 3600_000;

const NODE_USER_PREFIX = 'system:node:';
const NODES_GROUP = 'system:nodes';
const CLIENT_USAGES = new Set(['digital signature', 'key encipherment', 'client auth']);
const SERVING_USAGES = new Set(['digital signature', 'key encipherment', 'server auth']);
const SIGNERS = new Set([KUBELET_CLIENT_SIGNER, KUBELET_SERVING_SIGNER, KUBE_APISERVER_CLIENT_SIGNER]);

/** The SubjectAccessReview the approver asks: may this requester create certificatesigningrequests/<subresource>? */
export type MayCreateCsr = (requester: { user: string; groups: string[] }, subresource: 'nodeclient' | 'selfnodeclient') => boolean;

export interface CsrControllerOptions {
  autoApprove: boolean;
  mayCreate: MayCreateCsr;
  signingDurationMs: number;
  logger?: Logger;
}

function isNodeRequest(subject: CsrSubject, usages: string[], allowed: Set<string>, required: string): boolean {
  return !!subject.commonName?.startsWith(NODE_USER_PREFIX) && subject.organizations.length === 1 && subject.organizations[0] === NODES_GROUP &&
    usages.includes(required) && usages.every((u) => allowed.has(u));
}

/**
 * The approval message this request earns, or undefined when a person must decide
 * (upstream's recognisers, each followed by its SubjectAccessReview for the requester).
 */
export function autoApprovalMessage(csr: KubeObject, subject: CsrSubject, mayCreate: MayCreateCsr): string | undefined {
  const spec = csrSpec(csr);
  const usages = spec.usages ?? [];
  if (spec.signerName === KUBELET_CLIENT_SIGNER && isNodeRequest(subject, usages, CLIENT_USAGES, 'client auth') && !subject.hasSubjectAltNames) {
    const requester = { user: spec.username ?? '', groups: spec.groups ?? [] };
    if (spec.username === subject.commonName && mayCreate(requester, 'selfnodeclient')) return 'Auto approving self kubelet client certificate after SubjectAccessReview.';
    if (mayCreate(requester, 'nodeclient')) return 'Auto approving kubelet client certificate after SubjectAccessReview.';
  }
  if (spec.signerName === KUBELET_SERVING_SIGNER && isNodeRequest(subject, usages, SERVING_USAGES, 'server auth') && spec.username === subject.commonName) {
    return 'Auto approving kubelet serving certificate of the node that asked for it (test API server).';
  }
  return undefined;
}

export class CsrController {
  /** CSRs being processed, and whether a change came in meanwhile (they get another pass). */
  private readonly inFlight = new Map<string, { changedMeanwhile: boolean }>();
  private stopWatch: () => void = () => {};

  constructor(private readonly store: Store, private readonly ca: KeyPair, private readonly options: CsrControllerOptions) {}

  /** Handles the CSRs there are (a state directory may hold some) and every change from now on. */
  start(): void {
    const listed = this.store.list(CSR_RESOURCE);
    for (const csr of listed.items) this.handle(csr.metadata.name);
    this.stopWatch = this.store.watch(CSR_RESOURCE, listed.resourceVersion, (event) => {
      if (event.type !== 'DELETED') this.handle(event.object.metadata.name);
    });
  }

  stop(): void {
    this.stopWatch();
  }

  private handle(name: string): void {
    const running = this.inFlight.get(name);
    if (running) {
      running.changedMeanwhile = true;
      return;
    }
    const state = { changedMeanwhile: false };
    this.inFlight.set(name, state);
    this.process(name)
      .catch((err: unknown) => this.options.logger?.warn({ err, csr: name }, 'test apiserver: CSR controller failed'))
      .finally(() => {
        this.inFlight.delete(name);
        if (state.changedMeanwhile) this.handle(name);
      });
  }

  /** One pass over a CSR: approve it if it qualifies, sign it once approved. */
  private async process(name: string): Promise<void> {
    const csr = this.store.get(CSR_RESOURCE, undefined, name);
    if (!csr || csrStatus(csr).certificate || hasCondition(csr, 'Denied') || hasCondition(csr, 'Failed')) return;
    const pem = requestPemOf(csr);
    if (!pem || !SIGNERS.has(csrSpec(csr).signerName ?? '')) return;
    let subject: CsrSubject;
    try {
      subject = await inspectCsr(pem);
    } catch (err) {
      this.addCondition(name, { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: `invalid certificate request: ${(err as Error).message.split('\n')[0]}` });
      return;
    }
    if (!hasCondition(csr, 'Approved')) {
      const message = this.options.autoApprove ? autoApprovalMessage(csr, subject, this.options.mayCreate) : undefined;
      if (message) this.addCondition(name, { type: 'Approved', status: 'True', reason: 'AutoApproved', message });
      else return;
    }
    const spec = csrSpec(csr);
    const requestedMs = spec.expirationSeconds === undefined ? Infinity : spec.expirationSeconds * 1000;
    const certificate = await signCsr(this.ca, pem, { usages: spec.usages ?? [], lifetimeMs: Math.min(this.options.signingDurationMs, requestedMs) });
    const current = this.store.get(CSR_RESOURCE, undefined, name);
    if (!current || csrStatus(current).certificate) return;
    current.status = { ...csrStatus(current), certificate: Buffer.from(certificate).toString('base64') };
    this.store.update(CSR_RESOURCE, current);
    this.options.logger?.debug({ csr: name, signer: spec.signerName }, 'test apiserver: signed CSR');
  }

  private addCondition(name: string, condition: CsrCondition): void {
    const current = this.store.get(CSR_RESOURCE, undefined, name);
    if (!current) return;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const status = csrStatus(current);
    current.status = { ...status, conditions: [...(status.conditions ?? []), { ...condition, lastUpdateTime: now, lastTransitionTime: now }] };
    this.store.update(CSR_RESOURCE, current);
  }
}
