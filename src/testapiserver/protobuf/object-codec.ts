// Whole API objects between an enveloped protobuf body and their JSON form: the
// envelope's apiVersion and kind pick the message (and come back as the JSON's
// apiVersion and kind, which the message itself does not carry); the other way,
// the object's own apiVersion and kind do. Objects whose kind has no protobuf
// form (Table, the version document) stay JSON.
import { decodeMessage, type JsonObject } from './decode.js';
import { encodeMessage } from './encode.js';
import { readEnvelope, writeEnvelope, writeWatchFrame } from './envelope.js';
import { messageOfKind } from './kinds.js';
import { WireFormatError } from './wire.js';

/** The scheme's error for a kind it does not know (runtime.NewNotRegisteredErrForKind, in kube-apiserver's scheme). */
export function notRegisteredMessage(kind: string, apiVersion: string): string {
  return `no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/api/legacyscheme/scheme.go:30"`;
}

/** JSON with kind and apiVersion first, as Go's TypeMeta comes first. */
export function withTypeMeta(apiVersion: string, kind: string, fields: JsonObject): JsonObject {
  return { kind, ...(apiVersion ? { apiVersion } : {}), ...fields };
}

function decodeNested(enveloped: Uint8Array, depth: number): JsonObject {
  const envelope = readEnvelope(enveloped);
  const schema = messageOfKind(envelope.apiVersion, envelope.kind);
  if (!schema) throw new WireFormatError(notRegisteredMessage(envelope.kind, envelope.apiVersion));
  return withTypeMeta(envelope.apiVersion, envelope.kind, decodeMessage(schema, envelope.raw, decodeNested, depth));
}

/** The JSON form of an enveloped body whose kind the envelope names; throws WireFormatError. */
export function decodeEnveloped(body: Uint8Array): JsonObject {
  return decodeNested(body, 0);
}

/** An enveloped object's raw message as JSON, for a kind already resolved; RawExtensions inside may hold envelopes. */
export function decodeRaw(apiVersion: string, kind: string, raw: Uint8Array): JsonObject {
  const schema = messageOfKind(apiVersion, kind);
  if (!schema) throw new WireFormatError(notRegisteredMessage(kind, apiVersion));
  return withTypeMeta(apiVersion, kind, decodeMessage(schema, raw, decodeNested));
}

interface TypedObject {
  apiVersion?: unknown;
  kind?: unknown;
}

function typeOf(obj: object): { apiVersion: string; kind: string } {
  const { apiVersion, kind } = obj as TypedObject;
  return { apiVersion: typeof apiVersion === 'string' ? apiVersion : '', kind: typeof kind === 'string' ? kind : '' };
}

/** Whether the object's kind has a protobuf form. */
export function hasProtobufForm(obj: object): boolean {
  const { apiVersion, kind } = typeOf(obj);
  return messageOfKind(apiVersion, kind) !== undefined;
}

/** `k8s\0` + Unknown of the object; throws UnencodableError naming a field of the wrong type. */
export function encodeEnveloped(obj: object): Buffer {
  const { apiVersion, kind } = typeOf(obj);
  const schema = messageOfKind(apiVersion, kind);
  if (!schema) throw new Error(`${kind} (${apiVersion}) has no protobuf form`);
  return writeEnvelope(apiVersion, kind, encodeMessage(schema, obj));
}

/** One frame of a protobuf watch stream carrying the event's object. */
export function encodeWatchFrame(type: string, obj: object): Buffer {
  return writeWatchFrame(type, encodeEnveloped(obj));
}
