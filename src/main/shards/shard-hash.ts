// Which shard owns a pod: a stable hash of its UID, so a pod stays on one shard for
// its whole life (and after a restart of shardlet with the same --workers).

const FNV_OFFSET_BASIS_32 = 0x811c9dc5;
const FNV_PRIME_32 = 0x01000193;

/** 32-bit FNV-1a over the UTF-16 code units of the UID. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET_BASIS_32;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME_32);
  }
  return hash >>> 0;
}

export function shardForUid(uid: string, shardCount: number): number {
  return shardCount <= 1 ? 0 : fnv1a32(uid) % shardCount;
}
