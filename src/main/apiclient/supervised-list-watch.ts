// A client-node ListWatch that keeps going. ListWatch resumes from the last
// resourceVersion and relists on 410 Gone, but on any other error it emits `error`
// and stops; this restarts it with backoff (1 s doubling to 30 s) while the API
// server is away, logging once per failure streak. Its cached objects stay in place
// meanwhile, so readers keep the last known state.
import { ListWatch, type KubernetesListObject, type KubernetesObject, type Watch } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ErrorCodes } from '../../shared/errors.js';

export const INITIAL_RESTART_BACKOFF_MS = 1_000;
export const MAX_RESTART_BACKOFF_MS = 30_000;

export interface SupervisedListWatchOptions<T extends KubernetesObject> {
  path: string;
  watch: Watch;
  listFn: () => Promise<KubernetesListObject<T>>;
  fieldSelector?: string;
  logger: Logger;
  /** Fields that say which list/watch a log line is about. */
  logContext: Record<string, unknown>;
  /** The warning logged when a failure streak starts (what the loss means for pods). */
  failureMessage: string;
  /** Called after every start that listed or resumed successfully. */
  onStarted?: () => void;
}

export class SupervisedListWatch<T extends KubernetesObject> {
  readonly listWatch: ListWatch<T>;
  private stopped = false;
  private failing = false;
  /** ListWatch reports a failed list or watch through its error event, not by rejecting start(). */
  private attemptFailed = false;
  private restartBackoffMs = INITIAL_RESTART_BACKOFF_MS;
  private restartTimer?: NodeJS.Timeout;

  constructor(private readonly options: SupervisedListWatchOptions<T>) {
    this.listWatch = new ListWatch<T>(options.path, options.watch, options.listFn, false, undefined, options.fieldSelector);
    this.listWatch.on('error', (err: unknown) => this.onError(err));
  }

  /** Starts; resolves after the first attempt (listed or not: retries go on in the background). */
  start(): Promise<void> {
    return this.run();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    void this.listWatch.stop();
  }

  private async run(): Promise<void> {
    this.attemptFailed = false;
    try {
      await this.listWatch.start();
    } catch (err) {
      this.onError(err);
      return;
    }
    // ListWatch.stop() misses a watch it opens right after a list that was under way.
    if (this.stopped) void this.listWatch.stop();
    if (this.stopped || this.attemptFailed) return;
    if (this.failing) {
      this.failing = false;
      this.options.logger.info({ ...this.options.logContext, resourceVersion: this.listWatch.latestResourceVersion() }, 'List/watch resumed');
    }
    this.restartBackoffMs = INITIAL_RESTART_BACKOFF_MS;
    this.options.onStarted?.();
  }

  private onError(err: unknown): void {
    this.attemptFailed = true;
    if (this.stopped) return;
    const delayMs = this.restartBackoffMs;
    this.restartBackoffMs = Math.min(this.restartBackoffMs * 2, MAX_RESTART_BACKOFF_MS);
    if (!this.failing) {
      this.failing = true;
      this.options.logger.warn(
        { ...this.options.logContext, code: ErrorCodes.API_UNAVAILABLE, err: (err as Error)?.message ?? String(err), retryInMs: delayMs },
        this.options.failureMessage,
      );
    }
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => void this.run(), delayMs);
  }
}
