// A client-node Watch whose requests are shaped as client-go's reflector makes them:
// `timeoutSeconds` drawn at random from [5, 10) minutes, so the server ends each
// watch and the many watches of a node do not end in step, and
// `allowWatchBookmarks=true`, so a quiet watch still learns the current
// resourceVersion and resumes without a 410 and a relist. client-node's own
// Watch ends a watch after 30 s without data and ListWatch opens it again at once:
// for one watch of pods that is fine, for one watch per referenced Secret and
// ConfigMap (hundreds on a dense node) it is a new request every 30 s for each.
// The client's inactivity timeout here lies above the longest timeoutSeconds, so
// it only ends a watch whose connection died without a word.
import { Watch, type KubeConfig } from '@kubernetes/client-node';

/** client-go's minWatchTimeout: a reflector's watch lasts between one and two of these. */
export const MIN_WATCH_TIMEOUT_SECONDS = 300;
/** How long after the server should have ended a watch the client gives up on it. */
export const WATCH_TIMEOUT_SLACK_MS = 30_000;

export class ReflectorWatch extends Watch {
  constructor(
    config: KubeConfig,
    private readonly random: () => number = Math.random,
  ) {
    super(config);
    // requestTimeoutMs is private in client-node's types; its watch() reads it for the inactivity timer.
    (this as unknown as { requestTimeoutMs: number }).requestTimeoutMs = 2 * MIN_WATCH_TIMEOUT_SECONDS * 1000 + WATCH_TIMEOUT_SLACK_MS;
  }

  override watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: any, watchObj?: any) => void, // eslint-disable-line @typescript-eslint/no-explicit-any
    done: (err: any) => void, // eslint-disable-line @typescript-eslint/no-explicit-any
  ): Promise<AbortController> {
    const timeoutSeconds = Math.floor(MIN_WATCH_TIMEOUT_SECONDS * (1 + this.random()));
    return super.watch(path, { ...queryParams, timeoutSeconds, allowWatchBookmarks: true }, callback, done);
  }
}
