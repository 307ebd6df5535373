// Two canonical JSON encodings, one per purpose. Both sort object keys at every level
// so that key order in a manifest never matters; they differ in what counts as "the
// same value", and each stored identity depends on its rule staying as it is:
// - sortedKeysJson keeps every value (null, [] and {} included): the static pod UID
//   (upstream's applyDefaults hashes the whole decoded pod) and the pod storage's
//   "did anything change" comparisons, where an emptied list is a change.
// - omitEmptyJson drops undefined, null, [] and {}, as upstream's json.Marshal with
//   omitempty: the container hash (upstream's HashContainer), where writing `env: []`
//   instead of leaving it out must not restart a container.
// Changing either rule changes every static pod's UID or restarts every container.

/** JSON with object keys sorted at every level; every value is kept. */
export function sortedKeysJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item) || item instanceof Date) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

/**
 * JSON with object keys sorted; undefined, null, empty arrays and empty objects are
 * dropped (undefined for the whole value when nothing is left), so "absent" and
 * "empty" encode alike. Array order is kept: it is meaningful (command, args, env).
 */
export function omitEmptyJson(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    return `[${value.map((item) => omitEmptyJson(item) ?? 'null').join(',')}]`;
  }
  if (typeof value === 'object') {
    const members: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const member = omitEmptyJson((value as Record<string, unknown>)[key]);
      if (member !== undefined) members.push(`${JSON.stringify(key)}:${member}`);
    }
    return members.length === 0 ? undefined : `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}
