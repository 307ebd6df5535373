// fast-check arbitraries of runtime.v1 messages in proto-loader's input shape
// (keepCase names, enums by name or number, int64 as number or decimal string), made
// from protobufjs's reflection of proto/cri/api.proto: every field of every message
// can turn up, so an encoder that forgets a field, or writes it under the wrong
// number or type, disagrees with the reflective codec on some run.
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { CRI_LOADER_OPTIONS, criProtoPath } from '../../../../src/shared/cri/load-proto.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const MAX_STRING_LENGTH = 8;
const MAX_ITEMS = 3;

let root: protobuf.Root | undefined;

/** The reflective type of a runtime.v1 message, e.g. "ContainerConfig". */
export function criType(name: string): protobuf.Type {
  if (!root) {
    // keepCase, as proto-loader loads it: field names as the proto spells them.
    root = new protobuf.Root().loadSync(criProtoPath(), { keepCase: true });
    root.resolveAll();
  }
  return root.lookupType(`runtime.v1.${name}`);
}

/** The reflective decode as proto-loader does it for grpc-js: Type.decode, then toObject with the client's options. */
export function reflectiveDecode(type: protobuf.Type, bytes: Uint8Array): Record<string, unknown> {
  return type.toObject(type.decode(bytes), CRI_LOADER_OPTIONS as protobuf.IConversionOptions);
}

const text = fc.string({ unit: 'grapheme', maxLength: MAX_STRING_LENGTH });
const mapKey = text.filter((key) => key !== '__proto__');

function scalar(field: protobuf.Field): fc.Arbitrary<unknown> {
  switch (field.type) {
    case 'string':
      return text;
    case 'bool':
      return fc.boolean();
    case 'int32':
      return fc.integer();
    case 'uint32':
      return fc.integer({ min: 0, max: 0xffffffff });
    case 'int64':
      return fc.oneof(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(String));
    case 'uint64':
      return fc.oneof(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.bigInt({ min: 0n, max: UINT64_MAX }).map(String));
    case 'bytes':
      return fc.uint8Array({ maxLength: MAX_STRING_LENGTH }).map((bytes) => Buffer.from(bytes));
    default:
      throw new Error(`no arbitrary for ${field.type} (${field.fullName})`);
  }
}

/** An enum value as callers write it: a name, a number, or a name the enum does not have (dropped, as protobufjs drops it). */
function enumValue(type: protobuf.Enum): fc.Arbitrary<unknown> {
  const names = Object.keys(type.values);
  return fc.oneof(fc.constantFrom(...names), fc.integer({ min: 0, max: names.length + 2 }), fc.constant('NOT_A_VALUE'));
}

function single(field: protobuf.Field): fc.Arbitrary<unknown> {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) return enumValue(resolved);
  if (resolved instanceof protobuf.Type) return messageArbitrary(resolved);
  return scalar(field);
}

function fieldArbitrary(field: protobuf.Field): fc.Arbitrary<unknown> {
  if (field instanceof protobuf.MapField) return fc.dictionary(mapKey, single(field), { maxKeys: MAX_ITEMS, noNullPrototype: true });
  if (field.repeated) return fc.array(single(field), { maxLength: MAX_ITEMS });
  // A message may also be given as null: proto-loader's input types allow it, and it means unset.
  if (field.resolvedType instanceof protobuf.Type) return fc.option(single(field), { nil: null });
  return single(field);
}

const cache = new Map<string, fc.Arbitrary<Record<string, unknown>>>();

/** Any message of `type`: every field optional, nested messages as deep as the proto has them (runtime.v1 has no recursive message). */
export function messageArbitrary(type: protobuf.Type): fc.Arbitrary<Record<string, unknown>> {
  const cached = cache.get(type.fullName);
  if (cached) return cached;
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of type.fieldsArray) model[field.name] = fieldArbitrary(field);
  const arbitrary = fc.record(model, { requiredKeys: [] });
  cache.set(type.fullName, arbitrary);
  return arbitrary;
}
