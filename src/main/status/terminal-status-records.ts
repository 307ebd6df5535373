// The terminal status of static pods, kept across restarts of shardlet. An API pod's
// terminal phase lives on the API server, and upstream never runs a pod again whose
// status is terminal; a static pod has no API status, so without a record of its own
// a restart that finds the runtime empty (CRI-O wipes its containers at reboot)
// would run a finished restartPolicy Never / OnFailure pod again. The record is one
// small file in the pod's directory, <rootDir>/pods/<uid>/terminal-status.json
// (upstream keeps pod directories there too): it is written once the pod has
// terminated and is still in its source, and it goes with the pod directory when
// the pod is removed. The UID is the pod's, so the directory is joined through
// src/shared/safe-path.ts: a UID that is not one plain segment gets no record.
import { mkdir, readdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ErrorCodes } from '../../shared/errors.js';
import { joinPathSegment } from '../../shared/safe-path.js';
import type { PodStatus } from '../../shared/types.js';

export const TERMINAL_STATUS_FILE = 'terminal-status.json';
const TERMINAL_PHASES: ReadonlySet<string> = new Set(['Succeeded', 'Failed']);
/** Upstream makes pod directories 0750 (makePodDataDirs). */
const POD_DIR_MODE = 0o750;

interface TerminalStatusRecord {
  uid: string;
  status: PodStatus;
}

export function isTerminalPhase(phase: string | undefined): boolean {
  return phase !== undefined && TERMINAL_PHASES.has(phase);
}

export class TerminalStatusRecords {
  private readonly statusByUid = new Map<string, PodStatus>();
  /** File work per pod, in order: a removal never overtakes the write before it. */
  private readonly fileWorkByUid = new Map<string, Promise<void>>();

  constructor(
    private readonly rootDir: string,
    private readonly logger: Logger,
  ) {}

  /** Reads every pod directory's record, before any source delivers its pods. */
  async load(): Promise<void> {
    let uids: string[];
    try {
      uids = await readdir(this.podsDir());
    } catch {
      return;
    }
    await Promise.all(uids.map((uid) => this.loadOne(uid)));
    if (this.statusByUid.size > 0) this.logger.info({ pods: this.statusByUid.size }, 'Found terminal static pod statuses from before this start');
  }

  private async loadOne(uid: string): Promise<void> {
    const file = this.fileOf(uid);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      return; // no record: the pod did not finish
    }
    try {
      const record = JSON.parse(text) as TerminalStatusRecord;
      if (record.uid !== uid || !isTerminalPhase(record.status?.phase)) throw new Error('not a terminal status of this pod');
      this.statusByUid.set(uid, record.status);
    } catch (err) {
      this.logger.warn({ code: ErrorCodes.POD_STATUS_RECORD, file, err: (err as Error).message }, 'Ignoring an unreadable terminal pod status record');
    }
  }

  get(uid: string): PodStatus | undefined {
    return this.statusByUid.get(uid);
  }

  /** Keeps a static pod's terminal status, in memory and on disk (write to a temp file, then rename). */
  record(uid: string, status: PodStatus): void {
    if (!isTerminalPhase(status.phase) || uid === '') return;
    this.statusByUid.set(uid, status);
    this.enqueue(uid, async () => {
      await mkdir(this.dirOf(uid), { recursive: true, mode: POD_DIR_MODE });
      const temp = `${this.fileOf(uid)}.tmp`;
      await writeFile(temp, JSON.stringify({ uid, status } satisfies TerminalStatusRecord));
      await rename(temp, this.fileOf(uid));
    });
  }

  /** The pod is gone from its source: its record goes too (and its directory, if nothing else is left there). */
  forget(uid: string): void {
    if (!this.statusByUid.delete(uid) && !this.fileWorkByUid.has(uid)) return;
    this.enqueue(uid, async () => {
      await rm(this.fileOf(uid), { force: true });
      await rmdir(this.dirOf(uid)).catch(() => undefined);
    });
  }

  /**
   * Once every source has delivered its pods: records of pods no source has any
   * more (deleted while shardlet was down, with the runtime emptied too, so no
   * orphan cleanup comes by) go, as upstream's cleanupOrphanedPodDirs.
   */
  pruneExcept(wanted: (uid: string) => boolean): void {
    for (const uid of [...this.statusByUid.keys()]) if (!wanted(uid)) this.forget(uid);
  }

  /** Resolves once every write and removal queued so far is on disk (a stop waits for it: a lost record reruns a finished pod). */
  async flush(): Promise<void> {
    await Promise.all([...this.fileWorkByUid.values()]);
  }

  private enqueue(uid: string, work: () => Promise<void>): void {
    const previous = this.fileWorkByUid.get(uid) ?? Promise.resolve();
    const next = previous
      .then(work)
      .catch((err: unknown) => {
        this.logger.warn({ code: ErrorCodes.POD_STATUS_RECORD, uid, err: (err as Error).message }, 'Could not update the terminal pod status record');
      })
      .finally(() => {
        if (this.fileWorkByUid.get(uid) === next) this.fileWorkByUid.delete(uid);
      });
    this.fileWorkByUid.set(uid, next);
  }

  private podsDir(): string {
    return join(this.rootDir, 'pods');
  }

  private dirOf(uid: string): string {
    return joinPathSegment(this.podsDir(), 'metadata.uid', uid);
  }

  private fileOf(uid: string): string {
    return join(this.dirOf(uid), TERMINAL_STATUS_FILE);
  }
}
