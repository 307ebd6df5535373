// The JSON form the store keeps → protobuf, as gogo's generated Marshal writes
// the Go struct that JSON decodes into: fields in number order; a value field
// (Go non-pointer) always, its zero when JSON leaves it out; a pointer field only
// when JSON has it (null is nil); lists and maps only when not empty, map entries
// sorted by key. The bytes match kube-apiserver's for the same object, which the
// golden tests check against kubectl's own.
import type { FieldSchema, MessageSchema, ScalarType } from './schema.js';
import { specialFromJson } from './special-types.js';
import { isInt32, newWriter, tagOf, UnencodableError, WIRE_LENGTH_DELIMITED, wireTypeOf, zeroOf, type Writer } from './wire.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  return Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value;
}

function writeScalar(writer: Writer, scalar: ScalarType, value: unknown, path: string): void {
  switch (scalar) {
    case 'string':
      if (typeof value !== 'string') throw new UnencodableError(path, `expected a string, got ${describe(value)}`);
      writer.string(value);
      return;
    case 'bytes':
      if (typeof value !== 'string' || !BASE64.test(value)) throw new UnencodableError(path, 'expected base64 text');
      writer.bytes(Buffer.from(value, 'base64'));
      return;
    case 'bool':
      if (typeof value !== 'boolean') throw new UnencodableError(path, `expected a boolean, got ${describe(value)}`);
      writer.bool(value);
      return;
    case 'int32':
      if (!isInt32(value)) throw new UnencodableError(path, `expected a 32-bit integer, got ${JSON.stringify(value)}`);
      writer.int32(value);
      return;
    case 'int64':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new UnencodableError(path, `expected an integer, got ${JSON.stringify(value)}`);
      writer.int64(value);
      return;
  }
}

/** One entry of a field: a scalar, or a message (null and undefined give its zero). */
function writeEntry(writer: Writer, field: FieldSchema, number: number, value: unknown, path: string): void {
  writer.uint32(tagOf(number, wireTypeOf(field)));
  if ('scalar' in field.value) {
    writeScalar(writer, field.value.scalar, value ?? zeroOf(field.value.scalar), path);
    return;
  }
  writeMessageBody(writer, field.value.message, value, path);
}

/** A message as a length-delimited body. */
function writeMessageBody(writer: Writer, schema: MessageSchema, value: unknown, path: string): void {
  if (schema.special) {
    writer.bytes(specialFromJson(schema.special, value, path));
    return;
  }
  writer.fork();
  writeFields(writer, schema, value ?? {}, path);
  writer.ldelim();
}

/** UTF-8 byte order, which is Go's sort.Strings order. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function writeMap(writer: Writer, field: FieldSchema, value: unknown, path: string): void {
  if (!isPlainObject(value)) throw new UnencodableError(path, `expected an object, got ${describe(value)}`);
  const keyField: FieldSchema = { name: 'key', number: 1, shape: 'single', value: { scalar: 'string' }, nullable: false, inline: false };
  const valueField: FieldSchema = { ...field, name: 'value', number: 2, shape: 'single' };
  for (const key of Object.keys(value).sort(byteOrder)) {
    writer.uint32(tagOf(field.number, WIRE_LENGTH_DELIMITED)).fork();
    writeEntry(writer, keyField, 1, key, path);
    writeEntry(writer, valueField, 2, value[key], `${path}[${JSON.stringify(key)}]`);
    writer.ldelim();
  }
}

function writeField(writer: Writer, field: FieldSchema, value: unknown, path: string): void {
  if (field.shape === 'map') {
    if (value !== undefined && value !== null) writeMap(writer, field, value, path);
    return;
  }
  if (field.shape === 'repeated') {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) throw new UnencodableError(path, `expected an array, got ${describe(value)}`);
    value.forEach((item, index) => writeEntry(writer, field, field.number, item, `${path}[${index}]`));
    return;
  }
  // A pointer left out (or null) is nil and not written; a value field always is.
  if ((value === undefined || value === null) && field.nullable) return;
  writeEntry(writer, field, field.number, value, path);
}

function writeFields(writer: Writer, schema: MessageSchema, value: unknown, path: string): void {
  if (!isPlainObject(value)) throw new UnencodableError(path, `expected an object, got ${describe(value)}`);
  for (const field of schema.fieldsByNumber) {
    // An inline message reads its fields from the same JSON object as its parent.
    const fieldValue = field.inline ? value : value[field.name];
    writeField(writer, field, fieldValue, field.inline ? path : path ? `${path}.${field.name}` : field.name);
  }
}

/** The wire bytes of a message from its JSON form; throws UnencodableError naming the bad field. */
export function encodeMessage(schema: MessageSchema, value: unknown): Uint8Array {
  const writer = newWriter();
  writeFields(writer, schema, value, '');
  return writer.finish();
}
