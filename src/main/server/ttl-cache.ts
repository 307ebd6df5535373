// A bounded map whose entries expire, for the webhook answers the kubelet API
// caches as upstream does (token reviews for cacheTTL, access reviews for
// cacheAuthorizedTTL / cacheUnauthorizedTTL). Oldest entries go first when full.

/** Upstream's webhook caches hold a few thousand entries; enough for a node's callers. */
export const DEFAULT_MAX_ENTRIES = 4_096;

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAtMs: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxEntries = DEFAULT_MAX_ENTRIES,
  ) {}

  /** The value stored for `key`, unless it has expired. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAtMs <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps `value` for `ttlMs`; a TTL of 0 or less keeps nothing (upstream: no caching). */
  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expiresAtMs: this.now() + ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}
