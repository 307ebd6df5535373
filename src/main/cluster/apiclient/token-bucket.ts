// A token bucket, as client-go's rate limiter behind kubeAPIQPS / kubeAPIBurst:
// `burst` calls at once, then `qps` per second.

export class TokenBucket {
  private tokens: number;
  private lastRefillMs: number;
  private readonly waiters: Array<() => void> = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
  ) {
    this.tokens = Math.max(burst, 1);
    this.lastRefillMs = Date.now();
  }

  /** Resolves when a call may go out. A qps of 0 or less means no limit. */
  take(): Promise<void> {
    if (this.qps <= 0) return Promise.resolve();
    this.refill();
    if (this.tokens >= 1 && this.waiters.length === 0) {
      this.tokens -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.schedule();
    });
  }

  private refill(): void {
    const nowMs = Date.now();
    this.tokens = Math.min(Math.max(this.burst, 1), this.tokens + ((nowMs - this.lastRefillMs) / 1000) * this.qps);
    this.lastRefillMs = nowMs;
  }

  private schedule(): void {
    if (this.timer) return;
    const waitMs = Math.max(((1 - this.tokens) / this.qps) * 1000, 1);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.refill();
      while (this.tokens >= 1 && this.waiters.length > 0) {
        this.tokens -= 1;
        this.waiters.shift()!();
      }
      if (this.waiters.length > 0) this.schedule();
    }, waitMs);
  }
}
