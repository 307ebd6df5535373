// --runtime-creation-limit: shardlet's own switch for the runtime contention guard
// (upstream's kubelet has none). "adaptive" (the default) lets the limit follow the
// runtime's latency, a number fixes it, "off" hands every creation to the runtime
// at once as upstream does.

export type RuntimeCreationLimit = { mode: 'adaptive' } | { mode: 'off' } | { mode: 'fixed'; limit: number };

export const DEFAULT_RUNTIME_CREATION_LIMIT: RuntimeCreationLimit = { mode: 'adaptive' };

/** The largest fixed limit accepted: Int32 cells hold it, and no runtime wants more creations at once. */
export const MAX_FIXED_CREATION_LIMIT = 100_000;

/** Parses the flag's value; throws a plain Error saying what is accepted. */
export function parseRuntimeCreationLimit(raw: string): RuntimeCreationLimit {
  const text = raw.trim();
  if (text === 'adaptive') return { mode: 'adaptive' };
  if (text === 'off') return { mode: 'off' };
  const limit = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_FIXED_CREATION_LIMIT) {
    throw new Error(`must be adaptive, off or an integer from 1 to ${MAX_FIXED_CREATION_LIMIT}`);
  }
  return { mode: 'fixed', limit };
}

/** The flag's spelling of a setting (logs, the bench's labels). */
export function formatRuntimeCreationLimit(setting: RuntimeCreationLimit): string {
  return setting.mode === 'fixed' ? String(setting.limit) : setting.mode;
}
