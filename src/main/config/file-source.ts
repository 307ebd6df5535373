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
import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { ErrorCodes } from '../../shared/errors.js';
import { MAX_MANIFEST_BYTES, parsePodManifest } from '../../shared/manifest/parse-manifest.js';
import { applyStaticPodDefaults } from '../../shared/manifest/static-pod.js';
import { FILE_SOURCE, type Pod, type PodUpdate } from '../../shared/types.js';

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
  text: string;
  pod?: Pod;
}

export class FileSource {
  private readonly path: string;
  /** Last text read from each file and its pod, so unchanged files are not decoded again. */
  private readonly lastReadByFile = new Map<string, ManifestRead>();
  /** Last pod each file produced, kept through watch-triggered scans while the file is malformed. */
  private readonly lastGoodPodByFile = new Map<string, Pod>();
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
      const pod = await this.readManifest(this.path, 'period');
      if (pod) this.send([pod]);
    } else {
      logger.error({ path: this.path }, 'Static pod path is not a directory or file');
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
    const present = new Set<string>();
    for (const name of names) {
      const file = join(this.path, name);
      const info = await stat(file).catch(() => undefined);
      if (!info?.isFile()) {
        const why = !info ? 'Manifest path vanished or cannot be read' : info.isDirectory() ? 'Not recursing into manifest path' : 'Manifest path is not a file';
        this.options.logger.debug({ path: file }, why);
        continue;
      }
      present.add(file);
      const pod = await this.readManifest(file, reason, info.size);
      if (pod) pods.push(pod);
    }
    for (const file of [...this.lastReadByFile.keys()]) {
      if (present.has(file)) continue;
      this.lastReadByFile.delete(file);
      this.lastGoodPodByFile.delete(file);
    }
    return pods;
  }

  /** The file's pod, or undefined when it cannot be used (logged once per content). */
  private async readManifest(file: string, reason: ScanReason, sizeBytes?: number): Promise<Pod | undefined> {
    let text: string;
    try {
      if ((sizeBytes ?? (await stat(file)).size) > MAX_MANIFEST_BYTES) throw new Error(`larger than ${MAX_MANIFEST_BYTES} bytes`);
      text = await readFile(file, 'utf8');
    } catch (err) {
      this.options.logger.error({ code: ErrorCodes.MANIFEST_INVALID, path: file, reason: (err as Error).message }, 'Cannot read static pod manifest, skipping it');
      return this.unusable(file, reason);
    }
    const previous = this.lastReadByFile.get(file);
    if (previous?.text === text) return previous.pod ?? this.unusable(file, reason);
    try {
      const pod = applyStaticPodDefaults(parsePodManifest(text, file), { source: FILE_SOURCE, location: file, nodeName: this.options.nodeName });
      this.lastReadByFile.set(file, { text, pod });
      this.lastGoodPodByFile.set(file, pod);
      return pod;
    } catch (err) {
      this.lastReadByFile.set(file, { text });
      const code = (err as { code?: string }).code ?? ErrorCodes.MANIFEST_INVALID;
      this.options.logger.error({ code, path: file, reason: (err as Error).message }, 'Invalid static pod manifest, skipping it');
      return this.unusable(file, reason);
    }
  }

  /** A malformed file keeps its last pod on watch scans only; a periodic scan drops it (see the top of the file). */
  private unusable(file: string, reason: ScanReason): Pod | undefined {
    if (reason === 'watch') return this.lastGoodPodByFile.get(file);
    this.lastGoodPodByFile.delete(file);
    return undefined;
  }

  private send(pods: Pod[]): void {
    if (!this.stopped) this.options.onUpdate({ op: 'SET', source: FILE_SOURCE, pods });
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
