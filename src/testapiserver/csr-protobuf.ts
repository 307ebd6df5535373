// kubectl's typed client (certificate approve / deny) sends a CSR as Kubernetes
// protobuf, not JSON, and does not fall back on 415. This decodes that much: the
// `k8s\0` envelope (runtime.Unknown) and a CertificateSigningRequest's metadata
// (name, uid, resourceVersion), spec and status, with the field numbers of
// k8s.io/api/certificates/v1/generated.proto and apimachinery's meta/v1.
import protobuf from 'protobufjs/minimal.js';
import { badRequest } from './api-error.js';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

export type Fields = Map<number, Array<Uint8Array | number>>;

/** Every field of one message: length-delimited ones as bytes, varints as numbers. */
export function fieldsOf(bytes: Uint8Array): Fields {
  const reader = protobuf.Reader.create(bytes);
  const fields: Fields = new Map();
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    const wireType = tag & 7;
    let value: Uint8Array | number;
    if (wireType === 2) value = reader.bytes();
    else if (wireType === 0) value = Number(reader.int64().toString());
    else {
      reader.skipType(wireType);
      continue;
    }
    fields.set(field, [...(fields.get(field) ?? []), value]);
  }
  return fields;
}

export function text(fields: Fields, field: number): string | undefined {
  const value = fields.get(field)?.[0];
  return value instanceof Uint8Array ? Buffer.from(value).toString() : undefined;
}

export function texts(fields: Fields, field: number): string[] {
  return (fields.get(field) ?? []).filter((v): v is Uint8Array => v instanceof Uint8Array).map((v) => Buffer.from(v).toString());
}

export function message(fields: Fields, field: number): Fields {
  const value = fields.get(field)?.[0];
  return value instanceof Uint8Array ? fieldsOf(value) : new Map();
}

function time(fields: Fields, field: number): string | undefined {
  const seconds = message(fields, field).get(1)?.[0];
  return typeof seconds === 'number' ? new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z') : undefined;
}

function condition(fields: Fields): Record<string, unknown> {
  return {
    type: text(fields, 1), status: text(fields, 6), reason: text(fields, 2), message: text(fields, 3),
    lastUpdateTime: time(fields, 4), lastTransitionTime: time(fields, 5),
  };
}

function csrObject(fields: Fields): Record<string, unknown> {
  const meta = message(fields, 1);
  const spec = message(fields, 2);
  const status = message(fields, 3);
  const request = spec.get(1)?.[0];
  const certificate = status.get(2)?.[0];
  const expirationSeconds = spec.get(8)?.[0];
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: text(meta, 1) ?? '', uid: text(meta, 5), resourceVersion: text(meta, 6) },
    spec: {
      request: request instanceof Uint8Array ? Buffer.from(request).toString('base64') : undefined,
      signerName: text(spec, 7),
      usages: texts(spec, 5),
      ...(typeof expirationSeconds === 'number' ? { expirationSeconds } : {}),
    },
    status: {
      conditions: (status.get(1) ?? []).filter((v): v is Uint8Array => v instanceof Uint8Array).map((v) => condition(fieldsOf(v))),
      ...(certificate instanceof Uint8Array && certificate.length ? { certificate: Buffer.from(certificate).toString('base64') } : {}),
    },
  };
}

/** The kind and the encoded object inside the `k8s\0` envelope (runtime.Unknown). */
export function unwrapProtobuf(body: Buffer): { kind: string | undefined; raw: Uint8Array | undefined } {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) throw badRequest('the protobuf body lacks the k8s envelope');
  const unknown = fieldsOf(body.subarray(MAGIC.length));
  const raw = unknown.get(2)?.[0];
  return { kind: text(message(unknown, 1), 2), raw: raw instanceof Uint8Array ? raw : undefined };
}

/** The JSON form of a protobuf-encoded CertificateSigningRequest; 400 for anything else. */
export function decodeProtobufCsr(body: Buffer): Record<string, unknown> {
  const { kind, raw } = unwrapProtobuf(body);
  if (kind !== 'CertificateSigningRequest' || !raw) throw badRequest(`protobuf bodies are understood for CertificateSigningRequest only (got ${kind ?? 'no kind'})`);
  return csrObject(fieldsOf(raw));
}
