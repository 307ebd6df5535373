// pino JSON logs for every thread. Each thread writes straight to fd 1 through
// sonic-boom, so shard logs never pass through the main thread. Verbosity follows
// upstream's -v levels: 0–2 steady-state info, 3–4 debug detail, 5+ trace.
import { pino, type Logger } from 'pino';

export function levelForVerbosity(verbosity: number): string {
  if (verbosity >= 5) return 'trace';
  if (verbosity >= 3) return 'debug';
  return 'info';
}

export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  const destination = pino.destination({ dest: 1, sync: false });
  return pino({ level, base: { pid: process.pid, ...bindings } }, destination);
}
