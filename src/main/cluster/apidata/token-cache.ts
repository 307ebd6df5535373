// Service account tokens for projected serviceAccountToken sources, as upstream's
// token manager (pkg/kubelet/token/token_manager.go): one TokenRequest per pod,
// service account, audience and lifetime, bound to the pod, cached and requested
// again once 80% of its lifetime has passed (or 24 h, whichever comes first). A
// failed refresh keeps the cached token while it is still valid.
import type { AuthenticationV1TokenRequest } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ErrorCodes } from '../../../shared/errors.js';
import { serviceAccountTokenKey, type ServiceAccountTokenData } from '../../../shared/shard-protocol.js';
import type { KubeClients } from '../apiclient/kube-client.js';
import { httpStatusOf } from '../apiclient/api-errors.js';
import type { TokenReference } from './referenced-objects.js';

/** Upstream refreshes a token once it is within 20% of its TTL of expiring. */
export const TOKEN_REFRESH_AT_FRACTION = 0.8;
/** Upstream's maxTTL: no token is kept longer than this, whatever its expiry. */
export const MAX_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;
/** setTimeout's largest delay. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export interface TokenPodRef {
  namespace: string;
  name: string;
  uid: string;
}

interface CachedToken {
  data: ServiceAccountTokenData;
  expiresAtMs: number;
  refreshAtMs: number;
  refreshTimer?: NodeJS.Timeout;
}

export interface ServiceAccountTokenCacheOptions {
  clients: KubeClients;
  logger: Logger;
  /** A pod's token is due for refresh: resync the pod so it asks again. */
  onRefreshDue: (podUid: string) => void;
  now?: () => number;
}

function cacheKeyOf(ref: TokenReference): string {
  return `${ref.serviceAccountName}|${serviceAccountTokenKey(ref.audience, ref.expirationSeconds)}`;
}

export class ServiceAccountTokenCache {
  private readonly tokensByPod = new Map<string, Map<string, CachedToken>>();
  private readonly inFlight = new Map<string, Promise<ServiceAccountTokenData | null>>();
  private readonly now: () => number;

  constructor(private readonly options: ServiceAccountTokenCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The pod's token for this reference: the cached one unless due for refresh; null if none can be had. */
  get(pod: TokenPodRef, ref: TokenReference): Promise<ServiceAccountTokenData | null> {
    const key = cacheKeyOf(ref);
    let tokens = this.tokensByPod.get(pod.uid);
    if (!tokens) this.tokensByPod.set(pod.uid, (tokens = new Map()));
    const cached = tokens.get(key);
    if (cached && this.now() < cached.refreshAtMs) return Promise.resolve(cached.data);
    const flightKey = `${pod.uid}|${key}`;
    let pending = this.inFlight.get(flightKey);
    if (!pending) {
      pending = this.request(pod, ref, key, tokens).finally(() => this.inFlight.delete(flightKey));
      this.inFlight.set(flightKey, pending);
    }
    return pending;
  }

  /** Drops the pod's tokens for anything but these references. */
  retain(podUid: string, refs: TokenReference[]): void {
    const tokens = this.tokensByPod.get(podUid);
    if (!tokens) return;
    const keep = new Set(refs.map(cacheKeyOf));
    for (const [key, cached] of tokens) {
      if (keep.has(key)) continue;
      clearTimeout(cached.refreshTimer);
      tokens.delete(key);
    }
  }

  forgetPod(podUid: string): void {
    this.retain(podUid, []);
    this.tokensByPod.delete(podUid);
  }

  stop(): void {
    for (const podUid of [...this.tokensByPod.keys()]) this.forgetPod(podUid);
  }

  /** tokens: the pod's cache when the request started; a pod forgotten meanwhile gets nothing stored. */
  private async request(pod: TokenPodRef, ref: TokenReference, key: string, tokens: Map<string, CachedToken>): Promise<ServiceAccountTokenData | null> {
    const { clients, logger } = this.options;
    try {
      await clients.limiter.take();
      const response: AuthenticationV1TokenRequest = await clients.core.createNamespacedServiceAccountToken({
        name: ref.serviceAccountName,
        namespace: pod.namespace,
        body: {
          spec: {
            audiences: ref.audience ? [ref.audience] : [],
            expirationSeconds: ref.expirationSeconds,
            boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: pod.name, uid: pod.uid },
          },
        },
      });
      return this.store(pod.uid, tokens, key, response, ref.expirationSeconds);
    } catch (err) {
      const cached = tokens.get(key);
      const stillValid = cached !== undefined && this.now() < cached.expiresAtMs;
      logger.warn(
        {
          code: ErrorCodes.API_UNAVAILABLE,
          pod: `${pod.namespace}/${pod.name}`,
          serviceAccount: ref.serviceAccountName,
          status: httpStatusOf(err),
          err: (err as Error)?.message ?? String(err),
          keptCachedToken: stillValid,
        },
        'TokenRequest failed',
      );
      return stillValid ? cached.data : null;
    }
  }

  private store(
    podUid: string,
    tokens: Map<string, CachedToken>,
    key: string,
    response: AuthenticationV1TokenRequest,
    requestedSeconds: number,
  ): ServiceAccountTokenData {
    const status = response.status;
    if (!status?.token || !status.expirationTimestamp) throw new Error('TokenRequest answered without status.token and status.expirationTimestamp');
    const expirationTimestamp = new Date(status.expirationTimestamp as unknown as string | Date);
    // RFC 3339 without fractions, as the API server writes it.
    const data: ServiceAccountTokenData = { token: status.token, expirationTimestamp: expirationTimestamp.toISOString().replace(/\.\d+Z$/, 'Z') };
    if (this.tokensByPod.get(podUid) !== tokens) return data;
    const expiresAtMs = expirationTimestamp.getTime();
    const ttlMs = (response.spec?.expirationSeconds ?? requestedSeconds) * 1000;
    const issuedAtMs = expiresAtMs - ttlMs;
    const refreshAtMs = Math.min(issuedAtMs + ttlMs * TOKEN_REFRESH_AT_FRACTION, issuedAtMs + MAX_TOKEN_TTL_MS);
    clearTimeout(tokens.get(key)?.refreshTimer);
    const refreshTimer = setTimeout(() => this.options.onRefreshDue(podUid), Math.min(Math.max(refreshAtMs - this.now(), 0), MAX_TIMER_DELAY_MS));
    refreshTimer.unref();
    tokens.set(key, { data, expiresAtMs, refreshAtMs, refreshTimer });
    return data;
  }
}
