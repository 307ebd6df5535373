// Authentication as kube-apiserver's x509 and bearer-token authenticators do it:
// a client certificate signed by our CA (CN = user, O = groups), a static token,
// a bootstrap token (bootstrap-token.ts) or a service-account JWT this server
// issued through TokenRequest. What an authenticated user may do is the
// authorizer chain's to decide (authz/authorizer.ts).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { ClientIdentity } from './tls.js';

const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc';

function base64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

export interface ServiceAccountTokenRequest {
  namespace: string;
  serviceAccountName: string;
  serviceAccountUid: string;
  audiences: string[];
  expirationSeconds: number;
  boundPod?: { name: string; uid: string };
}

export class Authenticator {
  private readonly tokens = new Map<string, ClientIdentity>();
  /** Looks a bearer token up as a bootstrap token (the server sets it: it needs the store). */
  bootstrapTokens?: (token: string) => ClientIdentity | undefined;
  /** Signs service-account tokens; a state directory keeps it so that issued tokens outlive a restart. */
  readonly signingKey: Buffer;

  constructor(signingKey?: Buffer) {
    this.signingKey = signingKey ?? randomBytes(32);
  }

  /** Accept `Authorization: Bearer <token>` as this identity. */
  addToken(token: string, identity: ClientIdentity): void {
    this.tokens.set(token, identity);
  }

  /** A signed JWT with the claims of upstream's bound service-account tokens. */
  issueServiceAccountToken(request: ServiceAccountTokenRequest, now = new Date()): { token: string; expiresAt: Date } {
    const issuedAt = Math.floor(now.getTime() / 1000);
    const expiresAt = new Date((issuedAt + request.expirationSeconds) * 1000);
    const claims = {
      aud: request.audiences,
      exp: issuedAt + request.expirationSeconds,
      iat: issuedAt,
      nbf: issuedAt,
      iss: SERVICE_ACCOUNT_ISSUER,
      sub: `system:serviceaccount:${request.namespace}:${request.serviceAccountName}`,
      'kubernetes.io': {
        namespace: request.namespace,
        serviceaccount: { name: request.serviceAccountName, uid: request.serviceAccountUid },
        ...(request.boundPod ? { pod: request.boundPod } : {}),
      },
    };
    const signingInput = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
    const signature = createHmac('sha256', this.signingKey).update(signingInput).digest('base64url');
    return { token: `${signingInput}.${signature}`, expiresAt };
  }

  private verifyServiceAccountToken(token: string): ClientIdentity | undefined {
    const [header, payload, signature] = token.split('.');
    if (!header || !payload || !signature) return undefined;
    const expected = createHmac('sha256', this.signingKey).update(`${header}.${payload}`).digest();
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { sub: string; exp: number; 'kubernetes.io': { namespace: string } };
    if (claims.exp * 1000 < Date.now()) return undefined;
    const namespace = claims['kubernetes.io'].namespace;
    return { user: claims.sub, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'] };
  }

  /** The identity behind a request, or undefined (the caller answers 401). */
  authenticate(req: IncomingMessage): ClientIdentity | undefined {
    const socket = req.socket as TLSSocket;
    if (socket.authorized) {
      const subject = socket.getPeerCertificate().subject as unknown as Record<string, string | string[] | undefined>;
      const user = [subject.CN].flat()[0];
      if (user) return { user, groups: [subject.O ?? []].flat().concat('system:authenticated') };
    }
    const header = req.headers.authorization;
    if (!header?.startsWith('Bearer ')) return undefined;
    return this.identityOfToken(header.slice('Bearer '.length).trim());
  }

  /** Whose token this is (static, bootstrap or service-account), or undefined; what TokenReview answers. */
  identityOfToken(token: string): ClientIdentity | undefined {
    return this.tokens.get(token) ?? this.bootstrapTokens?.(token) ?? this.verifyServiceAccountToken(token);
  }
}
