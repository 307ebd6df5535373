// The protobuf wire format as gogo/protobuf's generated Unmarshal reads it:
// tags, the wire type each field must arrive with, skipping unknown fields, and
// the error texts Go gives for a body that breaks the rules, so that a 400 says
// what kube-apiserver's would.
import protobuf from 'protobufjs/minimal.js';
import type { FieldSchema, MessageSchema, ScalarType } from './schema.js';

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LENGTH_DELIMITED = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

/** A body that is not the message it claims to be; the text is Go's. */
export class WireFormatError extends Error {
  override name = 'WireFormatError';
}

/** A JSON object that has no protobuf form (a field of the wrong type); names the field. */
export class UnencodableError extends Error {
  override name = 'UnencodableError';
  constructor(readonly path: string, problem: string) {
    super(`${path}: ${problem}`);
  }
}

export type Reader = protobuf.Reader;
export type Writer = protobuf.Writer;

export function newReader(bytes: Uint8Array): Reader {
  return protobuf.Reader.create(bytes);
}

export function newWriter(): Writer {
  return protobuf.Writer.create();
}

export function tagOf(field: number, wireType: number): number {
  return ((field << 3) | wireType) >>> 0;
}

/** The Go struct's name of a message, as gogo's errors name it ("Secret"). */
export function goNameOf(schema: MessageSchema): string {
  return schema.fullName.slice(schema.fullName.lastIndexOf('.') + 1);
}

/** The wire type a field's entries arrive with. */
export function wireTypeOf(field: FieldSchema): number {
  if (field.shape === 'map' || 'message' in field.value) return WIRE_LENGTH_DELIMITED;
  return scalarWireType(field.value.scalar);
}

export function scalarWireType(scalar: ScalarType): number {
  return scalar === 'string' || scalar === 'bytes' ? WIRE_LENGTH_DELIMITED : WIRE_VARINT;
}

/** Runs a read, turning protobufjs's range errors into Go's "unexpected EOF". */
export function guarded<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof RangeError) throw new WireFormatError('unexpected EOF');
    throw err;
  }
}

/** The next tag, with Go's checks on the field number and wire type. */
export function readTag(reader: Reader, schema: MessageSchema): { number: number; wireType: number } {
  const tag = guarded(() => reader.uint32());
  const number = tag >>> 3;
  const wireType = tag & 7;
  if (wireType === WIRE_END_GROUP) throw new WireFormatError(`proto: ${goNameOf(schema)}: wiretype end group for non-group`);
  if (number <= 0) throw new WireFormatError(`proto: ${goNameOf(schema)}: illegal tag ${number} (wire type ${wireType})`);
  return { number, wireType };
}

/** Groups nested deeper than this are refused rather than followed. */
const MAX_GROUP_DEPTH = 64;

/** Skips a field this schema does not know, as gogo's skipGenerated does (groups included). */
export function skipField(reader: Reader, wireType: number, groupDepth = 0): void {
  switch (wireType) {
    case WIRE_VARINT: return void guarded(() => reader.skip());
    case WIRE_FIXED64: return void guarded(() => reader.skip(8));
    case WIRE_LENGTH_DELIMITED: return void guarded(() => reader.skip(reader.uint32()));
    case WIRE_FIXED32: return void guarded(() => reader.skip(4));
    case WIRE_START_GROUP:
      if (groupDepth >= MAX_GROUP_DEPTH) throw new WireFormatError('proto: group nested too deep');
      for (;;) {
        const inner = guarded(() => reader.uint32()) & 7;
        if (inner === WIRE_END_GROUP) return;
        skipField(reader, inner, groupDepth + 1);
      }
    default:
      throw new WireFormatError(`proto: illegal wireType ${wireType}`);
  }
}

export function wrongWireType(field: FieldSchema, wireType: number): WireFormatError {
  return new WireFormatError(`proto: wrong wireType = ${wireType} for field ${field.name.charAt(0).toUpperCase()}${field.name.slice(1)}`);
}

/** An int64 as a JS number (Kubernetes' int64 fields stay far below 2^53). */
export function readInt64(reader: Reader): number {
  const value = guarded(() => reader.int64()) as unknown as number | { toNumber(): number };
  return typeof value === 'number' ? value : value.toNumber();
}

/** An int64 exactly, for nanosecond durations. */
export function readInt64Exact(reader: Reader): bigint {
  const value = guarded(() => reader.int64()) as unknown as number | { toString(): string };
  return BigInt(value.toString());
}

/** One scalar of the given type, in its JSON form (bytes as base64). */
export function readScalar(reader: Reader, scalar: ScalarType): string | number | boolean {
  return guarded(() => {
    switch (scalar) {
      case 'string': return reader.string();
      case 'bytes': return Buffer.from(reader.bytes()).toString('base64');
      case 'bool': return reader.bool();
      case 'int32': return reader.int32();
      case 'int64': return readInt64(reader);
    }
  });
}

/** The zero value Go leaves a value field at, in JSON form. */
export function zeroOf(scalar: ScalarType): string | number | boolean {
  switch (scalar) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    default:
      return 0;
  }
}

/** Whether a JSON number fits protobuf's int32 (-2^31 … 2^31-1). */
export function isInt32(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 31) && value <= 2 ** 31 - 1;
}
