// The `k8s\0` envelope (apimachinery's protobuf.Serializer): the four magic bytes,
// then a runtime.Unknown naming the object's apiVersion and kind and carrying its
// message as raw. And the watch stream's frames (the RawSerializer behind
// LengthDelimitedFramer): a 4-byte big-endian length, then a WatchEvent written
// without an envelope, whose object is the enveloped object.
import { guarded, newReader, newWriter, readTag, skipField, tagOf, WIRE_LENGTH_DELIMITED, WireFormatError, wrongWireType } from './wire.js';
import { kubeSchema } from './schema.js';

/** The four bytes before every Kubernetes protobuf body: "k8s\0". */
export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const FRAME_LENGTH_BYTES = 4;

export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

/** Go's fmt %v of the prefix, as the decode error prints it. */
const MAGIC_TEXT = `[${[...PROTOBUF_MAGIC].join(' ')}]`;

function readTypeMeta(bytes: Uint8Array): { apiVersion: string; kind: string } {
  const schema = kubeSchema().get('k8s.io.apimachinery.pkg.runtime.TypeMeta');
  const reader = newReader(bytes);
  const typeMeta = { apiVersion: '', kind: '' };
  while (reader.pos < reader.len) {
    const { number, wireType } = readTag(reader, schema);
    const field = schema.byNumber.get(number);
    if (!field) skipField(reader, wireType);
    else if (wireType !== WIRE_LENGTH_DELIMITED) throw wrongWireType(field, wireType);
    else typeMeta[number === 1 ? 'apiVersion' : 'kind'] = guarded(() => reader.string());
  }
  return typeMeta;
}

/** Reads `k8s\0` + Unknown; the errors are protobuf.Serializer.Decode's. */
export function readEnvelope(body: Uint8Array): Envelope {
  if (body.length === 0) throw new WireFormatError('empty data');
  if (body.length < PROTOBUF_MAGIC.length || !Buffer.from(body.subarray(0, PROTOBUF_MAGIC.length)).equals(PROTOBUF_MAGIC)) {
    throw new WireFormatError(`provided data does not appear to be a protobuf message, expected prefix ${MAGIC_TEXT}`);
  }
  if (body.length === PROTOBUF_MAGIC.length) throw new WireFormatError('empty body');
  const schema = kubeSchema().get('k8s.io.apimachinery.pkg.runtime.Unknown');
  const reader = newReader(body.subarray(PROTOBUF_MAGIC.length));
  const envelope: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '', contentType: '' };
  while (reader.pos < reader.len) {
    const { number, wireType } = readTag(reader, schema);
    const field = schema.byNumber.get(number);
    if (!field) {
      skipField(reader, wireType);
      continue;
    }
    if (wireType !== WIRE_LENGTH_DELIMITED) throw wrongWireType(field, wireType);
    const bytes = guarded(() => reader.bytes());
    if (number === 1) Object.assign(envelope, readTypeMeta(bytes));
    else if (number === 2) envelope.raw = bytes;
    else if (number === 3) envelope.contentEncoding = Buffer.from(bytes).toString();
    else envelope.contentType = Buffer.from(bytes).toString();
  }
  return envelope;
}

/** `k8s\0` + Unknown, byte for byte as Go writes it (empty contentEncoding and contentType included). */
export function writeEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const writer = newWriter();
  writer.uint32(tagOf(1, WIRE_LENGTH_DELIMITED)).fork();
  writer.uint32(tagOf(1, WIRE_LENGTH_DELIMITED)).string(apiVersion);
  writer.uint32(tagOf(2, WIRE_LENGTH_DELIMITED)).string(kind);
  writer.ldelim();
  writer.uint32(tagOf(2, WIRE_LENGTH_DELIMITED)).bytes(raw);
  writer.uint32(tagOf(3, WIRE_LENGTH_DELIMITED)).string('');
  writer.uint32(tagOf(4, WIRE_LENGTH_DELIMITED)).string('');
  return Buffer.concat([PROTOBUF_MAGIC, writer.finish()]);
}

/** One watch frame: length, then WatchEvent{type, object: RawExtension{raw: enveloped}}. */
export function writeWatchFrame(type: string, enveloped: Uint8Array): Buffer {
  const writer = newWriter();
  writer.uint32(tagOf(1, WIRE_LENGTH_DELIMITED)).string(type);
  writer.uint32(tagOf(2, WIRE_LENGTH_DELIMITED)).fork();
  writer.uint32(tagOf(1, WIRE_LENGTH_DELIMITED)).bytes(enveloped);
  writer.ldelim();
  const event = writer.finish();
  const frame = Buffer.alloc(FRAME_LENGTH_BYTES + event.length);
  frame.writeUInt32BE(event.length, 0);
  frame.set(event, FRAME_LENGTH_BYTES);
  return frame;
}
