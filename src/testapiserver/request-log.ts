// Every resource request the server was asked, with who asked and what it named,
// as kube-apiserver's audit log records it (user, verb, resource, namespace, name,
// and the list/watch selectors). Tests read it to check what a kubelet asks for:
// that each Secret or ConfigMap it reads is named, that one node never asks for
// another node's objects. Recorded before the request is served, so a refused
// request shows as well. Bounded: the oldest entries go first. Watches are also kept
// while their stream is open, so a test can see which watches a client holds now.
import type { ServerResponse } from 'node:http';
import type { ResourceRequest } from './context.js';
import type { ClientIdentity } from './tls.js';

/** Entries kept; a bench run writes far more, and no test reads that far back. */
export const REQUEST_LOG_CAPACITY = 20_000;

export interface RecordedRequest {
  user: string;
  groups: string[];
  /** The audit verb: get, list, watch, create, update, patch, delete, deletecollection. */
  verb: string;
  /** `<resource>[/<subresource>]`, with the group for non-core resources (as requestCount keys it). */
  resource: string;
  namespace?: string;
  /** The name in the path (get, update, patch, delete and subresources). */
  name?: string;
  fieldSelector?: string;
  labelSelector?: string;
  /** A list or watch's timeoutSeconds, as asked. */
  timeoutSeconds?: string;
  /** A watch that asked for bookmarks. */
  allowWatchBookmarks?: boolean;
}

export class RequestLog {
  private entries: RecordedRequest[] = [];
  private readonly open = new Set<RecordedRequest>();

  /** `res`: the response of a watch, which stays listed as open until it closes. */
  record(user: ClientIdentity | undefined, verb: string, resource: string, request: ResourceRequest | undefined, res?: ServerResponse): void {
    const entry: RecordedRequest = { user: user?.user ?? '', groups: user?.groups ?? [], verb, resource };
    if (request?.namespace) entry.namespace = request.namespace;
    if (request?.name) entry.name = request.name;
    const fieldSelector = request?.query.get('fieldSelector');
    if (fieldSelector) entry.fieldSelector = fieldSelector;
    const labelSelector = request?.query.get('labelSelector');
    if (labelSelector) entry.labelSelector = labelSelector;
    const timeoutSeconds = request?.query.get('timeoutSeconds');
    if (timeoutSeconds) entry.timeoutSeconds = timeoutSeconds;
    if (request?.query.get('allowWatchBookmarks') === 'true') entry.allowWatchBookmarks = true;
    this.entries.push(entry);
    if (verb === 'watch' && res && !res.writableEnded) {
      this.open.add(entry);
      res.once('close', () => this.open.delete(entry));
    }
    if (this.entries.length > REQUEST_LOG_CAPACITY) this.entries = this.entries.slice(-REQUEST_LOG_CAPACITY / 2);
  }

  /** A copy of what was recorded, oldest first. */
  list(): RecordedRequest[] {
    return [...this.entries];
  }

  /** The watches whose stream is open now. */
  openWatches(): RecordedRequest[] {
    return [...this.open];
  }

  /** Forgets what was recorded; open watches stay listed until they close. */
  clear(): void {
    this.entries = [];
  }
}
