// The node's link to its registries: a fixed bandwidth shared equally by every
// download in flight (processor sharing), so ten parallel pulls of 50 MB over
// 100 MB/s take about 5 s together rather than 0.5 s each. Each download is also
// capped at its own rate: a real pull is limited by its single download and unpack
// stream, so one pull alone never fills a fast link, and parallel pulls finish
// sooner than the same pulls one after another. Without the cap, serialized and
// parallel pulls would take the same total time and maxParallelImagePulls would
// show nothing.

interface Transfer {
  remainingBytes: number;
  resolve: () => void;
}

export class RegistryLink {
  private readonly transfers = new Set<Transfer>();
  private lastAdvanceMs = performance.now();
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param bytesPerSecond link bandwidth; 0 or Infinity means unlimited.
   * @param perTransferBytesPerSecond the most one transfer gets; 0 or Infinity means no cap.
   * With neither limit every transfer is instant.
   */
  constructor(
    private readonly bytesPerSecond: number,
    private readonly perTransferBytesPerSecond = Infinity,
  ) {}

  /** Resolves once `bytes` have come through the shared link. */
  transfer(bytes: number): Promise<void> {
    if (bytes <= 0 || !Number.isFinite(this.rateWith(1))) return Promise.resolve();
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

  /** Bytes per second each transfer gets while `count` are in flight: its share of the link, at most the cap. */
  rateWith(count: number): number {
    const share = limit(this.bytesPerSecond) / Math.max(count, 1);
    return Math.min(share, limit(this.perTransferBytesPerSecond));
  }

  /** Credits every transfer with what it moved since the last advance. */
  private advance(): void {
    const nowMs = performance.now();
    const elapsedMs = nowMs - this.lastAdvanceMs;
    this.lastAdvanceMs = nowMs;
    if (this.transfers.size === 0 || elapsedMs <= 0) return;
    const movedPerTransfer = (this.rateWith(this.transfers.size) * elapsedMs) / 1000;
    for (const transfer of this.transfers) transfer.remainingBytes -= movedPerTransfer;
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
    const waitMs = (smallest * 1000) / this.rateWith(this.transfers.size);
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

/** A configured rate, with 0 meaning "no limit". */
function limit(bytesPerSecond: number): number {
  return bytesPerSecond > 0 ? bytesPerSecond : Infinity;
}
