// Decodes untrusted YAML or JSON text into plain JSON data, with limits that keep
// one hostile file from taking the process down: text only (no binary), one
// document, YAML aliases bounded (billion laughs), nesting bounded, and only
// values JSON can hold. Upstream gets the last two from its decoders (Go's
// encoding/json stops at 10,000 levels; sigs.k8s.io/yaml converts YAML to JSON,
// which refuses .inf and .nan); structured clone, JSON.stringify and our own
// recursive code overflow the stack far earlier (a 1,800-deep array did), so the
// bound here is much lower. Pure: both threads and the config loader import it.
import { parseAllDocuments } from 'yaml';

/**
 * Deepest nesting of objects and lists accepted, the document itself being level 1.
 * The deepest real Pod field (a pod anti-affinity term's matchExpressions values)
 * is about 11 levels, 13 inside a PodList; 100 leaves room for any CRD-like
 * extension while staying far from the ~1,500 levels where structured clone of a
 * pod overflows the stack.
 */
export const MAX_NESTING_DEPTH = 100;
/** Alias nodes one YAML document may resolve (the yaml package's own default): enough for any real use, not for a bomb. */
export const MAX_YAML_ALIAS_COUNT = 100;
/** Longest excerpt of untrusted text a reason may quote. */
export const MAX_QUOTED_CHARS = 64;

/** Why untrusted text could not be decoded; callers wrap it in their own coded error. */
export class DecodeError extends Error {
  override name = 'DecodeError';
}

const FATAL_UTF8 = new TextDecoder('utf-8', { fatal: true });
/** C0 controls other than tab, LF and CR, and DEL: neither YAML nor JSON text may hold them raw. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/**
 * The single non-empty document in `input`, as plain JSON data (null when there is
 * none); throws DecodeError.
 * `want` names what the document should be, for the several-documents message.
 */
export function decodeSingleDocument(input: string | Uint8Array, want: string): unknown {
  const text = asText(input);
  const json = parseJsonObject(text);
  const value = json !== undefined ? json : parseYaml(text, want);
  checkPlainData(value);
  return value;
}

/** JSON.stringify of `value`, cut to MAX_QUOTED_CHARS, so a reason never carries a whole hostile file. */
export function quote(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length <= MAX_QUOTED_CHARS ? text : `${text.slice(0, MAX_QUOTED_CHARS)}…`;
}

function asText(input: string | Uint8Array): string {
  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else {
    try {
      text = FATAL_UTF8.decode(input);
    } catch {
      throw new DecodeError('not UTF-8 text (binary data?)');
    }
  }
  const control = CONTROL_CHARACTER.exec(text);
  if (control) {
    const code = control[0].charCodeAt(0).toString(16).padStart(2, '0');
    throw new DecodeError(`not text: control character 0x${code} at offset ${control.index} (binary data?)`);
  }
  return text;
}

/**
 * Most generated manifests are JSON, which JSON.parse reads about ten times faster
 * than the YAML parser (a duplicate key then keeps the last value, as Go's
 * encoding/json does). Anything else, or JSON that does not parse, goes to the
 * YAML parser, whose errors say where the problem is.
 */
function parseJsonObject(text: string): unknown {
  if (text.trimStart()[0] !== '{') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Upstream reads only the first YAML document and silently drops the rest; we
 * refuse a text with several instead, so a second object never goes missing quietly.
 */
function parseYaml(text: string, want: string): unknown {
  let values: unknown[];
  try {
    const documents = parseAllDocuments(text, { uniqueKeys: true, logLevel: 'silent' });
    for (const document of documents) {
      const error = document.errors[0];
      // The first line only: later lines quote the text, which may be anything.
      if (error) throw new DecodeError(`invalid YAML/JSON: ${error.message.split('\n')[0]}`);
    }
    values = documents.map((document) => document.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT }) as unknown);
  } catch (err) {
    throw asDecodeError(err);
  }
  // A document of only markers or comments decodes to null: it does not count.
  const nonEmpty = values.filter((value) => value !== null && value !== undefined);
  if (nonEmpty.length > 1) throw new DecodeError(`holds ${nonEmpty.length} YAML documents; want one ${want}`);
  return nonEmpty[0] ?? null;
}

function asDecodeError(err: unknown): DecodeError {
  if (err instanceof DecodeError) return err;
  if (err instanceof ReferenceError && /alias/i.test(err.message)) {
    return new DecodeError(`YAML aliases expand to more than ${MAX_YAML_ALIAS_COUNT} nodes (an alias bomb?)`);
  }
  if (err instanceof RangeError) return new DecodeError(`nested too deeply to decode (limit ${MAX_NESTING_DEPTH} levels)`);
  return new DecodeError(`invalid YAML/JSON: ${(err as Error)?.message?.split('\n')[0] ?? String(err)}`);
}

interface Visit {
  value: unknown;
  depth: number;
  key: string;
  parent?: Visit;
}

/**
 * Walks the decoded value without recursion: nesting deeper than
 * MAX_NESTING_DEPTH (which a YAML alias cycle always is), and values JSON cannot
 * hold (.inf, .nan, !!binary, ...), are refused with their path.
 */
function checkPlainData(root: unknown): void {
  const stack: Visit[] = [{ value: root, depth: 1, key: '' }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value } = visit;
    if (value === null || typeof value === 'string' || typeof value === 'boolean') continue;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new DecodeError(`${pathOf(visit)}: ${value} is not a JSON number`);
      continue;
    }
    const isList = Array.isArray(value);
    if (typeof value !== 'object' || (!isList && !isPlainObject(value))) throw new DecodeError(`${pathOf(visit)}: a ${describeType(value)} is not JSON data`);
    if (visit.depth > MAX_NESTING_DEPTH) throw new DecodeError(`${pathOf(visit)}: nested more than ${MAX_NESTING_DEPTH} levels deep`);
    const entries: Array<[string, unknown]> = isList
      ? (value as unknown[]).map((item, index) => [`[${index}]`, item])
      : Object.entries(value).map(([key, item]) => [`.${key}`, item]);
    for (const [key, item] of entries) {
      if (item === null || typeof item === 'string' || typeof item === 'boolean') continue;
      stack.push({ value: item, depth: visit.depth + 1, key, parent: visit });
    }
  }
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function describeType(value: unknown): string {
  if (typeof value !== 'object' || value === null) return typeof value;
  return (value as object).constructor?.name ?? 'object';
}

/** "spec.containers[0].x" for a visit, cut to a readable length. */
function pathOf(visit: Visit): string {
  const keys: string[] = [];
  for (let at: Visit | undefined = visit; at; at = at.parent) keys.push(at.key);
  const path = keys.reverse().join('').replace(/^\./, '') || '(document)';
  return path.length <= 2 * MAX_QUOTED_CHARS ? path : `${path.slice(0, MAX_QUOTED_CHARS)}…${path.slice(-MAX_QUOTED_CHARS)}`;
}
