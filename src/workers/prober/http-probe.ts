// The httpGet probe and lifecycle handler's request, as upstream's pkg/probe/http:
// a GET without keep-alive, TLS not verified, upstream's User-Agent and Accept
// unless the probe's own headers say otherwise, redirects followed on the same host
// only (a redirect elsewhere ends the probe with a warning, counted as success),
// at most 10 redirects, 2xx and 3xx succeed, and at most 10 KiB of body read.
import http from 'node:http';
import https from 'node:https';
import { dialErrorText, failed, succeeded, type ProbeOutcome } from './probe-outcome.js';

/** Upstream's probe User-Agent: kube-probe/<major>.<minor>. */
export const PROBE_USER_AGENT = 'kube-probe/1.36';
/** Upstream's maxRespBodyLength: the probe reads at most this much of the body. */
export const MAX_PROBE_BODY_BYTES = 10 * 1024;
/** Go's http.Client default redirect limit, kept by upstream's redirect checker. */
export const MAX_PROBE_REDIRECTS = 10;

export interface HttpProbeRequest {
  url: URL;
  headers: Array<{ name: string; value: string }>;
  timeoutMs: number;
}

interface HttpReply {
  statusCode: number;
  body: string;
  location?: string;
}

/** Runs the probe; never throws. */
export async function httpProbe(request: HttpProbeRequest): Promise<ProbeOutcome> {
  // A timer cleared when the probe ends: AbortSignal.timeout would fire (and build a DOMException) after every probe.
  const deadlineController = new AbortController();
  const timer = setTimeout(() => deadlineController.abort(), request.timeoutMs);
  const deadline = deadlineController.signal;
  let url = request.url;
  const originalHost = url.hostname;
  try {
    for (let redirects = 0; ; redirects++) {
      const reply = await getOnce(url, request.headers, deadline);
      const redirected = reply.statusCode >= 300 && reply.statusCode < 400 && reply.location !== undefined;
      if (redirected) {
        const next = new URL(reply.location as string, url);
        if (next.hostname !== originalHost) return { verdict: 'warning', output: `Probe terminated redirects, Response body: ${reply.body}` };
        if (redirects + 1 >= MAX_PROBE_REDIRECTS) return failed(`Get "${next.href}": stopped after ${MAX_PROBE_REDIRECTS} redirects`);
        url = next;
        continue;
      }
      if (reply.statusCode >= 200 && reply.statusCode < 400) return succeeded(reply.body);
      return failed(`HTTP probe failed with statuscode: ${reply.statusCode}`);
    }
  } catch (err) {
    return failed(requestErrorText(url, err as NodeJS.ErrnoException, deadline.aborted));
  } finally {
    clearTimeout(timer);
  }
}

/** Go's *url.Error text: `Get "<url>": <cause>`. */
function requestErrorText(url: URL, err: NodeJS.ErrnoException, timedOut: boolean): string {
  if (timedOut) return `Get "${url.href}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
  if (err.syscall === 'connect') return `Get "${url.href}": ${dialErrorText(`${url.hostname}:${portOf(url)}`, err)}`;
  return `Get "${url.href}": ${err.message}`;
}

function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

function getOnce(url: URL, extraHeaders: HttpProbeRequest['headers'], signal: AbortSignal): Promise<HttpReply> {
  const headers: Record<string, string> = {};
  const named = new Set(extraHeaders.map((h) => h.name.toLowerCase()));
  if (!named.has('user-agent')) headers['User-Agent'] = PROBE_USER_AGENT;
  if (!named.has('accept')) headers.Accept = '*/*';
  for (const header of extraHeaders) headers[header.name] = header.value;
  headers.Connection = 'close';
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<HttpReply>((resolve, reject) => {
    const req = client.get(url, { headers, signal, agent: false, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size >= MAX_PROBE_BODY_BYTES) return;
        chunks.push(chunk.subarray(0, MAX_PROBE_BODY_BYTES - size));
        size += chunk.length;
        // Enough read: the rest of the body is of no interest, drop the connection.
        if (size >= MAX_PROBE_BODY_BYTES) finish();
      });
      const finish = () => {
        resolve({ statusCode: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), location: res.headers.location });
        res.destroy();
      };
      res.on('end', finish);
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}
