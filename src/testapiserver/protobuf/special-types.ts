// apimachinery's messages whose JSON form is not an object of their fields, both
// ways, as their Go MarshalJSON/UnmarshalJSON and Marshal/Unmarshal methods do:
// Time and MicroTime (RFC 3339), Duration (Go duration text), Quantity (its
// string), IntOrString (a number or a string), RawExtension and FieldsV1
// (embedded JSON, or for RawExtension an embedded protobuf envelope), and the
// string lists ExtraValue and Verbs (a plain array).
import { PROTOBUF_MAGIC } from './envelope.js';
import { formatGoDuration, parseGoDuration } from './go-duration.js';
import type { MessageSchema, SpecialKind } from './schema.js';
import { formatMicroTime, formatTime, parseRfc3339 } from './time-format.js';
import {
  guarded, isInt32, newReader, newWriter, readTag, skipField, UnencodableError, WIRE_LENGTH_DELIMITED, WIRE_VARINT, WireFormatError, wireTypeOf, wrongWireType,
} from './wire.js';

/** Decodes an enveloped object found inside a RawExtension (the caller knows the kinds). */
export type EmbeddedDecoder = (enveloped: Uint8Array) => unknown;

/**
 * apimachinery's quantity grammar: a signed decimal, then a binary-SI suffix
 * (Ki…Ei), a decimal-SI one (n u m k M G T P E) or an exponent. The error text is
 * resource.ErrFormatWrong's.
 */
const QUANTITY = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+|[KMGTPE]i|[numkMGTPE])?$/;
const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const NANOS_PER_SECOND = 1_000_000_000n;
const INT_OR_STRING_INT = 0;
const INT_OR_STRING_STRING = 1;

type RawValue = bigint | Uint8Array;

/** Every known field of a small message: varints exactly, length-delimited as bytes. */
function rawFields(schema: MessageSchema, bytes: Uint8Array): Map<number, RawValue[]> {
  const reader = newReader(bytes);
  const fields = new Map<number, RawValue[]>();
  while (reader.pos < reader.len) {
    const { number, wireType } = readTag(reader, schema);
    const field = schema.byNumber.get(number);
    if (!field) {
      skipField(reader, wireType);
      continue;
    }
    if (wireType !== wireTypeOf(field)) throw wrongWireType(field, wireType);
    const value: RawValue = guarded(() => (wireType === WIRE_VARINT ? BigInt(reader.int64().toString()) : reader.bytes()));
    fields.set(number, [...(fields.get(number) ?? []), value]);
  }
  return fields;
}

function lastVarint(fields: Map<number, RawValue[]>, number: number): bigint {
  const value = fields.get(number)?.at(-1);
  return typeof value === 'bigint' ? value : 0n;
}

function lastBytes(fields: Map<number, RawValue[]>, number: number): Uint8Array | undefined {
  const value = fields.get(number)?.at(-1);
  return value instanceof Uint8Array ? value : undefined;
}

function text(bytes: Uint8Array | undefined): string {
  return bytes ? Buffer.from(bytes).toString('utf8') : '';
}

function embeddedJson(raw: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(text(raw)) as unknown;
  } catch (err) {
    throw new WireFormatError(`${what} holds invalid JSON: ${(err as Error).message}`);
  }
}

function timeToJson(fields: Map<number, RawValue[]>, micro: boolean): string {
  // Normalised as Go's time.Unix does with nanoseconds outside [0, 1e9).
  const total = lastVarint(fields, 1) * NANOS_PER_SECOND + BigInt.asIntN(32, lastVarint(fields, 2));
  let seconds = total / NANOS_PER_SECOND;
  let nanos = total % NANOS_PER_SECOND;
  if (nanos < 0n) {
    seconds -= 1n;
    nanos += NANOS_PER_SECOND;
  }
  const time = { seconds: Number(seconds), nanos: Number(nanos) };
  try {
    return micro ? formatMicroTime(time) : formatTime(time);
  } catch (err) {
    throw new WireFormatError(`${micro ? 'MicroTime' : 'Time'}.MarshalJSON: ${(err as Error).message}`);
  }
}

/** The JSON form of a special message from its wire bytes. */
export function specialToJson(kind: SpecialKind, schema: MessageSchema, bytes: Uint8Array, decodeEmbedded: EmbeddedDecoder): unknown {
  // An empty Time is Go's zero time, which its JSON writes as null (Time.Unmarshal).
  if ((kind === 'time' || kind === 'microTime') && bytes.length === 0) return null;
  const fields = rawFields(schema, bytes);
  switch (kind) {
    case 'time': return timeToJson(fields, false);
    case 'microTime': return timeToJson(fields, true);
    case 'duration': return formatGoDuration(BigInt.asIntN(64, lastVarint(fields, 1)));
    case 'quantity': {
      const raw = lastBytes(fields, 1);
      if (raw === undefined) return '0';
      const quantity = text(raw);
      if (!QUANTITY.test(quantity)) throw new WireFormatError(QUANTITY_FORMAT_ERROR);
      return quantity;
    }
    case 'intOrString': {
      const type = Number(BigInt.asIntN(64, lastVarint(fields, 1)));
      if (type === INT_OR_STRING_INT) return Number(BigInt.asIntN(32, lastVarint(fields, 2)));
      if (type === INT_OR_STRING_STRING) return text(lastBytes(fields, 3));
      throw new WireFormatError('impossible IntOrString.Type');
    }
    case 'rawExtension': {
      const raw = lastBytes(fields, 1);
      if (!raw || raw.length === 0) return null;
      return Buffer.from(raw.subarray(0, PROTOBUF_MAGIC.length)).equals(PROTOBUF_MAGIC) ? decodeEmbedded(raw) : embeddedJson(raw, 'RawExtension');
    }
    case 'fieldsV1': {
      const raw = lastBytes(fields, 1);
      return raw && raw.length > 0 ? embeddedJson(raw, 'FieldsV1') : null;
    }
    case 'stringList':
      return (fields.get(1) ?? []).map((value) => text(value as Uint8Array));
  }
}

function writeVarintField(writer: ReturnType<typeof newWriter>, number: number, value: number | string): void {
  writer.uint32((number << 3) | WIRE_VARINT).int64(value as number);
}

function writeBytesField(writer: ReturnType<typeof newWriter>, number: number, value: Uint8Array | string): void {
  writer.uint32((number << 3) | WIRE_LENGTH_DELIMITED);
  if (typeof value === 'string') writer.string(value);
  else writer.bytes(value);
}

function timeFromJson(value: unknown, path: string): Uint8Array {
  if (value === undefined || value === null) return new Uint8Array(0);
  const parsed = typeof value === 'string' ? parseRfc3339(value) : undefined;
  if (!parsed) throw new UnencodableError(path, `${JSON.stringify(value)} is not an RFC 3339 time`);
  const writer = newWriter();
  writeVarintField(writer, 1, parsed.seconds);
  writer.uint32((2 << 3) | WIRE_VARINT).int32(parsed.nanos);
  return writer.finish();
}

function quantityText(value: unknown, path: string): string {
  if (value === undefined || value === null) return '0';
  const quantity = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof quantity !== 'string' || !QUANTITY.test(quantity)) throw new UnencodableError(path, `${JSON.stringify(value)}: ${QUANTITY_FORMAT_ERROR}`);
  return quantity;
}

function intOrStringFromJson(value: unknown, path: string): Uint8Array {
  const writer = newWriter();
  const isString = typeof value === 'string';
  if (!isString && value !== undefined && value !== null && !isInt32(value)) {
    throw new UnencodableError(path, `${JSON.stringify(value)} is neither a 32-bit integer nor a string`);
  }
  // Go writes all three fields, whichever is in use.
  writeVarintField(writer, 1, isString ? INT_OR_STRING_STRING : INT_OR_STRING_INT);
  writer.uint32((2 << 3) | WIRE_VARINT).int32(isString ? 0 : ((value as number | undefined | null) ?? 0));
  writeBytesField(writer, 3, isString ? value : '');
  return writer.finish();
}

function embeddedJsonFromJson(value: unknown): Uint8Array {
  const writer = newWriter();
  if (value !== undefined && value !== null) writeBytesField(writer, 1, Buffer.from(JSON.stringify(value)));
  return writer.finish();
}

function stringListFromJson(value: unknown, path: string): Uint8Array {
  const writer = newWriter();
  if (value === undefined || value === null) return writer.finish();
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw new UnencodableError(path, 'expected an array of strings');
  for (const item of value as string[]) writeBytesField(writer, 1, item);
  return writer.finish();
}

/** The wire bytes of a special message from its JSON form; undefined or null give Go's zero value. */
export function specialFromJson(kind: SpecialKind, value: unknown, path: string): Uint8Array {
  switch (kind) {
    case 'time':
    case 'microTime':
      return timeFromJson(value, path);
    case 'duration': {
      const writer = newWriter();
      const nanoseconds = value === undefined || value === null ? 0n : typeof value === 'string' ? parseGoDuration(value) : undefined;
      if (nanoseconds === undefined) throw new UnencodableError(path, `${JSON.stringify(value)} is not a Go duration`);
      writeVarintField(writer, 1, nanoseconds.toString());
      return writer.finish();
    }
    case 'quantity': {
      const writer = newWriter();
      writeBytesField(writer, 1, quantityText(value, path));
      return writer.finish();
    }
    case 'intOrString': return intOrStringFromJson(value, path);
    case 'rawExtension':
    case 'fieldsV1':
      return embeddedJsonFromJson(value);
    case 'stringList': return stringListFromJson(value, path);
  }
}
