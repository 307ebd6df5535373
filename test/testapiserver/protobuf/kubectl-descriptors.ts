// The FileDescriptorProtos a kubectl binary carries: gogo/protobuf's generated
// code registers each k8s.io package's descriptor as a gzipped blob, and the
// blob keeps the gogoproto options (nullable) that the published .proto files
// leave out. Reading them from the kubectl on this machine gives an independent
// record of every message, field number, type and Go pointer-ness to check
// proto/k8s against.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import protobuf from 'protobufjs/minimal.js';

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]);
const GZIP_HEADER_BYTES = 10;
const MAX_BLOB_BYTES = 1024 * 1024;
const GOGO_NULLABLE = 65001;
const LABELS: Record<number, string> = { 1: 'optional', 2: 'required', 3: 'repeated' };
const TYPES: Record<number, string> = { 3: 'int64', 5: 'int32', 8: 'bool', 9: 'string', 11: 'message', 12: 'bytes', 13: 'uint32', 4: 'uint64', 1: 'double', 2: 'float', 14: 'enum' };

export interface DescribedField {
  name: string;
  number: number;
  label: string;
  type: string;
  /** The referenced message, without the leading dot. */
  typeName?: string;
  /** false when the gogoproto option says the Go field is a value. */
  nullable: boolean;
}

export interface DescribedMessage {
  name: string;
  fields: DescribedField[];
  /** Map entry messages (`XxxEntry`) nested in this one, by name. */
  mapEntries: Map<string, DescribedMessage>;
  isMapEntry: boolean;
}

export interface DescribedFile {
  name: string;
  package: string;
  messages: DescribedMessage[];
}

type RawFields = Array<[number, number | Uint8Array]>;

function rawFields(bytes: Uint8Array): RawFields {
  const reader = protobuf.Reader.create(bytes);
  const out: RawFields = [];
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const wireType = tag & 7;
    if (wireType === 0) out.push([tag >>> 3, Number(reader.int64().toString())]);
    else if (wireType === 2) out.push([tag >>> 3, reader.bytes()]);
    else reader.skipType(wireType);
  }
  return out;
}

const text = (value: number | Uint8Array): string => Buffer.from(value as Uint8Array).toString();

function describeField(bytes: Uint8Array): DescribedField {
  const field: DescribedField = { name: '', number: 0, label: '', type: '', nullable: true };
  for (const [number, value] of rawFields(bytes)) {
    if (number === 1) field.name = text(value);
    else if (number === 3) field.number = value as number;
    else if (number === 4) field.label = LABELS[value as number];
    else if (number === 5) field.type = TYPES[value as number] ?? `type${value}`;
    else if (number === 6) field.typeName = text(value).replace(/^\./, '');
    else if (number === 8) {
      for (const [option, optionValue] of rawFields(value as Uint8Array)) if (option === GOGO_NULLABLE) field.nullable = optionValue !== 0;
    }
  }
  return field;
}

function describeMessage(bytes: Uint8Array): DescribedMessage {
  const message: DescribedMessage = { name: '', fields: [], mapEntries: new Map(), isMapEntry: false };
  for (const [number, value] of rawFields(bytes)) {
    if (number === 1) message.name = text(value);
    else if (number === 2) message.fields.push(describeField(value as Uint8Array));
    else if (number === 3) {
      const nested = describeMessage(value as Uint8Array);
      message.mapEntries.set(nested.name, nested);
    } else if (number === 7) {
      // MessageOptions.map_entry is field 7.
      for (const [option, optionValue] of rawFields(value as Uint8Array)) if (option === 7) message.isMapEntry = optionValue !== 0;
    }
  }
  return message;
}

function describeFile(bytes: Uint8Array): DescribedFile {
  const file: DescribedFile = { name: '', package: '', messages: [] };
  for (const [number, value] of rawFields(bytes)) {
    if (number === 1) file.name = text(value);
    else if (number === 2) file.package = text(value);
    else if (number === 4) file.messages.push(describeMessage(value as Uint8Array));
  }
  return file;
}

/** Every k8s.io generated.proto descriptor compiled into a Go binary, by file name. */
export function descriptorsIn(binary: string): Map<string, DescribedFile> {
  const data = readFileSync(binary);
  const files = new Map<string, DescribedFile>();
  for (let at = data.indexOf(GZIP_HEADER); at >= 0; at = data.indexOf(GZIP_HEADER, at + 1)) {
    let inflated: Buffer;
    try {
      // Go's gzip header is the 10 fixed bytes; inflate only this member's
      // deflate stream (gunzip would run on into a neighbouring blob).
      inflated = inflateRawSync(data.subarray(at + GZIP_HEADER_BYTES, at + MAX_BLOB_BYTES));
    } catch {
      continue;
    }
    if (inflated[0] !== 0x0a) continue;
    const nameLength = inflated[1];
    const name = inflated.subarray(2, 2 + nameLength).toString();
    if (!name.startsWith('k8s.io/') || !name.endsWith('generated.proto')) continue;
    files.set(name, describeFile(inflated));
  }
  return files;
}

/** The kubectl on the PATH and, beside it, versioned ones (the Cloud SDK ships kubectl.1.33 and others). */
export function kubectlBinaries(): Array<{ binary: string; version: string }> {
  let onPath: string;
  try {
    onPath = realpathSync(execFileSync('sh', ['-c', 'command -v kubectl']).toString().trim());
  } catch {
    return [];
  }
  const found = [{ binary: onPath, version: 'PATH' }];
  const dir = path.dirname(onPath);
  for (const entry of existsSync(dir) ? readdirSync(dir) : []) {
    const match = /^kubectl\.(\d+\.\d+)$/.exec(entry);
    if (match) found.push({ binary: path.join(dir, entry), version: match[1] });
  }
  return found;
}
