// Whether the authenticated user may make the request, as upstream's BuildAuthz:
// AlwaysAllow, or Webhook, a SubjectAccessReview (authorization.k8s.io/v1) per
// attribute set, allowed answers cached for cacheAuthorizedTTL and denied ones for
// cacheUnauthorizedTTL. The request passes when any of its attribute sets (see
// request-attributes.ts) is allowed.
import type { RequestUser } from './kubelet-routes.js';
import type { RequestAttributes } from './request-attributes.js';
import { TtlCache } from './ttl-cache.js';

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'Webhook'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

export interface AccessReviewResult {
  allowed: boolean;
  reason?: string;
}

/** Asks the API server whether `user` may do `attributes` (SubjectAccessReview). */
export interface AccessReviewer {
  review(user: RequestUser, attributes: RequestAttributes): Promise<AccessReviewResult>;
}

export interface AuthorizerSettings {
  mode: AuthorizationMode;
  /** Required in Webhook mode. */
  accessReviewer?: AccessReviewer;
  cacheAuthorizedTtlMs: number;
  cacheUnauthorizedTtlMs: number;
  now?: () => number;
}

export interface AuthorizationDecision {
  allowed: boolean;
  /** The attribute sets checked, in order (the 403 body names their subresources). */
  checked: RequestAttributes[];
}

export class RequestAuthorizer {
  private readonly answers: TtlCache<AccessReviewResult>;

  constructor(private readonly settings: AuthorizerSettings) {
    this.answers = new TtlCache(settings.now);
  }

  /** Allowed when any attribute set is; a webhook failure rejects (the caller answers 500). */
  async authorize(user: RequestUser, attributeSets: RequestAttributes[]): Promise<AuthorizationDecision> {
    if (this.settings.mode === 'AlwaysAllow') return { allowed: true, checked: attributeSets.slice(0, 1) };
    const checked: RequestAttributes[] = [];
    for (const attributes of attributeSets) {
      checked.push(attributes);
      if ((await this.review(user, attributes)).allowed) return { allowed: true, checked };
    }
    return { allowed: false, checked };
  }

  private async review(user: RequestUser, attributes: RequestAttributes): Promise<AccessReviewResult> {
    // As upstream's webhook authorizer, keyed by the whole review: uid and extra are part of who asks.
    const key = JSON.stringify([user.name, user.uid ?? '', [...user.groups].sort(), sortedExtra(user.extra), attributes.verb, attributes.resource, attributes.subresource, attributes.name]);
    const cached = this.answers.get(key);
    if (cached) return cached;
    const answer = await this.settings.accessReviewer!.review(user, attributes);
    this.answers.set(key, answer, answer.allowed ? this.settings.cacheAuthorizedTtlMs : this.settings.cacheUnauthorizedTtlMs);
    return answer;
  }
}

/** The extra attributes in a stable order, for the cache key. */
function sortedExtra(extra: Record<string, string[]> | undefined): Array<[string, string[]]> {
  return Object.entries(extra ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Upstream's 403 body: who, what, and the subresources tried. */
export function forbiddenMessage(user: RequestUser, checked: RequestAttributes[]): string {
  const first = checked[0];
  const subresources = checked.map((attributes) => attributes.subresource).join(' ');
  return `Forbidden (user=${user.name}, verb=${first?.verb ?? ''}, resource=${first?.resource ?? 'nodes'}, subresource(s)=[${subresources}])\n`;
}
