// Reading request bodies and writing JSON answers and Status errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest } from './api-error.js';
import { decodeProtobufBody } from './authz/rbac-protobuf.js';

const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

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

export async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBodyBytes(req)).toString('utf8');
}

/** The JSON body, or undefined when the body is empty. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const contentType = (req.headers['content-type'] ?? 'application/json').split(';')[0].trim();
  if (contentType === PROTOBUF_CONTENT_TYPE) return decodeProtobufBody(await readBodyBytes(req));
  const text = await readBody(req);
  if (!contentType.endsWith('json') && text.length > 0) {
    // Only JSON is spoken; a 415 makes client-go fall back to JSON.
    throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got ${contentType})`);
  }
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw badRequest(`couldn't decode request body as JSON: ${(err as Error).message}`);
  }
}

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) });
  res.end(payload);
}

export function sendError(res: ServerResponse, err: unknown): void {
  const apiError = err instanceof ApiError ? err : new ApiError(500, 'InternalError', `Internal error occurred: ${(err as Error)?.message ?? String(err)}`);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, apiError.code, apiError.toStatus());
}
