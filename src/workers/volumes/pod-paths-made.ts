// The directories and managed files this shard thread made for each pod, so that the
// pod's later syncs and container starts skip making them again: every container
// start used to create the pod's log, container and pod directories anew and rewrite
// /etc/hosts, synchronously, on the shard's event loop. It only ever says "this
// thread made it": losing it costs a mkdir or a write, never a wrong file. A pod's
// record goes when the shard removes the pod's directories (SyncTerminatedPod), and
// a write that finds its directory gone makes it again. Each shard thread loads its
// own copy of this module, so the record is per shard, as the pods are.
import { mkdir, writeFile } from 'node:fs/promises';

/** What a path was made as: a directory, or a file with this content. */
const DIRECTORY = Symbol('directory');
type Made = typeof DIRECTORY | string;

export class PodPathsMade {
  private readonly madeByPod = new Map<string, Map<string, Made>>();

  /** mkdir -p with `mode`, unless this thread made the directory for the pod already. */
  async directory(podUid: string, path: string, mode: number): Promise<void> {
    if (this.madeByPod.get(podUid)?.get(path) === DIRECTORY) return;
    await mkdir(path, { recursive: true, mode });
    this.note(podUid, path, DIRECTORY);
  }

  /**
   * Writes `content` (created with `mode`) unless this thread already wrote exactly
   * that to the path for the pod; the file's directory is made as directory() does.
   */
  async file(podUid: string, path: string, content: string, mode: number, directory: { path: string; mode: number }): Promise<void> {
    if (this.madeByPod.get(podUid)?.get(path) === content) return;
    await this.inDirectory(podUid, directory.path, directory.mode, () => writeFile(path, content, { mode }));
    this.note(podUid, path, content);
  }

  /** Runs `create` in a directory made as directory() does; if the directory went away since, makes it again and retries once. */
  async inDirectory<T>(podUid: string, directory: string, mode: number, create: () => Promise<T>): Promise<T> {
    await this.directory(podUid, directory, mode);
    try {
      return await create();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.madeByPod.get(podUid)?.delete(directory);
      await this.directory(podUid, directory, mode);
      return create();
    }
  }

  /** Whether this thread made the directory for the pod. */
  hasDirectory(podUid: string, path: string): boolean {
    return this.madeByPod.get(podUid)?.get(path) === DIRECTORY;
  }

  /** Notes a directory made by other means (with checks of its own, as emptyDir's chmod). */
  noteDirectory(podUid: string, path: string): void {
    this.note(podUid, path, DIRECTORY);
  }

  /** The pod's directories are being removed: whatever is made for it next is made afresh. */
  forgetPod(podUid: string): void {
    this.madeByPod.delete(podUid);
  }

  /** Pods with something recorded, for tests. */
  get podCount(): number {
    return this.madeByPod.size;
  }

  private note(podUid: string, path: string, made: Made): void {
    let paths = this.madeByPod.get(podUid);
    if (!paths) {
      paths = new Map();
      this.madeByPod.set(podUid, paths);
    }
    paths.set(path, made);
  }
}

/** This thread's record. */
export const podPathsMade = new PodPathsMade();
