// Protobuf → the JSON form the store keeps, for any message of the schema: what
// kube-apiserver's Go structs would print after gogo's Unmarshal. A value field
// (Go non-pointer) that arrives zero is left out, as omitempty leaves it out;
// a pointer field that arrives zero is kept; messages are merged when a field
// repeats (proto's rule, and gogo's); inline messages lift their fields into the
// parent; map keys come out sorted, as Go's JSON sorts them.
import { specialToJson } from './special-types.js';
import type { FieldSchema, MessageSchema } from './schema.js';
import {
  guarded, newReader, readInt64, readScalar, readTag, scalarWireType, skipField, WIRE_LENGTH_DELIMITED, WireFormatError, wireTypeOf, wrongWireType, zeroOf, type Reader,
} from './wire.js';

/** Nesting beyond this is refused; Kubernetes' own messages nest about 12 deep. */
export const MAX_NESTING_DEPTH = 64;

export type JsonObject = Record<string, unknown>;

/** Decodes an enveloped object inside a RawExtension, one level deeper. */
export type NestedDecoder = (enveloped: Uint8Array, depth: number) => unknown;

interface DecodeContext {
  depth: number;
  decodeEmbedded: NestedDecoder;
}

/** What arrived for one field while reading. */
type Arrived =
  | { kind: 'scalar'; value: string | number | boolean }
  | { kind: 'chunks'; chunks: Uint8Array[] }
  | { kind: 'list'; values: unknown[] }
  | { kind: 'map'; entries: Map<string, unknown> };

function concat(chunks: Uint8Array[]): Uint8Array {
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

function isZero(value: string | number | boolean): boolean {
  return value === '' || value === 0 || value === false;
}

/** One entry of a repeated or map field: a scalar, or a message decoded now. */
function entryValue(field: FieldSchema, bytes: Uint8Array | undefined, scalar: string | number | boolean | undefined, ctx: DecodeContext): unknown {
  if ('scalar' in field.value) return scalar;
  return messageValue(field.value.message, bytes ?? new Uint8Array(0), ctx);
}

function messageValue(schema: MessageSchema, bytes: Uint8Array, ctx: DecodeContext): unknown {
  if (schema.special) return specialToJson(schema.special, schema, bytes, (raw) => ctx.decodeEmbedded(raw, ctx.depth + 1));
  return decodeWith(schema, bytes, { ...ctx, depth: ctx.depth + 1 });
}

/** A map entry: key (1) and value (2); either may be missing, as Go allows. */
function readMapEntry(field: FieldSchema, bytes: Uint8Array, ctx: DecodeContext): [string, unknown] {
  const reader = newReader(bytes);
  let key = '';
  let valueBytes: Uint8Array | undefined;
  let scalar: string | number | boolean | undefined;
  const valueWireType = 'scalar' in field.value ? scalarWireType(field.value.scalar) : WIRE_LENGTH_DELIMITED;
  while (reader.pos < reader.len) {
    const tag = guarded(() => reader.uint32());
    const number = tag >>> 3;
    const wireType = tag & 7;
    if (number === 1 && wireType === WIRE_LENGTH_DELIMITED) key = guarded(() => reader.string());
    else if (number === 2 && wireType === valueWireType) {
      if ('scalar' in field.value) scalar = readScalar(reader, field.value.scalar);
      else valueBytes = guarded(() => reader.bytes());
    } else if (number === 1 || number === 2) throw wrongWireType(field, wireType);
    else skipField(reader, wireType);
  }
  if ('scalar' in field.value) return [key, scalar ?? zeroOf(field.value.scalar)];
  return [key, entryValue(field, valueBytes, undefined, ctx)];
}

/** Packed repeated varints, which Go's Unmarshal accepts besides one tag per value. */
function readPacked(reader: Reader, field: FieldSchema, values: unknown[]): void {
  const end = guarded(() => reader.uint32()) + reader.pos;
  if (end > reader.len) throw new WireFormatError('unexpected EOF');
  const scalar = 'scalar' in field.value ? field.value.scalar : 'int64';
  while (reader.pos < end) values.push(scalar === 'int64' ? readInt64(reader) : readScalar(reader, scalar));
}

function readField(reader: Reader, field: FieldSchema, wireType: number, arrived: Map<FieldSchema, Arrived>, ctx: DecodeContext): void {
  const expected = wireTypeOf(field);
  const packed = field.shape === 'repeated' && 'scalar' in field.value && expected !== WIRE_LENGTH_DELIMITED && wireType === WIRE_LENGTH_DELIMITED;
  if (wireType !== expected && !packed) throw wrongWireType(field, wireType);
  if (field.shape === 'map') {
    const slot = arrived.get(field) ?? { kind: 'map', entries: new Map<string, unknown>() };
    arrived.set(field, slot);
    const [key, value] = readMapEntry(field, guarded(() => reader.bytes()), ctx);
    if (slot.kind === 'map') slot.entries.set(key, value);
  } else if (field.shape === 'repeated') {
    const slot = arrived.get(field) ?? { kind: 'list', values: [] };
    arrived.set(field, slot);
    if (slot.kind !== 'list') return;
    if (packed) readPacked(reader, field, slot.values);
    else if ('scalar' in field.value) slot.values.push(readScalar(reader, field.value.scalar));
    else slot.values.push(entryValue(field, guarded(() => reader.bytes()), undefined, ctx));
  } else if ('scalar' in field.value) {
    arrived.set(field, { kind: 'scalar', value: readScalar(reader, field.value.scalar) });
  } else {
    // A message that arrives twice is merged, which is what decoding the concatenation does.
    const slot = arrived.get(field);
    const chunk = guarded(() => reader.bytes());
    if (slot?.kind === 'chunks') slot.chunks.push(chunk);
    else arrived.set(field, { kind: 'chunks', chunks: [chunk] });
  }
}

/** The JSON value of one field, or undefined to leave it out. */
function jsonOf(field: FieldSchema, slot: Arrived, ctx: DecodeContext): unknown {
  switch (slot.kind) {
    case 'scalar':
      return !field.nullable && isZero(slot.value) ? undefined : slot.value;
    case 'chunks':
      return messageValue((field.value as { message: MessageSchema }).message, concat(slot.chunks), ctx);
    case 'list':
      return slot.values.length > 0 ? slot.values : undefined;
    case 'map': {
      if (slot.entries.size === 0) return undefined;
      const keys = [...slot.entries.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      // fromEntries defines each key as an own property, "__proto__" included.
      return Object.fromEntries(keys.map((key) => [key, slot.entries.get(key)]));
    }
  }
}

function decodeWith(schema: MessageSchema, bytes: Uint8Array, ctx: DecodeContext): JsonObject {
  if (ctx.depth > MAX_NESTING_DEPTH) throw new WireFormatError(`proto: ${schema.fullName} nested more than ${MAX_NESTING_DEPTH} deep`);
  const reader = newReader(bytes);
  const arrived = new Map<FieldSchema, Arrived>();
  while (reader.pos < reader.len) {
    const { number, wireType } = readTag(reader, schema);
    const field = schema.byNumber.get(number);
    if (field) readField(reader, field, wireType, arrived, ctx);
    else skipField(reader, wireType);
  }
  const out: JsonObject = {};
  for (const field of schema.fields) {
    const slot = arrived.get(field);
    if (!slot) continue;
    const value = jsonOf(field, slot, ctx);
    if (value === undefined) continue;
    if (field.inline && typeof value === 'object' && value !== null) Object.assign(out, value);
    else out[field.name] = value;
  }
  return out;
}

/** The JSON form of a message's bytes; `decodeEmbedded` reads envelopes found in RawExtensions. */
export function decodeMessage(schema: MessageSchema, bytes: Uint8Array, decodeEmbedded: NestedDecoder, depth = 0): JsonObject {
  return decodeWith(schema, bytes, { depth, decodeEmbedded });
}
