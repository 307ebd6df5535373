// Watch streams: newline-separated JSON watch events, or with protobuf
// negotiated length-prefixed WatchEvent frames (protobuf/envelope.ts), as the
// apiserver's watch cache serves them. resourceVersion unset or "0" starts with synthetic ADDED
// events for what exists; N replays retained events after N; a too-old N gets one
// ERROR event carrying a 410 Expired Status (the cacher's errWatcher), which
// client-go and client-node answer by relisting. Events are filtered per watcher,
// so an object that starts or stops matching the selectors is ADDED or DELETED.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest } from './api-error.js';
import { DEFAULT_WATCH_TIMEOUT_SECONDS, type ResourceRequest, type ServerContext } from './context.js';
import { filterOf, refOf } from './crud.js';
import { apiVersionOf } from './resources.js';
import { matchesFilter, type ObjectFilter } from './selectors.js';
import { negotiateOutput, PROTOBUF_MEDIA_TYPE } from './negotiation.js';
import { encodeWatchFrame } from './protobuf/object-codec.js';
import { UnencodableError } from './protobuf/wire.js';
import { toTable } from './table.js';
import type { KubeObject, StoredEvent, WatchEventType } from './types.js';

/** What a filtered watcher should see of a stored event, if anything. */
export function filteredEvent(filter: ObjectFilter, event: StoredEvent): { type: WatchEventType; object: KubeObject } | undefined {
  const now = matchesFilter(filter, event.object);
  const before = event.previous ? matchesFilter(filter, event.previous) : false;
  if (event.type === 'ADDED') return now ? { type: 'ADDED', object: event.object } : undefined;
  if (event.type === 'DELETED') return before || now ? { type: 'DELETED', object: event.object } : undefined;
  if (now && before) return { type: 'MODIFIED', object: event.object };
  if (now) return { type: 'ADDED', object: event.object };
  if (before) return { type: 'DELETED', object: event.object };
  return undefined;
}

function parseStartRv(raw: string | null): number | undefined {
  if (raw === null || raw === '' || raw === '0') return undefined;
  const parsed = Number(raw);
  if (!Number.isInteger(parsed) || parsed < 0) throw badRequest(`invalid resourceVersion: ${raw}`);
  return parsed;
}

/**
 * One protobuf frame; an object the store holds that has no protobuf form ends
 * the stream with an ERROR event, as the watch server stops on an encode error.
 */
function writeProtobufEvent(res: ServerResponse, type: WatchEventType, object: object, finish: () => void): void {
  try {
    res.write(encodeWatchFrame(type, object));
  } catch (err) {
    if (!(err instanceof UnencodableError)) throw err;
    const status = new ApiError(500, 'InternalError', `Internal error occurred: the stored object cannot be written as protobuf: ${err.message}`).toStatus();
    res.write(encodeWatchFrame('ERROR', status));
    finish();
  }
}

export function serveWatch(ctx: ServerContext, request: ResourceRequest, req: IncomingMessage, res: ServerResponse): void {
  const filter = filterOf(request);
  const startRv = parseStartRv(request.query.get('resourceVersion'));
  const output = negotiateOutput(req.headers.accept, { conversions: ['Table'], watch: true });
  const asTable = output.as === 'Table';
  const asProtobuf = output.format === 'protobuf';
  const includeObject = request.query.get('includeObject');
  const timeoutSeconds = Number(request.query.get('timeoutSeconds') ?? DEFAULT_WATCH_TIMEOUT_SECONDS);
  const bookmarks = request.query.get('allowWatchBookmarks') === 'true';

  const contentType = asProtobuf ? `${PROTOBUF_MEDIA_TYPE};stream=watch` : 'application/json';
  res.writeHead(200, { 'Content-Type': contentType, 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache' });
  res.flushHeaders();

  let unsubscribe = (): void => {};
  const timers: NodeJS.Timeout[] = [];
  const finish = (): void => {
    unsubscribe();
    for (const timer of timers) clearInterval(timer);
    ctx.openWatches.delete(finish);
    if (!res.writableEnded) res.end();
  };
  ctx.openWatches.add(finish);
  req.on('close', finish);
  res.on('close', finish);

  const write = (type: WatchEventType, object: object): void => {
    if (res.writableEnded) return;
    if (asProtobuf) return writeProtobufEvent(res, type, object, finish);
    const shown = asTable && type !== 'ERROR' && type !== 'BOOKMARK' ? toTable(request.key, [object as KubeObject], (object as KubeObject).metadata.resourceVersion ?? '', includeObject) : object;
    res.write(`${JSON.stringify({ type, object: shown })}\n`);
  };

  try {
    let fromRv = startRv;
    if (fromRv === undefined) {
      const listed = ctx.store.list(refOf(request), request.namespace);
      for (const obj of listed.items) if (matchesFilter(filter, obj)) write('ADDED', obj);
      fromRv = listed.resourceVersion;
    }
    unsubscribe = ctx.store.watch(refOf(request), fromRv, (event) => {
      const shown = filteredEvent(filter, event);
      if (shown) write(shown.type, shown.object);
    });
    // An object that could not be encoded during the initial list already ended the stream.
    if (res.writableEnded) unsubscribe();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    write('ERROR', err.toStatus());
    finish();
    return;
  }
  if (timeoutSeconds > 0) timers.push(setTimeout(finish, timeoutSeconds * 1000));
  if (bookmarks) {
    const bookmark = (): void => {
      write('BOOKMARK', { kind: request.def.kind, apiVersion: apiVersionOf(request.def), metadata: { resourceVersion: String(ctx.store.currentResourceVersion()) } });
    };
    timers.push(setInterval(bookmark, ctx.bookmarkIntervalMs).unref());
  }
}
