// What the reader writes for each record: upstream's logWriter (kuberuntime/logs),
// which drops records of other streams or older than `since`, prefixes the
// timestamp when asked, and stops at `limitBytes`, cutting the last record.
import type { CriLogRecord } from '../../shared/logs/cri-log-format.js';
import type { LogReadOptions } from './log-options.js';

export class LogOutput {
  /** Bytes still allowed; Infinity without limitBytes. */
  private remainingBytes: number;

  constructor(private readonly options: LogReadOptions) {
    this.remainingBytes = options.limitBytes >= 0 ? options.limitBytes : Infinity;
  }

  /** True once limitBytes bytes were rendered: the reader stops. */
  get exhausted(): boolean {
    return this.remainingBytes <= 0;
  }

  /** The bytes to send for `record`, or undefined when it is filtered out or the limit was reached. */
  render(record: CriLogRecord): Buffer | undefined {
    if (this.exhausted || !this.options.streams.has(record.stream) || record.timeNs < this.options.sinceNs) return undefined;
    const bytes = this.options.timestamps ? Buffer.concat([Buffer.from(`${record.timestamp} `), record.content]) : record.content;
    if (bytes.length <= this.remainingBytes) {
      this.remainingBytes -= bytes.length;
      return bytes;
    }
    const cut = bytes.subarray(0, this.remainingBytes);
    this.remainingBytes = 0;
    return cut;
  }
}
