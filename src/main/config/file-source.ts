// The file pod source, as upstream's sourceFile (pkg/kubelet/config/file.go,
// file_linux.go): static pod manifests in staticPodPath, a directory (dotfiles
// ignored, no recursion) or a single file. A full rescan runs every
// fileCheckFrequency, and fs.watch triggers an early one; every scan sends the
// complete set as a SET update from source "file".
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
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { ErrorCodes } from '../../shared/errors.js';
import { parsePodManifest } from '../../shared/manifest/parse-manifest.js';
import { applyStaticPodDefaults } from '../../shared/manifest/static-pod.js';
import { podRef } from '../../shared/pod-kinds.js';
import { FILE_SOURCE, podFullName, type Pod, type PodUpdate } from '../../shared/types.js';
import { readManifestEntry } from './manifest-file.js';

/** Quiet time after a watch event before the rescan, so one editor save makes one scan. */
export const FILE_WATCH_DEBOUNCE_MS = 100;

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

interface ManifestRead {
  bytes: Buffer;
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
  private watcher?: FSWatcher;
  private watchedInode?: number;
  private timer?: NodeJS.Timeout;
  private debounceTimer?: NodeJS.Timeout;
  private scanning?: Promise<void>;
  private pendingReason?: ScanReason;
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
    clearTimeout(this.debounceTimer);
    this.closeWatcher();
  }

  /** A full periodic scan now; resolves when it (and any scan queued behind it) is done. */
  rescan(): Promise<void> {
    return this.requestScan('period');
  }

  private requestScan(reason: ScanReason): Promise<void> {
    if (this.scanning) {
      // A periodic scan asked for while another runs wins over a watch scan.
      this.pendingReason = this.pendingReason === 'period' || reason === 'period' ? 'period' : 'watch';
      return this.scanning;
    }
    this.scanning = this.runScans(reason).finally(() => {
      this.scanning = undefined;
    });
    return this.scanning;
  }

  private async runScans(first: ScanReason): Promise<void> {
    let next: ScanReason | undefined = first;
    while (next !== undefined && !this.stopped) {
      this.pendingReason = undefined;
      await this.scan(next);
      next = this.pendingReason;
    }
  }

  private async scan(reason: ScanReason): Promise<void> {
    this.problemsThisScan.clear();
    await this.scanPath(reason);
    for (const file of this.reportedByFile.keys()) if (!this.problemsThisScan.has(file)) this.reportedByFile.delete(file);
  }

  private async scanPath(reason: ScanReason): Promise<void> {
    const { logger } = this.options;
    let info;
    try {
      info = await stat(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        logger.error({ path: this.path, err: (err as Error).message }, 'Unable to read static pod path');
        return;
      }
      if (!this.missingLogged) logger.info({ path: this.path }, 'Static pod path does not exist, ignoring');
      this.missingLogged = true;
      // As upstream: an empty SET still marks the file source as seen.
      this.send([]);
      return;
    }
    this.missingLogged = false;
    this.singleFile = info.isFile();
    if (info.isDirectory()) {
      const pods = await this.readDirectory(reason);
      if (pods) this.send(pods);
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
  }

  /**
   * As upstream's extractFromDir: sorted names, dotfiles skipped, subdirectories not
   * entered. Undefined when the directory cannot be listed: then nothing is sent,
   * rather than an empty set that would remove every static pod.
   */
  private async readDirectory(reason: ScanReason): Promise<Pod[] | undefined> {
    let entries: string[];
    try {
      entries = await readdir(this.path);
    } catch (err) {
      this.options.logger.error({ path: this.path, err: (err as Error).message }, 'Unable to list static pod directory');
      return undefined;
    }
    const names = entries.filter((name) => !name.startsWith('.')).sort();
    const pods: Pod[] = [];
    const present = new Set(names.map((name) => join(this.path, name)));
    /** As upstream's merge, the first file (in name order) keeps a pod name; later ones are reported with both files named. */
    const fileByPodName = new Map<string, string>();
    for (const name of names) {
      const file = join(this.path, name);
      const read = await this.readManifest(file, reason);
      if (!read) continue;
      const { pod, fingerprint } = read;
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
    for (const file of this.lastReadByFile.keys()) {
      if (present.has(file)) continue;
      this.lastReadByFile.delete(file);
      this.lastGoodPodByFile.delete(file);
    }
    return pods;
  }

  /**
   * The file's pod and the fingerprint it was read with, or undefined when the file
   * cannot be used (reported once per problem and file version, see report()).
   */
  private async readManifest(file: string, reason: ScanReason): Promise<{ pod: Pod; fingerprint: string } | undefined> {
    const entry = await readManifestEntry(file);
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
    const { bytes, fingerprint } = entry;
    const previous = this.lastReadByFile.get(file);
    if (previous?.bytes.equals(bytes)) {
      if (previous.pod) return { pod: previous.pod, fingerprint };
      if (previous.problem) this.report(file, previous.problem);
      return this.unusable(file, reason, fingerprint);
    }
    try {
      const pod = applyStaticPodDefaults(parsePodManifest(bytes, file), { source: FILE_SOURCE, location: file, nodeName: this.options.nodeName });
      this.lastReadByFile.set(file, { bytes, pod });
      this.lastGoodPodByFile.set(file, pod);
      return { pod, fingerprint };
    } catch (err) {
      const code = (err as { code?: string }).code ?? ErrorCodes.MANIFEST_INVALID;
      // The coded error's reason already leaves the path out; anything else is a bug worth its whole message.
      const detail = (err as { details?: { reason?: unknown } }).details?.reason;
      const why = typeof detail === 'string' ? detail : (err as Error).message;
      // Keyed by content, not file times: a rewrite with the same bad bytes is not news.
      const problem = { code, reason: why, fingerprint: createHash('sha256').update(bytes).digest('hex'), message: 'Invalid static pod manifest, skipping it' };
      this.lastReadByFile.set(file, { bytes, problem });
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
    clearTimeout(this.debounceTimer);
    this.debounceTimer = setTimeout(() => void this.requestScan('watch'), FILE_WATCH_DEBOUNCE_MS);
  }

  private closeWatcher(): void {
    this.watcher?.close();
    this.watcher = undefined;
    this.watchedInode = undefined;
  }
}
