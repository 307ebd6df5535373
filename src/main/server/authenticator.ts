// Who is asking the kubelet API, as upstream's BuildAuthn chains it: a client
// certificate that chains to authentication.x509.clientCAFile (user = CN, groups =
// O), else a bearer token the API server vouches for through TokenReview
// (authentication.webhook, answers cached for cacheTTL), else, when
// authentication.anonymous is enabled, system:anonymous; otherwise nobody (401).
// Authenticated users also get system:authenticated, as upstream's group adder.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { RequestUser } from './kubelet-routes.js';
import { TtlCache } from './ttl-cache.js';

export const ANONYMOUS_USER: RequestUser = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
export const AUTHENTICATED_GROUP = 'system:authenticated';

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
  /** Client certificates are checked only when a client CA is configured (the TLS server verifies the chain). */
  x509Enabled: boolean;
  /** Set when authentication.webhook.enabled. */
  tokenReviewer?: TokenReviewer;
  /** authentication.webhook.cacheTTL. */
  tokenCacheTtlMs: number;
  anonymousEnabled: boolean;
  now?: () => number;
}

export class RequestAuthenticator {
  private readonly tokenAnswers: TtlCache<TokenReviewResult>;

  constructor(private readonly settings: AuthenticatorSettings) {
    this.tokenAnswers = new TtlCache(settings.now);
  }

  /** The user behind the request, or undefined (the caller answers 401). A webhook failure rejects. */
  async authenticate(req: IncomingMessage): Promise<RequestUser | undefined> {
    const fromCertificate = this.settings.x509Enabled ? certificateUser(req.socket as TLSSocket) : undefined;
    if (fromCertificate) return withAuthenticatedGroup(fromCertificate);
    const token = bearerToken(req.headers.authorization);
    if (token !== undefined && this.settings.tokenReviewer) {
      const answer = await this.reviewToken(token);
      if (answer.authenticated && answer.user) return withAuthenticatedGroup(answer.user);
    }
    return this.settings.anonymousEnabled ? ANONYMOUS_USER : undefined;
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
}

/** The verified client certificate's subject as a user: CN the name, O the groups. */
function certificateUser(socket: TLSSocket): RequestUser | undefined {
  if (typeof socket.getPeerCertificate !== 'function' || !socket.authorized) return undefined;
  const subject = socket.getPeerCertificate().subject as unknown as Record<string, string | string[] | undefined> | undefined;
  const name = [subject?.CN ?? []].flat()[0];
  if (!name) return undefined;
  return { name, groups: [subject?.O ?? []].flat() };
}

/** `Authorization: Bearer <token>`, as upstream's bearertoken authenticator reads it; an empty token is none. */
function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

function withAuthenticatedGroup(user: RequestUser): RequestUser {
  return user.groups.includes(AUTHENTICATED_GROUP) ? user : { name: user.name, groups: [...user.groups, AUTHENTICATED_GROUP] };
}
