// Pod-supplied strings that become parts of paths on the node: the pod's UID, namespace
// and name, container and volume names (one directory each under the root dir, the pod
// log directory and the cgroup root) and the seccomp localhostProfile (a file under the
// seccomp profile root). Upstream's kubelet joins them as they come
// (filepath.Join(podsDir, string(uid)) in getPodDir) and counts on the API server's
// validation; a static pod never passes through one, and shardlet treats API pods as
// hostile too. So every path builder joins such a string only through this module: a
// name must be one plain segment, a profile a path that descends from its root. What
// does not fit is refused with SHARDLET_PATH_UNSAFE naming the field, never cleaned up
// into something else.
import { isAbsolute, join, relative } from 'node:path';
import { ErrorCodes, ShardletError } from './errors.js';

/** Linux's NAME_MAX: a longer segment could never be made, so it is refused up front. */
export const MAX_PATH_SEGMENT_BYTES = 255;
/** The part of a refused value that the error quotes (a hostile value may be megabytes long). */
const MAX_QUOTED_CHARS = 100;

/** Why `value` is not exactly one plain path segment; undefined when it is one. */
export function pathSegmentError(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (value === '') return 'must not be empty';
  if (value === '.' || value === '..') return `must not be '${value}'`;
  if (value.includes('/')) return "must not contain '/'";
  if (value.includes('\0')) return 'must not contain a NUL character';
  if (Buffer.byteLength(value) > MAX_PATH_SEGMENT_BYTES) return `must be no more than ${MAX_PATH_SEGMENT_BYTES} bytes`;
  return undefined;
}

/**
 * Why `value` is not a relative path that only descends, as upstream's
 * validateLocalDescendingPath (not absolute, no '..' element), and also not empty,
 * not naming its root itself ("." or "./"), and free of NUL.
 */
export function descendingPathError(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (value === '') return 'must not be empty';
  if (value.includes('\0')) return 'must not contain a NUL character';
  if (isAbsolute(value)) return 'must be a relative path';
  if (value.split('/').includes('..')) return "must not contain '..'";
  if (value.split('/').every((part) => part === '' || part === '.')) return 'must name a file below its directory';
  return undefined;
}

/** `value` itself when it is one plain segment; throws SHARDLET_PATH_UNSAFE naming `field` otherwise. */
export function checkPathSegment(field: string, value: string): string {
  const reason = pathSegmentError(value);
  if (reason) throw pathUnsafeError(field, value, reason);
  return value;
}

/** `parent/value` when `value` is one plain segment, so the result is always a direct child of `parent`. */
export function joinPathSegment(parent: string, field: string, value: string): string {
  return join(parent, checkPathSegment(field, value));
}

/**
 * `parent/value` for a relative path that stays below `parent` (subdirectories
 * allowed, as upstream's seccomp profile root allows them); throws
 * SHARDLET_PATH_UNSAFE naming `field` otherwise.
 */
export function joinDescendingPath(parent: string, field: string, value: string): string {
  const reason = descendingPathError(value);
  if (reason) throw pathUnsafeError(field, value, reason);
  const joined = join(parent, value);
  // The checks above only let through what descends; this tests the property itself, in case they ever drift.
  const inside = relative(parent, joined);
  if (inside === '' || inside === '..' || inside.startsWith('../') || isAbsolute(inside)) throw pathUnsafeError(field, value, 'must stay below its directory');
  return joined;
}

/** True for the error a path builder throws on a pod-supplied string it refuses. */
export function isPathUnsafe(err: unknown): boolean {
  return err instanceof ShardletError && err.code === ErrorCodes.PATH_UNSAFE;
}

/**
 * What `build` returns, or undefined when it refused a pod-supplied string: for the
 * clean-ups, since nothing can have been made at a path that was never built.
 */
export function unlessPathUnsafe<T>(build: () => T): T | undefined {
  try {
    return build();
  } catch (err) {
    if (isPathUnsafe(err)) return undefined;
    throw err;
  }
}

/** The SHARDLET_PATH_UNSAFE error for `field`, quoting (the start of) `value`, for a builder's own rule. */
export function pathUnsafeError(field: string, value: unknown, reason: string): ShardletError {
  const text = typeof value === 'string' ? value : String(value);
  const shown = text.length <= MAX_QUOTED_CHARS ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, MAX_QUOTED_CHARS))}…`;
  return new ShardletError(ErrorCodes.PATH_UNSAFE, `${field}: Invalid value: ${shown}: ${reason} (it names a path on the node)`, {
    field,
    value: shown,
    reason,
  });
}
