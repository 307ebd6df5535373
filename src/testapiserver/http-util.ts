// Reading request bodies and writing answers and Status errors in the media
// type the client negotiated: JSON, YAML, or Kubernetes protobuf for the kinds
// that have a protobuf form (everything but Table and the version document).
import type { IncomingMessage, ServerResponse } from 'node:http';
import YAML from 'yaml';
import { ApiError, badRequest, unsupportedMediaType } from './api-error.js';
import { JSON_MEDIA_TYPE, negotiateOutput, PROTOBUF_MEDIA_TYPE, YAML_MEDIA_TYPE, type OutputFormat } from './negotiation.js';
import { encodeEnveloped, hasProtobufForm } from './protobuf/object-codec.js';
import { decodeProtobufRequest, type BodyTarget } from './protobuf/request-body.js';
import { UnencodableError } from './protobuf/wire.js';

export type { BodyTarget };

export const MAX_BODY_BYTES = 3 * 1024 * 1024; // upstream's request size limit

async function readBodyBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, 'RequestEntityTooLarge', 'request entity too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * The body in its JSON form, or undefined when it is empty: JSON or YAML as
 * written; protobuf decoded, and it must be `target`'s kind. Without a target
 * (a patch) protobuf is refused, as the patch handler refuses it.
 */
export async function readObject(req: IncomingMessage, target?: BodyTarget): Promise<unknown> {
  const contentType = (req.headers['content-type'] ?? JSON_MEDIA_TYPE).split(';')[0].trim().toLowerCase();
  const bytes = await readBodyBytes(req);
  if (bytes.length === 0) return undefined;
  if (contentType === PROTOBUF_MEDIA_TYPE) {
    if (!target) throw unsupportedMediaType(contentType);
    return decodeProtobufRequest(bytes, target);
  }
  const text = bytes.toString('utf8');
  if (contentType === YAML_MEDIA_TYPE) return parseText(() => YAML.parse(text) as unknown, 'YAML');
  if (!contentType.endsWith('json')) {
    throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${JSON_MEDIA_TYPE}, ${YAML_MEDIA_TYPE}, ${PROTOBUF_MEDIA_TYPE} (got ${contentType})`);
  }
  if (text.trim() === '') return undefined;
  return parseText(() => JSON.parse(text) as unknown, 'JSON');
}

function parseText(parse: () => unknown, format: string): unknown {
  try {
    return parse();
  } catch (err) {
    throw badRequest(`couldn't decode request body as ${format}: ${(err as Error).message}`);
  }
}

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': JSON_MEDIA_TYPE, 'Content-Length': Buffer.byteLength(payload) });
  res.end(payload);
}

/** A payload already in its media type. */
export function send(res: ServerResponse, code: number, contentType: string, payload: string | Buffer): void {
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) });
  res.end(payload);
}

/** The format the request's Accept header prefers for a plain object (no Table). */
export function preferredFormat(res: ServerResponse): OutputFormat {
  return negotiateOutput(res.req?.headers.accept, { conversions: [] }).format;
}

/** An API object in the negotiated format; a kind without a protobuf form goes as JSON. */
export function sendObject(res: ServerResponse, code: number, body: object): void {
  const format = preferredFormat(res);
  if (format === 'yaml') return send(res, code, YAML_MEDIA_TYPE, YAML.stringify(body));
  if (format !== 'protobuf' || !hasProtobufForm(body)) return sendJson(res, code, body);
  let encoded: Buffer;
  try {
    encoded = encodeEnveloped(body);
  } catch (err) {
    if (!(err instanceof UnencodableError)) throw err;
    // The store holds what a JSON client wrote unchecked; kube-apiserver would have refused it.
    const failure = new ApiError(500, 'InternalError', `Internal error occurred: the stored object cannot be written as protobuf: ${err.message}`);
    return send(res, 500, PROTOBUF_MEDIA_TYPE, encodeEnveloped(failure.toStatus()));
  }
  send(res, code, PROTOBUF_MEDIA_TYPE, encoded);
}

export function sendError(res: ServerResponse, err: unknown): void {
  const apiError = err instanceof ApiError ? err : new ApiError(500, 'InternalError', `Internal error occurred: ${(err as Error)?.message ?? String(err)}`);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendObject(res, apiError.code, apiError.toStatus());
}
