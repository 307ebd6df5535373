// fast-check arbitraries of Kubernetes objects in the JSON form kube-apiserver's
// Go structs print, made from proto/k8s's schema: any field of any message can
// turn up, with any value its type allows, except what the wire cannot carry and
// Go's JSON would not print: a value field (non-pointer) is left out or non-zero,
// a value struct is always there, a list or map left out or not empty, Time in
// whole seconds. Such an object must come back from protobuf exactly as it went.
import fc from 'fast-check';
import { formatGoDuration } from '../../../src/testapiserver/protobuf/go-duration.js';
import type { FieldSchema, MessageSchema, ScalarType, SpecialKind } from '../../../src/testapiserver/protobuf/schema.js';
import { formatMicroTime, formatTime } from '../../../src/testapiserver/protobuf/time-format.js';

/** Messages nested deeper than this hold only what must be there. */
const MAX_DEPTH = 4;
const MAX_ITEMS = 2;
const MAX_TEXT = 6;
const LAST_JSON_SECOND = 253402300799; // 9999-12-31T23:59:59Z
const INT64_MAX = 2n ** 63n - 1n;

type Json = Record<string, unknown>;

const text = fc.string({ unit: 'grapheme', maxLength: MAX_TEXT });
const mapKey = fc.oneof(fc.string({ unit: 'grapheme', maxLength: MAX_TEXT }), fc.constant('__proto__'));
/** Any JSON value, as JSON.parse would give it back (no -0). */
const jsonValue = fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown);

function scalar(type: ScalarType, nonZero: boolean): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string': return nonZero ? text.filter((s) => s !== '') : text;
    case 'bytes': return fc.uint8Array({ minLength: nonZero ? 1 : 0, maxLength: MAX_TEXT }).map((b) => Buffer.from(b).toString('base64'));
    case 'bool': return nonZero ? fc.constant(true) : fc.boolean();
    case 'int32': return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).filter((n) => !nonZero || n !== 0);
    case 'int64': return fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }).filter((n) => !nonZero || n !== 0);
  }
}

const quantity = fc
  .tuple(fc.integer({ min: 0, max: 999_999 }), fc.constantFrom('', 'm', 'n', 'u', 'k', 'M', 'G', 'Ki', 'Mi', 'Gi', 'Ti', 'e3', 'E-2'), fc.constantFrom('', '-', '+'))
  .map(([n, suffix, sign]) => `${sign}${n}${suffix}`);

/** A special type's JSON; `present` leaves out the zero forms a pointer field would not carry (null). */
function special(kind: SpecialKind, present: boolean): fc.Arbitrary<unknown> {
  const orNull = (arb: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> => (present ? arb : fc.oneof(arb, fc.constant(null)));
  switch (kind) {
    case 'time': return orNull(fc.integer({ min: 0, max: LAST_JSON_SECOND }).map((seconds) => formatTime({ seconds, nanos: 0 })));
    case 'microTime': return orNull(fc.tuple(fc.integer({ min: 0, max: LAST_JSON_SECOND }), fc.integer({ min: 0, max: 999_999 })).map(([seconds, micros]) => formatMicroTime({ seconds, nanos: micros * 1000 })));
    case 'duration': return fc.bigInt({ min: -INT64_MAX, max: INT64_MAX }).map(formatGoDuration);
    case 'quantity': return quantity;
    case 'intOrString': return fc.oneof(scalar('int32', false), text);
    case 'rawExtension':
    case 'fieldsV1':
      return present ? jsonValue.filter((v) => v !== null) : jsonValue;
    case 'stringList': return fc.array(text, { maxLength: MAX_ITEMS });
  }
}

/** The JSON of a value struct that holds nothing: its own value structs, and the zeros of special types. */
export function minimalObject(schema: MessageSchema): Json {
  const out: Json = {};
  for (const field of schema.fields) {
    if (field.shape !== 'single' || field.nullable || !('message' in field.value)) continue;
    const message = field.value.message;
    if (message.special) out[field.name] = specialZero(message.special);
    else if (field.inline) Object.assign(out, minimalObject(message));
    else out[field.name] = minimalObject(message);
  }
  return out;
}

function specialZero(kind: SpecialKind): unknown {
  switch (kind) {
    case 'time': case 'microTime': case 'rawExtension': case 'fieldsV1': return null;
    case 'duration': return '0s';
    case 'quantity': return '0';
    case 'intOrString': return 0;
    case 'stringList': return [];
  }
}

/** One entry of a list or map: every entry is written, so zero values stay. */
function entry(field: FieldSchema, depth: number): fc.Arbitrary<unknown> {
  if ('scalar' in field.value) return scalar(field.value.scalar, false);
  const message = field.value.message;
  if (message.special) return special(message.special, false);
  return depth < MAX_DEPTH ? objectOf(message, depth + 1) : fc.constant(minimalObject(message));
}

/** The field's contribution to its object: undefined (left out), a value, or (inline) fields to merge. */
function fieldArbitrary(field: FieldSchema, depth: number): fc.Arbitrary<unknown> {
  if (field.shape === 'repeated') return fc.option(fc.array(entry(field, depth), { minLength: 1, maxLength: MAX_ITEMS }), { nil: undefined });
  if (field.shape === 'map') {
    const entries = fc.uniqueArray(fc.tuple(mapKey, entry(field, depth)), { minLength: 1, maxLength: MAX_ITEMS, selector: ([key]) => key });
    return fc.option(entries.map((pairs) => Object.fromEntries(pairs)), { nil: undefined });
  }
  if ('scalar' in field.value) return fc.option(scalar(field.value.scalar, !field.nullable), { nil: undefined });
  const message = field.value.message;
  if (message.special) return field.nullable ? fc.option(special(message.special, true), { nil: undefined }) : special(message.special, false);
  const nested = depth < MAX_DEPTH ? objectOf(message, depth + 1) : fc.constant(minimalObject(message));
  if (!field.nullable) return nested;
  return depth < MAX_DEPTH ? fc.option(nested, { nil: undefined }) : fc.constant(undefined);
}

const memo = new Map<string, fc.Arbitrary<Json>>();

/** An object of a message in its canonical JSON form (built once per message and depth). */
export function objectOf(schema: MessageSchema, depth = 0): fc.Arbitrary<Json> {
  const key = `${schema.fullName}@${depth}`;
  const known = memo.get(key);
  if (known) return known;
  const built = buildObject(schema, depth);
  memo.set(key, built);
  return built;
}

function buildObject(schema: MessageSchema, depth: number): fc.Arbitrary<Json> {
  return fc.tuple(...schema.fields.map((field) => fieldArbitrary(field, depth))).map((values) => {
    const out: Json = {};
    schema.fields.forEach((field, index) => {
      const value = values[index];
      if (value === undefined) return;
      if (field.inline) Object.assign(out, value);
      else out[field.name] = value;
    });
    return out;
  });
}
