// The protobuf wire format as the CRI codecs write and read it, on protobufjs's
// minimal Writer and Reader. Writers skip a scalar that holds its proto3 default
// (0, "", false, an unknown enum name), as Go's proto.Marshal does: the receiving
// side cannot tell it from unset, so the bytes are wasted. A sub-message is written
// whenever it is present, even empty, because presence means something to a runtime
// (`linux: {}` is not "no linux config"). Readers turn int64 into a number exactly as
// proto-loader's `longs: Number` does, without a Long object per value.
import protobuf from 'protobufjs/minimal.js';

export type Writer = protobuf.Writer;
export type Reader = protobuf.Reader;

/** The int64 forms proto-loader's input types allow. */
export type LongLike = number | string | { low: number; high: number; unsigned?: boolean };

export const WIRE_VARINT = 0;
export const WIRE_LENGTH_DELIMITED = 2;

const TWO_POWER_32 = 4294967296;
/** A varint is at most 10 bytes; the 5th holds bits 28–34. */
const VARINT_LOW_BYTES = 4;

/** The key of a field on the wire: its number and wire type. */
export function tag(field: number, wireType: number): number {
  return ((field << 3) | wireType) >>> 0;
}

export function newWriter(): Writer {
  return protobuf.Writer.create();
}

/** grpc-js sends what serialize returns as is: in Node the minimal Writer finishes into a Buffer. */
export function finish(writer: Writer): Buffer {
  return writer.finish() as Buffer;
}

export function newReader(bytes: Uint8Array): Reader {
  return protobuf.Reader.create(bytes);
}

export function writeString(w: Writer, field: number, value: string | null | undefined): void {
  if (value) w.uint32(tag(field, WIRE_LENGTH_DELIMITED)).string(value);
}

export function writeBool(w: Writer, field: number, value: boolean | null | undefined): void {
  if (value) w.uint32(tag(field, WIRE_VARINT)).bool(true);
}

export function writeInt32(w: Writer, field: number, value: number | null | undefined): void {
  if (value) w.uint32(tag(field, WIRE_VARINT)).int32(value);
}

export function writeUint32(w: Writer, field: number, value: number | null | undefined): void {
  if (value) w.uint32(tag(field, WIRE_VARINT)).uint32(value);
}

export function writeInt64(w: Writer, field: number, value: LongLike | null | undefined): void {
  if (!isZeroLong(value)) w.uint32(tag(field, WIRE_VARINT)).int64(value as number);
}

export function writeUint64(w: Writer, field: number, value: LongLike | null | undefined): void {
  if (!isZeroLong(value)) w.uint32(tag(field, WIRE_VARINT)).uint64(value as number);
}

/** An enum given by name (as proto-loader's `enums: String` types it) or by number; `values` lists the names in number order. */
export function writeEnum(w: Writer, field: number, value: string | number | null | undefined, values: readonly string[]): void {
  const number = typeof value === 'number' ? value : enumNumber(values, value);
  if (number !== 0) w.uint32(tag(field, WIRE_VARINT)).int32(number);
}

/** A name's number; 0 (not written) for no name, and for a name the enum lacks, which protobufjs's fromObject drops too. */
function enumNumber(values: readonly string[], name: string | null | undefined): number {
  if (!name) return 0;
  return Math.max(values.indexOf(name), 0);
}

export function writeMessage<T>(w: Writer, field: number, value: T | null | undefined, encode: (value: T, w: Writer) => void): void {
  if (value === null || value === undefined) return;
  w.uint32(tag(field, WIRE_LENGTH_DELIMITED)).fork();
  encode(value, w);
  w.ldelim();
}

export function writeRepeatedMessage<T>(w: Writer, field: number, values: readonly T[] | null | undefined, encode: (value: T, w: Writer) => void): void {
  if (!values) return;
  for (let i = 0; i < values.length; i++) {
    w.uint32(tag(field, WIRE_LENGTH_DELIMITED)).fork();
    encode(values[i], w);
    w.ldelim();
  }
}

/** Every element, empty strings included: a repeated field's length is part of its value. */
export function writeRepeatedString(w: Writer, field: number, values: readonly string[] | null | undefined): void {
  if (!values) return;
  for (let i = 0; i < values.length; i++) w.uint32(tag(field, WIRE_LENGTH_DELIMITED)).string(values[i]);
}

/** Packed, as proto3 writes repeated numbers by default; readers accept either form. */
export function writeRepeatedInt64(w: Writer, field: number, values: readonly LongLike[] | null | undefined): void {
  if (!values || values.length === 0) return;
  w.uint32(tag(field, WIRE_LENGTH_DELIMITED)).fork();
  for (let i = 0; i < values.length; i++) w.int64(values[i] as number);
  w.ldelim();
}

/** map<string, string>: one entry message (key = 1, value = 2) per key. */
export function writeStringMap(w: Writer, field: number, map: Readonly<Record<string, string>> | null | undefined): void {
  if (!map) return;
  const keys = Object.keys(map);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    w.uint32(tag(field, WIRE_LENGTH_DELIMITED)).fork();
    w.uint32(tag(1, WIRE_LENGTH_DELIMITED)).string(key);
    w.uint32(tag(2, WIRE_LENGTH_DELIMITED)).string(map[key]);
    w.ldelim();
  }
}

function isZeroLong(value: LongLike | null | undefined): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'number') return value === 0;
  if (typeof value === 'string') return Number(value) === 0;
  return value.low === 0 && value.high === 0;
}

/** The end offset of a length-delimited field whose tag was just read. */
export function endOfField(r: Reader): number {
  return r.uint32() + r.pos;
}

/**
 * One map<string, string> entry (key = 1, value = 2, in either order) into `map`;
 * with `keep`, only an entry whose key it accepts (the rest are read past, not stored).
 */
export function readStringMapEntry(r: Reader, map: Record<string, string>, keep?: (key: string) => boolean): void {
  const end = endOfField(r);
  let key = '';
  let value = '';
  while (r.pos < end) {
    const t = r.uint32();
    if (t === tag(1, WIRE_LENGTH_DELIMITED)) key = r.string();
    else if (t === tag(2, WIRE_LENGTH_DELIMITED)) value = r.string();
    else r.skipType(t & 7);
  }
  if (!keep || keep(key)) map[key] = value;
}

/** An int64 as proto-loader's `longs: Number` gives it (LongBits.toNumber, so the rounding above 2^53 is the same). */
export function readInt64(r: Reader): number {
  return longBitsToNumber(r, false);
}

/** A uint64 as proto-loader's `longs: Number` gives it. */
export function readUint64(r: Reader): number {
  return longBitsToNumber(r, true);
}

/** Reads a varint as two 32-bit halves, as protobufjs's readLongVarint, and converts them at once. */
function longBitsToNumber(r: Reader, unsigned: boolean): number {
  const buf = r.buf;
  let lo = 0;
  let hi = 0;
  let byte: number;
  let done = false;
  for (let i = 0; i < VARINT_LOW_BYTES && !done; i++) {
    byte = nextByte(r, buf);
    lo = (lo | ((byte & 127) << (i * 7))) >>> 0;
    done = byte < 128;
  }
  if (!done) {
    byte = nextByte(r, buf);
    lo = (lo | ((byte & 127) << 28)) >>> 0;
    hi = (byte & 127) >> 4;
    done = byte < 128;
  }
  for (let i = 0; i < 5 && !done; i++) {
    byte = nextByte(r, buf);
    hi = (hi | ((byte & 127) << (i * 7 + 3))) >>> 0;
    done = byte < 128;
  }
  if (!done) throw new Error('invalid varint encoding');
  if (!unsigned && hi >>> 31) {
    const negLo = (~lo + 1) >>> 0;
    let negHi = ~hi >>> 0;
    if (!negLo) negHi = (negHi + 1) >>> 0;
    return -(negLo + negHi * TWO_POWER_32);
  }
  return lo + hi * TWO_POWER_32;
}

function nextByte(r: Reader, buf: Uint8Array): number {
  if (r.pos >= r.len) throw new RangeError(`index out of range: ${r.pos} + 1 > ${r.len}`);
  return buf[r.pos++];
}
