// The file pod source, as upstream's sourceFile (pkg/kubelet/config/file.go,
// file_linux.go): static pod manifests in staticPodPath, a directory (dotfiles
// ignored, no recursion) or a single file. A full rescan runs every
// fileCheckFrequency. Between them fs.watch events name the files that changed, and
// only those are read again, as upstream's inotify handler adds or deletes one
// file's pod (gathered over FILE_WATCH_BATCH_MS, so one editor save is one read):
// on a dense node with churn, reading all 500 manifests on every event cost more
// than starting the pods. Every scan sends the complete set as a SET update from
// source "file".
//
// A malformed manifest behaves as upstream's: it is logged (with its path and
// reason) and skipped, and the other pods keep running. A file that *becomes*
// malformed keeps its previous pod on watch-triggered scans (upstream's watch
// handler returns an error and leaves its store alone, which rides out editors'
// partial writes), but the next periodic rescan leaves it out of the SET, so its
// pod is removed, as upstream's listConfig does. When staticPodPath is a single
// file, a malformed file sends no update at all, so its pod keeps running.
import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { ErrorCodes } from '../../shared/errors.js';
import { parsePodManifest } from '../../shared/manifest/parse-manifest.js';
import { applyStaticPodDefaults } from '../../shared/manifest/static-pod.js';
import { podRef } from '../../shared/pod-kinds.js';
import { FILE_SOURCE, podFullName, type Pod, type PodUpdate } from '../../shared/types.js';
import { readManifestEntry } from './manifest-file.js';

/**
 * Watch events are gathered for this long after the first before the files they
 * name are read, so one editor save (write, rename) makes one read. Not a debounce
 * that later events push back: under a steady stream of changes that would wait
 * for a quiet moment that never comes.
 */
export const FILE_WATCH_BATCH_MS = 100;

export interface FileSourceOptions {
  /** KubeletConfiguration.staticPodPath: a directory of manifests or one manifest file. */
  path: string;
  nodeName: string;
  /** fileCheckFrequency. */
  periodMs: number;
  logger: Logger;
  onUpdate: (update: PodUpdate) => void;
}

type ScanReason = 'period' | 'watch';

/** A full scan lists the path and reads every file; a files scan reads only the entries watch events named. */
type ScanWork = { kind: 'full'; reason: ScanReason } | { kind: 'files'; names: string[] };

/** What a file in the directory gave on its last read: its pod, or undefined when it makes none. */
type FileOutcome = { pod: Pod; fingerprint: string } | undefined;

interface ManifestRead {
  bytes: Buffer;
  /** The file's fingerprint when these bytes were read, and when: a periodic rescan's stat showing it again means the same bytes. */
  fingerprint: string;
  readAtMs: number;
  pod?: Pod;
  /** Why these bytes make no pod. */
  problem?: Problem;
}

/** A file's current problem, logged at error level once and again only when the file or the problem changes. */
interface Problem {
  code: string;
  reason: string;
  fingerprint: string;
  message: string;
  fields?: Record<string, unknown>;
}

export class FileSource {
  private readonly path: string;
  /** Last text read from each file and its pod, so unchanged files are not decoded again. */
  private readonly lastReadByFile = new Map<string, ManifestRead>();
  /** Last pod each file produced, kept through watch-triggered scans while the file is malformed. */
  private readonly lastGoodPodByFile = new Map<string, Pod>();
  /** What was last logged about each file, so a rescan does not repeat it. */
  private readonly reportedByFile = new Map<string, string>();
  /** Files with a problem in the scan under way; the others' reports are forgotten when it ends, so a relapse is logged. */
  private readonly problemsThisScan = new Set<string>();
  /** Each entry of the directory as of its last read, so a files scan can send the whole set having read a few. */
  private readonly outcomeByFile = new Map<string, FileOutcome>();
  /** The directory the last full scan listed; a files scan is only trusted while the path is still that directory. */
  private listedInode?: number;
  private watcher?: FSWatcher;
  private watchedInode?: number;
  private timer?: NodeJS.Timeout;
  private batchTimer?: NodeJS.Timeout;
  private scanning?: Promise<void>;
  /** The full scan wanted next: a periodic one wins over a watch one (which keeps malformed files' last pods). */
  private pendingFullScan?: ScanReason;
  /** Entries named by watch events since the last scan began. */
  private readonly pendingNames = new Set<string>();
  private missingLogged = false;
  /** staticPodPath is one file, so the watch is on its directory and filters by name. */
  private singleFile = false;
  private stopped = false;

  constructor(private readonly options: FileSourceOptions) {
    this.path = options.path.replace(/(.)\/+$/, '$1');
  }

  /** Runs the first scan (so the source is seen early), then watches and rescans periodically. */
  async start(): Promise<void> {
    this.options.logger.info({ path: this.path }, 'Watching static pod path');
    await this.rescan();
    this.timer = setInterval(() => void this.rescan(), this.options.periodMs);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.batchTimer);
    this.closeWatcher();
  }

  /** A full periodic scan now; resolves when it (and any scan queued behind it) is done. */
  rescan(): Promise<void> {
    this.pendingFullScan = 'period';
    return this.drain();
  }

  /** Runs the scans asked for, one at a time, until none is left; a request made meanwhile joins the run. */
  private drain(): Promise<void> {
    if (this.scanning) return this.scanning;
    // A batch timer may find its names already taken by the scan that ran meanwhile: then there is nothing to run.
    const work = this.takeWork();
    if (!work || this.stopped) return Promise.resolve();
    this.scanning = this.runScans(work);
    return this.scanning;
  }

  private async runScans(first: ScanWork): Promise<void> {
    try {
      for (let work: ScanWork | undefined = first; work && !this.stopped; work = this.takeWork()) await this.scan(work);
    } finally {
      // Cleared in the same step that found nothing left, so a request cannot slip between and wait on a finished run.
      this.scanning = undefined;
    }
  }

  private takeWork(): ScanWork | undefined {
    const reason = this.pendingFullScan;
    if (reason) {
      // Reads every file after this point, so the names gathered so far are covered.
      this.pendingFullScan = undefined;
      this.pendingNames.clear();
      return { kind: 'full', reason };
    }
    if (this.pendingNames.size === 0) return undefined;
    const names = [...this.pendingNames];
    this.pendingNames.clear();
    return { kind: 'files', names };
  }

  private async scan(work: ScanWork): Promise<void> {
    this.problemsThisScan.clear();
    const judged = work.kind === 'full' ? await this.scanPath(work.reason) : await this.scanFiles(work.names);
    for (const file of this.reportedByFile.keys()) {
      if (!this.problemsThisScan.has(file) && (judged === 'every file' || judged.has(file) || this.reportedAsDuplicate(file))) this.reportedByFile.delete(file);
    }
  }

  /**
   * Reads again only the directory entries watch events named, then sends the whole
   * set. Returns the files it judged; the others keep what was reported about them,
   * except duplicates, which are judged again over every file.
   */
  private async scanFiles(names: string[]): Promise<Set<string> | 'every file'> {
    const info = await stat(this.path).catch(() => undefined);
    // The first scan, a path replaced or no longer a directory: only a full listing knows what is there.
    if (!info?.isDirectory() || info.ino !== this.listedInode) return this.scanPath('watch');
    const judged = new Set<string>();
    for (const name of names) {
      const file = join(this.path, name);
      judged.add(file);
      if (await isGone(file)) {
        this.forgetFile(file);
      } else {
        this.outcomeByFile.set(file, await this.readManifest(file, 'watch'));
      }
    }
    this.send(this.directoryPods());
    return judged;
  }

  private reportedAsDuplicate(file: string): boolean {
    return this.reportedByFile.get(file)?.startsWith(`${ErrorCodes.MANIFEST_DUPLICATE}|`) ?? false;
  }

  private forgetFile(file: string): void {
    this.outcomeByFile.delete(file);
    this.lastReadByFile.delete(file);
    this.lastGoodPodByFile.delete(file);
  }

  /** The full scan: lists the path (or reads the one file) and judges every file. */
  private async scanPath(reason: ScanReason): Promise<'every file'> {
    const { logger } = this.options;
    let info;
    this.listedInode = undefined;
    try {
      info = await stat(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        logger.error({ path: this.path, err: (err as Error).message }, 'Unable to read static pod path');
        return 'every file';
      }
      if (!this.missingLogged) logger.info({ path: this.path }, 'Static pod path does not exist, ignoring');
      this.missingLogged = true;
      // As upstream: an empty SET still marks the file source as seen.
      this.send([]);
      return 'every file';
    }
    this.missingLogged = false;
    this.singleFile = info.isFile();
    if (info.isDirectory()) {
      if (await this.readDirectory(reason)) {
        this.listedInode = info.ino;
        this.send(this.directoryPods());
      }
    } else if (info.isFile()) {
      // One file: a malformed file sends nothing on any scan, so the merge keeps its pod.
      const read = await this.readManifest(this.path, 'period');
      if (read) this.send([read.pod]);
    } else {
      this.report(this.path, {
        code: ErrorCodes.MANIFEST_INVALID,
        reason: 'not a directory or a regular file',
        fingerprint: `${info.ino}:${info.mode}:${info.ctimeMs}`,
        message: 'Static pod path is not a directory or file',
      });
    }
    this.ensureWatch(info.isDirectory() ? this.path : dirname(this.path), reason);
    return 'every file';
  }

  /**
   * As upstream's extractFromDir: dotfiles skipped, subdirectories not entered; every
   * file read into outcomeByFile. False when the directory cannot be listed: then
   * nothing is sent, rather than an empty set that would remove every static pod.
   */
  private async readDirectory(reason: ScanReason): Promise<boolean> {
    let entries: string[];
    try {
      entries = await readdir(this.path);
    } catch (err) {
      this.options.logger.error({ path: this.path, err: (err as Error).message }, 'Unable to list static pod directory');
      return false;
    }
    const present = new Set(entries.filter((name) => !name.startsWith('.')).sort().map((name) => join(this.path, name)));
    for (const file of new Set([...this.outcomeByFile.keys(), ...this.lastReadByFile.keys()])) if (!present.has(file)) this.forgetFile(file);
    for (const file of present) this.outcomeByFile.set(file, await this.readManifest(file, reason));
    return true;
  }

  /**
   * The directory's pods in file name order. As upstream's merge, the first file keeps
   * a pod name; later ones are reported with both files named.
   */
  private directoryPods(): Pod[] {
    const pods: Pod[] = [];
    const fileByPodName = new Map<string, string>();
    for (const file of [...this.outcomeByFile.keys()].sort()) {
      const outcome = this.outcomeByFile.get(file);
      if (!outcome) continue;
      const { pod, fingerprint } = outcome;
      const first = fileByPodName.get(podFullName(pod));
      if (first !== undefined) {
        this.report(file, {
          code: ErrorCodes.MANIFEST_DUPLICATE,
          reason: `pod ${podRef(pod)} is already defined by ${first}`,
          fingerprint: `${fingerprint}|${first}`,
          message: 'Static pod manifest duplicates the pod name of another file, skipping it',
          fields: { pod: podRef(pod), duplicateOf: first },
        });
        continue;
      }
      fileByPodName.set(podFullName(pod), file);
      pods.push(pod);
    }
    return pods;
  }

  /**
   * The file's pod and the fingerprint it was read with, or undefined when the file
   * cannot be used (reported once per problem and file version, see report()).
   */
  private async readManifest(file: string, reason: ScanReason): Promise<{ pod: Pod; fingerprint: string } | undefined> {
    const previous = this.lastReadByFile.get(file);
    // Only the periodic rescan trusts a stat: a watch event says the file was touched.
    const readAtMs = Date.now();
    const entry = await readManifestEntry(file, reason === 'period' ? previous : undefined);
    if (entry.kind === 'problem' && entry.fingerprint.endsWith(':gone')) {
      // Removed between the listing and the read: not a problem, as upstream ignores IsNotExist.
      this.options.logger.debug({ path: file }, 'Static pod manifest vanished during the scan');
      return this.unusable(file, reason, entry.fingerprint);
    }
    if (entry.kind === 'problem') {
      const message = entry.reason.startsWith('is a') ? 'Static pod manifest path is not a regular file, skipping it' : 'Cannot read static pod manifest, skipping it';
      this.report(file, { code: ErrorCodes.MANIFEST_INVALID, reason: entry.reason, fingerprint: entry.fingerprint, message });
      return this.unusable(file, reason, entry.fingerprint);
    }
    const { fingerprint } = entry;
    const bytes = entry.kind === 'unchanged' ? previous!.bytes : entry.bytes;
    if (previous?.bytes.equals(bytes)) {
      if (entry.kind === 'bytes') Object.assign(previous, { fingerprint, readAtMs });
      if (previous.pod) return { pod: previous.pod, fingerprint };
      if (previous.problem) this.report(file, previous.problem);
      return this.unusable(file, reason, fingerprint);
    }
    try {
      const pod = applyStaticPodDefaults(parsePodManifest(bytes, file), { source: FILE_SOURCE, location: file, nodeName: this.options.nodeName });
      this.lastReadByFile.set(file, { bytes, fingerprint, readAtMs, pod });
      this.lastGoodPodByFile.set(file, pod);
      return { pod, fingerprint };
    } catch (err) {
      const code = (err as { code?: string }).code ?? ErrorCodes.MANIFEST_INVALID;
      // The coded error's reason already leaves the path out; anything else is a bug worth its whole message.
      const detail = (err as { details?: { reason?: unknown } }).details?.reason;
      const why = typeof detail === 'string' ? detail : (err as Error).message;
      // Keyed by content, not file times: a rewrite with the same bad bytes is not news.
      const problem = { code, reason: why, fingerprint: createHash('sha256').update(bytes).digest('hex'), message: 'Invalid static pod manifest, skipping it' };
      this.lastReadByFile.set(file, { bytes, fingerprint, readAtMs, problem });
      this.report(file, problem);
      return this.unusable(file, reason, fingerprint);
    }
  }

  /**
   * Logs a file's problem at error level the first time, and again only when the
   * file changed or its problem did; repeats on later rescans go to debug, so a
   * bad file left in place does not fill the log every fileCheckFrequency.
   */
  private report(file: string, problem: Problem): void {
    const key = `${problem.code}|${problem.reason}|${problem.fingerprint}`;
    const fields = { code: problem.code, path: file, reason: problem.reason, ...problem.fields };
    this.problemsThisScan.add(file);
    if (this.reportedByFile.get(file) === key) {
      this.options.logger.debug(fields, `${problem.message} (reported before)`);
      return;
    }
    this.reportedByFile.set(file, key);
    this.options.logger.error(fields, problem.message);
  }

  /** A malformed file keeps its last pod on watch scans only; a periodic scan drops it (see the top of the file). */
  private unusable(file: string, reason: ScanReason, fingerprint: string): { pod: Pod; fingerprint: string } | undefined {
    const pod = this.lastGoodPodByFile.get(file);
    if (reason === 'watch' && pod) return { pod, fingerprint };
    if (reason !== 'watch') this.lastGoodPodByFile.delete(file);
    return undefined;
  }

  private send(pods: Pod[]): void {
    if (this.stopped) return;
    try {
      this.options.onUpdate({ op: 'SET', source: FILE_SOURCE, pods });
    } catch (err) {
      // The merge isolates each pod; should it still throw, the scan (and the process) must go on.
      this.options.logger.error({ code: ErrorCodes.INTERNAL, err: (err as Error).message }, 'Handing static pods to the merge failed');
    }
  }

  /** Watches the directory (the parent, for a single file); re-made when the directory was replaced. */
  private ensureWatch(target: string, reason: ScanReason): void {
    if (this.stopped || reason === 'watch') return;
    void stat(target).then((info) => {
      if (this.stopped || (this.watcher && this.watchedInode === info.ino)) return;
      this.closeWatcher();
      try {
        this.watcher = watch(target, { persistent: false }, (_event, filename) => this.onWatchEvent(filename?.toString()));
        this.watcher.on('error', (err) => {
          this.options.logger.warn({ path: target, err: err.message }, 'Static pod path watch failed; rescans continue');
          this.closeWatcher();
        });
        this.watchedInode = info.ino;
      } catch (err) {
        this.options.logger.warn({ path: target, err: (err as Error).message }, 'Cannot watch static pod path; rescans continue');
      }
    }, () => undefined);
  }

  private onWatchEvent(filename: string | undefined): void {
    if (filename && basename(filename).startsWith('.')) return;
    if (filename && this.singleFile && filename !== basename(this.path)) return;
    // An event without a name (the watch's own trouble) or on the single file: read the path again.
    if (filename && !this.singleFile) this.pendingNames.add(basename(filename));
    else this.pendingFullScan ??= 'watch';
    this.batchTimer ??= setTimeout(() => {
      this.batchTimer = undefined;
      void this.drain();
    }, FILE_WATCH_BATCH_MS);
  }

  private closeWatcher(): void {
    this.watcher?.close();
    this.watcher = undefined;
    this.watchedInode = undefined;
  }
}

/** No directory entry by that name any more (a dangling symlink is still an entry, as readdir lists it). */
async function isGone(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
