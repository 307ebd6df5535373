// Which images the image garbage collector removes, as upstream's realImageGCManager
// decides it. Pure: it works on the records the manager keeps (when each image was
// first seen and last used by a container) and the image filesystem's figures, so
// the same policy runs against containerd's real disk and the simulated runtime's
// modelled one, and is tested with figures alone.
//
// The order is upstream's: first every image unused for longer than
// imageMaximumGCAge (when set); then, when the image filesystem's usage is at or
// above imageGCHighThresholdPercent, the least recently used images until usage
// would be down to imageGCLowThresholdPercent. An image in use by any container
// (running or exited), a pinned image, and an image first seen less than
// imageMinimumGCAge ago are never removed.

export interface ImageRecord {
  id: string;
  /** Tags, for logs. */
  repoTags: string[];
  sizeBytes: number;
  pinned: boolean;
  firstDetectedMs: number;
  /** The last detection that found a container using it; firstDetectedMs until then. */
  lastUsedMs: number;
}

export interface ImageGcSettings {
  highThresholdPercent: number;
  lowThresholdPercent: number;
  minAgeMs: number;
  /** 0 disables the age limit. */
  maxAgeMs: number;
}

export interface ImageFsFigures {
  capacityBytes: number;
  availableBytes: number;
}

export interface ImageGcPlan {
  /** Images to remove, in the order to remove them. */
  remove: Array<{ image: ImageRecord; reason: 'unused for longer than imageMaximumGCAge' | 'disk usage over the high threshold' }>;
  /** Disk usage percent as upstream rounds it, when the figures allowed computing it. */
  usagePercent?: number;
  /** Bytes the disk pass had to free (0 when usage was under the high threshold). */
  bytesToFree: number;
  /** Bytes the disk pass found eligible (short of bytesToFree means FreeDiskSpaceFailed). */
  bytesFound: number;
}

export interface SeenImage {
  id: string;
  repoTags: string[];
  sizeBytes: number;
  pinned: boolean;
}

/**
 * Upstream's detectImages: new images are recorded as first detected now, images in
 * use get lastUsed = now, and records of images the runtime no longer has are dropped.
 */
export function detectImages(records: Map<string, ImageRecord>, seen: readonly SeenImage[], inUse: ReadonlySet<string>, nowMs: number): void {
  const present = new Set<string>();
  for (const image of seen) {
    present.add(image.id);
    let record = records.get(image.id);
    if (!record) {
      record = { ...image, firstDetectedMs: nowMs, lastUsedMs: nowMs };
      records.set(image.id, record);
    }
    record.repoTags = image.repoTags;
    record.sizeBytes = image.sizeBytes;
    record.pinned = image.pinned;
    if (inUse.has(image.id)) record.lastUsedMs = nowMs;
  }
  for (const id of records.keys()) if (!present.has(id)) records.delete(id);
}

export function planImageGc(
  records: ReadonlyMap<string, ImageRecord>,
  inUse: ReadonlySet<string>,
  settings: ImageGcSettings,
  fs: ImageFsFigures | undefined,
  nowMs: number,
): ImageGcPlan {
  // Eviction order: least recently used first, then the earliest detected.
  let candidates = [...records.values()]
    .filter((image) => !inUse.has(image.id) && !image.pinned)
    .sort((a, b) => a.lastUsedMs - b.lastUsedMs || a.firstDetectedMs - b.firstDetectedMs);
  const plan: ImageGcPlan = { remove: [], bytesToFree: 0, bytesFound: 0 };
  if (settings.maxAgeMs > 0) {
    const old = candidates.filter((image) => nowMs - image.lastUsedMs > settings.maxAgeMs);
    for (const image of old) plan.remove.push({ image, reason: 'unused for longer than imageMaximumGCAge' });
    candidates = candidates.filter((image) => !old.includes(image));
  }
  if (!fs || fs.capacityBytes <= 0) return plan;
  const available = Math.min(fs.availableBytes, fs.capacityBytes);
  plan.usagePercent = 100 - Math.trunc((available * 100) / fs.capacityBytes);
  if (plan.usagePercent < settings.highThresholdPercent) return plan;
  plan.bytesToFree = Math.trunc((fs.capacityBytes * (100 - settings.lowThresholdPercent)) / 100) - available;
  for (const image of candidates) {
    if (plan.bytesFound >= plan.bytesToFree) break;
    if (nowMs - image.firstDetectedMs < settings.minAgeMs) continue;
    plan.remove.push({ image, reason: 'disk usage over the high threshold' });
    plan.bytesFound += image.sizeBytes;
  }
  return plan;
}
