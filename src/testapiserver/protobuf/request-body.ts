// A protobuf request body read as kube-apiserver's create and update handlers
// read it: the envelope's kind and apiVersion default to the resource's when
// missing (copyKindDefaults); a kind the scheme lacks, a kind that is not the
// resource's, bytes that are not the message, or another API version are a 400
// with the text the handler's transformDecodeError and version check give.
import { badRequest, type ApiError } from '../api-error.js';
import type { JsonObject } from './decode.js';
import { readEnvelope, type Envelope } from './envelope.js';
import { internalPackageOf, messageOfKind, splitApiVersion } from './kinds.js';
import { decodeRaw, notRegisteredMessage } from './object-codec.js';
import { WireFormatError } from './wire.js';

const SUMMARY_BYTES = 30;

/** The kind a request body must be: the resource's, a subresource's, or DeleteOptions in any version. */
export interface BodyTarget {
  group: string;
  version: string;
  kind: string;
  anyVersion?: boolean;
}

function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** apiserver's summarizeData: the first 30 bytes, as text when JSON, else in hex. */
function summarize(body: Buffer): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, SUMMARY_BYTES);
  const more = body.length > SUMMARY_BYTES ? ' ...' : '';
  return body[0] === 0x7b ? `${head.toString()}${more}` : `${head.toString('hex')}${more}`;
}

function rethrowWireError(err: unknown, wrap: (message: string) => ApiError): never {
  if (err instanceof WireFormatError) throw wrap(err.message);
  throw err;
}

/** The JSON form of a protobuf body meant for `target`, or a 400 with kube-apiserver's message. */
export function decodeProtobufRequest(body: Buffer, target: BodyTarget): JsonObject {
  let envelope: Envelope;
  try {
    envelope = readEnvelope(body);
  } catch (err) {
    rethrowWireError(err, (message) => badRequest(`the object provided is unrecognized (must be of type ${target.kind}): ${message} (${summarize(body)})`));
  }
  const kind = envelope.kind || target.kind;
  const apiVersion = envelope.apiVersion || apiVersionOf(target.group, target.version);
  const { group, version } = splitApiVersion(apiVersion);
  const cannotHandle = (reason: string): ApiError => badRequest(`${kind} in version "${version}" cannot be handled as a ${target.kind}: ${reason}`);
  if (!messageOfKind(apiVersion, kind)) throw cannotHandle(notRegisteredMessage(kind, apiVersion));
  let decoded: JsonObject;
  try {
    decoded = decodeRaw(apiVersion, kind, envelope.raw);
  } catch (err) {
    rethrowWireError(err, cannotHandle);
  }
  if (kind !== target.kind) throw cannotHandle(`converting (${version}.${kind}) to (${internalPackageOf(target.group)}.${target.kind}): unknown conversion`);
  if (!target.anyVersion && (group !== target.group || version !== target.version)) {
    throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${apiVersionOf(target.group, target.version)})`);
  }
  return decoded;
}
