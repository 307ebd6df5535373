// The node's link to its registries: a fixed bandwidth shared equally by every
// layer download in flight (processor sharing), so ten parallel pulls of 50 MB
// over 100 MB/s take about 5 s together rather than 0.5 s each. This is what
// makes maxParallelImagePulls and pull de-duplication visible in the bench.

interface Transfer {
  remainingBytes: number;
  resolve: () => void;
}

export class RegistryLink {
  private readonly transfers = new Set<Transfer>();
  private lastAdvanceMs = performance.now();
  private timer: NodeJS.Timeout | undefined;

  /** @param bytesPerSecond link bandwidth; 0 or Infinity means unlimited (every transfer instant). */
  constructor(private readonly bytesPerSecond: number) {}

  /** Resolves once `bytes` have come through the shared link. */
  transfer(bytes: number): Promise<void> {
    if (bytes <= 0 || !Number.isFinite(this.bytesPerSecond) || this.bytesPerSecond <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.advance();
      this.transfers.add({ remainingBytes: bytes, resolve });
      this.reschedule();
    });
  }

  /** Downloads in flight. */
  get activeTransfers(): number {
    return this.transfers.size;
  }

  /** Credits every transfer with its share of the bytes since the last advance. */
  private advance(): void {
    const nowMs = performance.now();
    const elapsedMs = nowMs - this.lastAdvanceMs;
    this.lastAdvanceMs = nowMs;
    if (this.transfers.size === 0 || elapsedMs <= 0) return;
    const sharePerTransfer = (this.bytesPerSecond * elapsedMs) / 1000 / this.transfers.size;
    for (const transfer of this.transfers) transfer.remainingBytes -= sharePerTransfer;
  }

  /** Finishes what is done and sets a timer for the next transfer to finish. */
  private reschedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const transfer of this.transfers) {
      // Sub-byte leftovers are rounding, not data.
      if (transfer.remainingBytes < 1) {
        this.transfers.delete(transfer);
        transfer.resolve();
      }
    }
    if (this.transfers.size === 0) return;
    const smallest = Math.min(...[...this.transfers].map((t) => t.remainingBytes));
    const waitMs = (smallest * this.transfers.size * 1000) / this.bytesPerSecond;
    this.timer = setTimeout(() => {
      this.advance();
      this.reschedule();
    }, Math.max(1, Math.ceil(waitMs)));
  }

  /** Drops the timer; transfers in flight never finish. For server shutdown. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
