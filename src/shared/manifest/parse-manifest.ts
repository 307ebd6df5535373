// Decodes a static pod manifest (YAML or JSON text) into a Pod or a PodList, as
// upstream's tryDecodeSinglePod / tryDecodePodList (pkg/kubelet/config/common.go),
// and validates each pod enough to say why one is refused. Pure: both threads may
// import it.
import { ErrorCodes, ShardletError } from '../errors.js';
import type { Pod } from '../types.js';
import { DecodeError, decodeSingleDocument, quote } from './bounded-decode.js';
import { validatePod } from './validate-pod.js';

/** Upstream's maxConfigLength: a manifest larger than this is refused unread. */
export const MAX_MANIFEST_BYTES = 10 * 1024 * 1024;
/** Problems of one pod listed in its error before the rest are only counted. */
export const MAX_REPORTED_PROBLEMS = 20;

export interface ParsedManifest {
  kind: 'Pod' | 'PodList';
  pods: Pod[];
}

/**
 * Parses a Pod or a PodList from text or raw bytes (bytes must be UTF-8); throws
 * ShardletError(MANIFEST_INVALID) naming `origin` and the reason, and nothing else.
 */
export function parseManifest(text: string | Uint8Array, origin: string): ParsedManifest {
  const document = parseSingleDocument(text, origin);
  if (!isObject(document)) throw manifestError(origin, `not a Kubernetes object (got ${describe(document)})`);
  const { kind, apiVersion } = document;
  if (kind !== 'Pod' && kind !== 'PodList') {
    throw manifestError(origin, `kind: must be "Pod" or "PodList", got ${quote(kind ?? '')}`);
  }
  if (apiVersion !== 'v1') throw manifestError(origin, `apiVersion: must be "v1" for a ${kind}, got ${quote(apiVersion ?? '')}`);
  if (kind === 'Pod') return { kind, pods: [checkedPod(document, origin, '')] };
  if (!Array.isArray(document.items)) throw manifestError(origin, 'items: a PodList must have a list of items');
  // As tryDecodePodList: one invalid pod makes the whole list unusable.
  const pods = document.items.map((item, index) => checkedPod(item, origin, `items[${index}].`));
  return { kind, pods };
}

/** Parses exactly one Pod, as upstream's file source accepts (a PodList in a file is refused). */
export function parsePodManifest(text: string | Uint8Array, origin: string): Pod {
  const manifest = parseManifest(text, origin);
  if (manifest.kind !== 'Pod') throw manifestError(origin, 'holds a PodList; a static pod file must hold a single Pod');
  return manifest.pods[0]!;
}

function checkedPod(value: unknown, origin: string, prefix: string): Pod {
  if (isObject(value) && value.kind !== undefined && value.kind !== 'Pod') {
    throw manifestError(origin, `${prefix}kind: must be "Pod", got ${quote(value.kind)}`);
  }
  const problems = validatePod(value);
  if (problems.length > 0) {
    // Every problem, up to a bound: a hostile list of 100,000 bad containers must not make a 10 MB log line.
    const listed = problems.slice(0, MAX_REPORTED_PROBLEMS).map((problem) => prefix + problem);
    if (problems.length > MAX_REPORTED_PROBLEMS) listed.push(`and ${problems.length - MAX_REPORTED_PROBLEMS} more problems`);
    throw manifestError(origin, `invalid pod: ${listed.join('; ')}`);
  }
  const pod = value as Pod;
  pod.apiVersion = 'v1';
  pod.kind = 'Pod';
  return pod;
}

function parseSingleDocument(text: string | Uint8Array, origin: string): unknown {
  const sizeBytes = typeof text === 'string' ? Buffer.byteLength(text) : text.byteLength;
  if (sizeBytes > MAX_MANIFEST_BYTES) throw manifestError(origin, `larger than ${MAX_MANIFEST_BYTES} bytes`);
  let document: unknown;
  try {
    document = decodeSingleDocument(text, 'Pod or PodList');
  } catch (err) {
    if (err instanceof DecodeError) throw manifestError(origin, err.message);
    throw err;
  }
  if (document === null) throw manifestError(origin, 'empty manifest');
  return document;
}

function manifestError(origin: string, reason: string): ShardletError {
  return new ShardletError(ErrorCodes.MANIFEST_INVALID, `${origin}: ${reason}`, { origin, reason });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  return quote(value);
}
