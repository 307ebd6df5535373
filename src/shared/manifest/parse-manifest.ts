// Decodes a static pod manifest (YAML or JSON text) into a Pod or a PodList, as
// upstream's tryDecodeSinglePod / tryDecodePodList (pkg/kubelet/config/common.go),
// and validates each pod enough to say why one is refused. Pure: both threads may
// import it.
import { parseAllDocuments } from 'yaml';
import { ErrorCodes, ShardletError } from '../errors.js';
import type { Pod } from '../types.js';
import { validatePod } from './validate-pod.js';

/** Upstream's maxConfigLength: a manifest larger than this is refused unread. */
export const MAX_MANIFEST_BYTES = 10 * 1024 * 1024;

export interface ParsedManifest {
  kind: 'Pod' | 'PodList';
  pods: Pod[];
}

/** Parses a Pod or a PodList; throws ShardletError(MANIFEST_INVALID) naming `origin` and the reason. */
export function parseManifest(text: string, origin: string): ParsedManifest {
  const document = parseSingleDocument(text, origin);
  if (!isObject(document)) throw manifestError(origin, `not a Kubernetes object (got ${describe(document)})`);
  const { kind, apiVersion } = document;
  if (kind !== 'Pod' && kind !== 'PodList') {
    throw manifestError(origin, `kind: must be "Pod" or "PodList", got ${JSON.stringify(kind ?? '')}`);
  }
  if (apiVersion !== 'v1') throw manifestError(origin, `apiVersion: must be "v1" for a ${kind}, got ${JSON.stringify(apiVersion ?? '')}`);
  if (kind === 'Pod') return { kind, pods: [checkedPod(document, origin, '')] };
  if (!Array.isArray(document.items)) throw manifestError(origin, 'items: a PodList must have a list of items');
  // As tryDecodePodList: one invalid pod makes the whole list unusable.
  const pods = document.items.map((item, index) => checkedPod(item, origin, `items[${index}].`));
  return { kind, pods };
}

/** Parses exactly one Pod, as upstream's file source accepts (a PodList in a file is refused). */
export function parsePodManifest(text: string, origin: string): Pod {
  const manifest = parseManifest(text, origin);
  if (manifest.kind !== 'Pod') throw manifestError(origin, 'holds a PodList; a static pod file must hold a single Pod');
  return manifest.pods[0]!;
}

function checkedPod(value: unknown, origin: string, prefix: string): Pod {
  if (isObject(value) && value.kind !== undefined && value.kind !== 'Pod') {
    throw manifestError(origin, `${prefix}kind: must be "Pod", got ${JSON.stringify(value.kind)}`);
  }
  const problems = validatePod(value);
  if (problems.length > 0) {
    throw manifestError(origin, `invalid pod: ${problems.map((problem) => prefix + problem).join('; ')}`);
  }
  const pod = value as Pod;
  pod.apiVersion = 'v1';
  pod.kind = 'Pod';
  return pod;
}

/**
 * Upstream reads only the first YAML document and silently drops the rest; we
 * refuse a file with several instead, so a second pod never goes missing quietly.
 */
function parseSingleDocument(text: string, origin: string): unknown {
  if (Buffer.byteLength(text) > MAX_MANIFEST_BYTES) throw manifestError(origin, `larger than ${MAX_MANIFEST_BYTES} bytes`);
  const json = parseJsonObject(text);
  if (json !== undefined) return json;
  const documents = parseAllDocuments(text, { uniqueKeys: true });
  for (const document of documents) {
    const error = document.errors[0];
    if (error) throw manifestError(origin, `invalid YAML/JSON: ${error.message.split('\n')[0]}`);
  }
  // A document of only markers or comments decodes to null: it does not count.
  const nonEmpty = documents.map((document) => document.toJS() as unknown).filter((value) => value !== null && value !== undefined);
  if (nonEmpty.length === 0) throw manifestError(origin, 'empty manifest');
  if (nonEmpty.length > 1) throw manifestError(origin, `holds ${nonEmpty.length} YAML documents; want one Pod or PodList`);
  return nonEmpty[0];
}

/**
 * Most generated manifests are JSON, which JSON.parse reads about ten times faster
 * than the YAML parser (a duplicate key then keeps the last value, as Go's
 * encoding/json does). Anything else, or JSON that does not parse, goes to the YAML
 * parser, whose errors say where the problem is.
 */
function parseJsonObject(text: string): unknown {
  if (text.trimStart()[0] !== '{') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function manifestError(origin: string, reason: string): ShardletError {
  return new ShardletError(ErrorCodes.MANIFEST_INVALID, `${origin}: ${reason}`, { origin, reason });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  return JSON.stringify(value) ?? String(value);
}
