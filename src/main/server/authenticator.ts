// Who is asking the kubelet API, as upstream's DelegatingAuthenticatorConfig
// builds the chain for the kubelet: a union of the client certificate
// (authentication.x509.clientCAFile) and the bearer token (TokenReview, when
// authentication.webhook is enabled, answers cached for cacheTTL), the first that
// names a user wins. A credential that was presented and failed (a certificate the
// client CA does not vouch for, a token the API server rejects, a webhook that
// cannot be reached) makes the request 401 when nothing else named a user: only a
// request that presented no credential at all may become system:anonymous, and
// only when authentication.anonymous is enabled (upstream's FailOnError union).
// Authenticated users also get system:authenticated, as upstream's group adder.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { ClientCaSource } from './client-ca.js';
import { peerCertificateOutcome, type CredentialOutcome } from './peer-certificate.js';
import type { RequestUser } from './kubelet-routes.js';
import { TtlCache } from './ttl-cache.js';

export const ANONYMOUS_USER: RequestUser = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
export const AUTHENTICATED_GROUP = 'system:authenticated';
const UNAUTHENTICATED_GROUP = 'system:unauthenticated';

/** The TokenReview answer the authenticator needs. */
export interface TokenReviewResult {
  authenticated: boolean;
  user?: RequestUser;
}

/** Asks the API server about a bearer token (authentication.k8s.io/v1 TokenReview). */
export interface TokenReviewer {
  review(token: string): Promise<TokenReviewResult>;
}

export interface AuthenticatorSettings {
  /** authentication.x509.clientCAFile's bundle, as it is now; unset turns client certificates off. */
  clientCa?: ClientCaSource;
  /** Set when authentication.webhook.enabled. */
  tokenReviewer?: TokenReviewer;
  /** authentication.webhook.cacheTTL. */
  tokenCacheTtlMs: number;
  anonymousEnabled: boolean;
  now?: () => number;
}

export type { CredentialOutcome } from './peer-certificate.js';

/** The chain's verdict: a user, or a 401 with every failure seen (empty when nothing was presented). */
export type Authentication = { user: RequestUser } | { user?: undefined; failures: Array<{ failed: string; webhookError?: boolean }>; certificateFailed: boolean };

export class RequestAuthenticator {
  private readonly tokenAnswers: TtlCache<TokenReviewResult>;

  constructor(private readonly settings: AuthenticatorSettings) {
    this.tokenAnswers = new TtlCache(settings.now);
  }

  /** The user behind the request, or why there is none (the caller answers 401). */
  async authenticate(req: IncomingMessage): Promise<Authentication> {
    const failures: Array<{ failed: string; webhookError?: boolean }> = [];
    const fromCertificate = this.settings.clientCa
      ? peerCertificateOutcome(req.socket as TLSSocket, this.settings.clientCa.current(), this.now())
      : { none: true as const };
    if ('user' in fromCertificate) return { user: withAuthenticatedGroup(fromCertificate.user) };
    if ('failed' in fromCertificate) failures.push(fromCertificate);
    const fromToken = await this.tokenOutcome(req);
    if ('user' in fromToken) {
      // As upstream's bearer token authenticator: the handlers never see a token that worked.
      delete req.headers.authorization;
      return { user: withAuthenticatedGroup(fromToken.user) };
    }
    if ('failed' in fromToken) failures.push(fromToken);
    if (failures.length === 0 && this.settings.anonymousEnabled) return { user: ANONYMOUS_USER };
    return { failures, certificateFailed: 'failed' in fromCertificate };
  }

  /** The bearer token's user through TokenReview; without the webhook every token is ignored, as upstream. */
  private async tokenOutcome(req: IncomingMessage): Promise<CredentialOutcome> {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined || !this.settings.tokenReviewer) return { none: true };
    let answer: TokenReviewResult;
    try {
      answer = await this.reviewToken(token);
    } catch (err) {
      return { failed: `token review failed: ${(err as Error).message}`, webhookError: true };
    }
    if (answer.authenticated && answer.user) return { user: answer.user };
    return { failed: 'invalid bearer token' };
  }

  /** Answers come from the cache for cacheTTL, keyed by the token's hash (as upstream's token cache), never the token. */
  private async reviewToken(token: string): Promise<TokenReviewResult> {
    const key = createHash('sha256').update(token).digest('base64');
    const cached = this.tokenAnswers.get(key);
    if (cached) return cached;
    const answer = await this.settings.tokenReviewer!.review(token);
    this.tokenAnswers.set(key, answer, this.settings.tokenCacheTtlMs);
    return answer;
  }

  private now(): number {
    return (this.settings.now ?? Date.now)();
  }
}

/**
 * `Authorization: Bearer <token>`, read as upstream's bearertoken authenticator
 * reads it: the header trimmed and split on single spaces, the scheme any case, the
 * second part the token; an empty token is no token.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const parts = (header ?? '').trim().split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer' || parts[1] === '') return undefined;
  return parts[1];
}

/** Upstream's AuthenticatedGroupAdder: not for system:anonymous, nor for a user already in either all-users group. */
function withAuthenticatedGroup(user: RequestUser): RequestUser {
  if (user.name === ANONYMOUS_USER.name) return user;
  if (user.groups.includes(AUTHENTICATED_GROUP) || user.groups.includes(UNAUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}
