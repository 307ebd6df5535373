// The HTTP pod source, as upstream's sourceURL (pkg/kubelet/config/http.go):
// staticPodURL is fetched every httpCheckFrequency (with staticPodURLHeader) and
// may serve a Pod or a PodList. An unchanged body sends nothing; a good new body
// sends the full SET from source "http". A failed fetch, an HTTP error or a
// body that does not decode is logged and sends nothing, so the merge keeps the
// last good set, as upstream. An empty body sends an empty SET (it marks the
// source seen, and removes its pods), as upstream.
import type { Logger } from 'pino';
import { getGlobalDispatcher, interceptors, request, type Dispatcher } from 'undici';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { MAX_MANIFEST_BYTES, parseManifest } from '../../shared/manifest/parse-manifest.js';
import { applyStaticPodDefaults } from '../../shared/manifest/static-pod.js';
import { HTTP_SOURCE, type Pod, type PodUpdate } from '../../shared/types.js';

/** Upstream's client timeout for the manifest URL; a timeout just means a retry next period. */
export const URL_REQUEST_TIMEOUT_MS = 10_000;
/** Redirects followed before a poll fails, as Go's http.Client (upstream's fetch) stops after 10. */
export const URL_MAX_REDIRECTS = 10;
/** Failures logged at warn level before the message drops to debug, as upstream's failureLogs. */
export const URL_FAILURE_WARNINGS = 3;

export interface UrlSourceOptions {
  /** KubeletConfiguration.staticPodURL. */
  url: string;
  /** KubeletConfiguration.staticPodURLHeader. */
  headers?: Record<string, string[]>;
  nodeName: string;
  /** httpCheckFrequency. */
  periodMs: number;
  logger: Logger;
  onUpdate: (update: PodUpdate) => void;
  requestTimeoutMs?: number;
}

export class UrlSource {
  private lastBody?: Buffer;
  private failureLogs = 0;
  private timer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private stopped = false;
  /** undici's redirect handling, which drops Authorization and Cookie on a redirect to another origin, as Go's client. */
  private readonly dispatcher: Dispatcher;

  constructor(private readonly options: UrlSourceOptions) {
    this.dispatcher = getGlobalDispatcher().compose(interceptors.redirect({ maxRedirections: URL_MAX_REDIRECTS, throwOnMaxRedirect: true }));
  }

  /** Polls once (so the source can be seen early), then every period. */
  async start(): Promise<void> {
    this.options.logger.info({ url: this.options.url }, 'Watching static pod URL');
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.options.periodMs);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** One poll now; a poll already in flight is joined rather than doubled. */
  poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  private async pollOnce(): Promise<void> {
    try {
      await this.extractFromURL();
      if (this.failureLogs > 0) this.options.logger.info({ url: this.options.url }, 'Successfully read pods from URL');
      this.failureLogs = 0;
    } catch (err) {
      this.logFailure(err as Error);
    }
  }

  private async extractFromURL(): Promise<void> {
    const { url, nodeName } = this.options;
    const body = await this.fetchBody();
    if (body.length === 0) {
      this.send([]);
      throw urlError(`zero-length data received from ${url}`);
    }
    if (this.lastBody?.equals(body)) return;
    // Remembered before decoding, as upstream: a bad body is reported once, not every period.
    this.lastBody = body;
    const manifest = parseManifest(body, url);
    this.send(manifest.pods.map((pod) => applyStaticPodDefaults(pod, { source: HTTP_SOURCE, location: url, nodeName })));
  }

  private async fetchBody(): Promise<Buffer> {
    const { url, headers } = this.options;
    const timeoutMs = this.options.requestTimeoutMs ?? URL_REQUEST_TIMEOUT_MS;
    let response;
    try {
      response = await request(url, {
        method: 'GET',
        headers,
        dispatcher: this.dispatcher,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        // The whole fetch, body included, so a body trickling in forever still ends.
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw urlError(`${url}: ${fetchFailure(err, timeoutMs)}`);
    }
    const chunks: Buffer[] = [];
    let sizeBytes = 0;
    try {
      for await (const chunk of response.body) {
        sizeBytes += (chunk as Buffer).length;
        if (sizeBytes > MAX_MANIFEST_BYTES) {
          response.body.destroy();
          throw new Error(`body larger than ${MAX_MANIFEST_BYTES} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
    } catch (err) {
      response.body.destroy();
      throw urlError(`${url}: ${fetchFailure(err, timeoutMs)}`);
    }
    if (response.statusCode !== 200) throw urlError(`${url}: HTTP ${response.statusCode}${response.statusCode >= 300 && response.statusCode < 400 ? ' (a redirect without a usable Location)' : ''}`);
    return Buffer.concat(chunks);
  }

  private send(pods: Pod[]): void {
    if (!this.stopped) this.options.onUpdate({ op: 'SET', source: HTTP_SOURCE, pods });
  }

  /** As upstream: the first few failures at warn level, then quieter until a success. */
  private logFailure(err: Error): void {
    const { logger, url } = this.options;
    // Every failure of this source greps as MANIFEST_URL_FAILED; a body that did not decode adds its own code as the cause.
    const code = (err as { code?: string }).code;
    const cause = code && code !== ErrorCodes.MANIFEST_URL_FAILED ? { cause: code } : {};
    const fields = { code: ErrorCodes.MANIFEST_URL_FAILED, url, reason: err.message, ...cause };
    if (this.failureLogs < URL_FAILURE_WARNINGS) logger.warn(fields, 'Failed to read pods from URL');
    else if (this.failureLogs === URL_FAILURE_WARNINGS) logger.warn(fields, 'Failed to read pods from URL; logging further failures at debug level');
    else logger.debug(fields, 'Failed to read pods from URL');
    this.failureLogs++;
  }
}

/** The reason a fetch failed, in the words an operator needs (the limit that was hit). */
function fetchFailure(err: unknown, timeoutMs: number): string {
  const error = err as { name?: string; code?: string; message?: string };
  if (error.code === 'UND_ERR_REDIRECT_MAX' || error.name === 'MaxRedirectsError') return `stopped after ${URL_MAX_REDIRECTS} redirects`;
  // undici stops a chain that comes back to a URL it already visited, with a message about Pools that would mislead here.
  if (/redirect loop detected/i.test(error.message ?? '')) return 'redirect loop: a Location pointed back to a URL already visited';
  if (error.name === 'TimeoutError' || error.code === 'UND_ERR_BODY_TIMEOUT' || error.code === 'UND_ERR_HEADERS_TIMEOUT') {
    return `no complete answer within ${timeoutMs} ms (${error.message ?? error.name})`;
  }
  return error.message ?? String(err);
}

function urlError(message: string): ShardletError {
  return new ShardletError(ErrorCodes.MANIFEST_URL_FAILED, message);
}
