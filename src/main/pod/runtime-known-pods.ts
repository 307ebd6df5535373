// Which pods the runtime may hold something of. A pod's first sync normally starts
// by reading its sandboxes and containers from the runtime; for a pod that was not
// in the runtime when shardlet started and that no shard has synced since, that
// read can only come back empty (only this pod's own shard creates its sandbox), so
// the shard is told to skip it. The inventory is the first relist after start-up;
// until it is taken, every sync reads. A UID is never forgotten: a pod deleted from
// its source may leave dead sandboxes behind, and 36 bytes a pod is cheap.

export class RuntimeKnownPods {
  private inventoryTaken = false;
  /** Pods found at start-up plus every pod sent to a shard since. */
  private readonly knownUids = new Set<string>();

  /** The pods the runtime held at start-up (the first relist's). */
  takeInventory(uids: Iterable<string>): void {
    for (const uid of uids) this.knownUids.add(uid);
    this.inventoryTaken = true;
  }

  /** True when the runtime is certain to hold nothing of the pod; from now on it may. */
  claimFirstSync(uid: string): boolean {
    if (this.knownUids.has(uid)) return false;
    this.knownUids.add(uid);
    return this.inventoryTaken;
  }
}
