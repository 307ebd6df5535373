// A client-node ListWatch that keeps going. ListWatch resumes from the last
// resourceVersion and relists on 410 Gone, but on any other error it emits `error`
// and stops; this restarts it with the shared jittered backoff (1 s doubling to 30 s)
// while the API server is away, so that many nodes losing one API server do not all
// come back in step; logging once per failure streak. Its cached objects stay in place
// meanwhile, so readers keep the last known state.
import { ListWatch, type KubernetesListObject, type KubernetesObject, type Watch } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Backoff } from '../../../shared/backoff.js';
import { ErrorCodes } from '../../../shared/errors.js';

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
  /** Restart delays; the shared defaults (1 s doubling to 30 s, 20 % jitter) unless a test pins them. */
  backoff?: Backoff;
}

export class SupervisedListWatch<T extends KubernetesObject> {
  readonly listWatch: ListWatch<T>;
  private stopped = false;
  /** ListWatch reports a failed list or watch through its error event, not by rejecting start(). */
  private attemptFailed = false;
  /** Backing off means a failure streak is under way (and was logged). */
  private readonly restartBackoff: Backoff;
  private restartTimer?: NodeJS.Timeout;

  constructor(private readonly options: SupervisedListWatchOptions<T>) {
    this.restartBackoff = options.backoff ?? new Backoff();
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
    if (this.restartBackoff.backingOff) {
      this.options.logger.info({ ...this.options.logContext, resourceVersion: this.listWatch.latestResourceVersion() }, 'List/watch resumed');
    }
    this.restartBackoff.reset();
    this.options.onStarted?.();
  }

  private onError(err: unknown): void {
    this.attemptFailed = true;
    if (this.stopped) return;
    const streakStarts = !this.restartBackoff.backingOff;
    const delayMs = this.restartBackoff.next();
    if (streakStarts) {
      this.options.logger.warn(
        { ...this.options.logContext, code: ErrorCodes.API_UNAVAILABLE, err: (err as Error)?.message ?? String(err), retryInMs: delayMs },
        this.options.failureMessage,
      );
    }
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => void this.run(), delayMs);
  }
}
