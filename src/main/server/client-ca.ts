// authentication.x509.clientCAFile as upstream's DynamicFileCAContent keeps it:
// read at start-up (a missing or certificate-less file fails start-up naming the
// field), then read again whenever the file changes (a watch on its directory, so
// an editor's or a tool's rename-into-place is seen, and a check every minute as
// the fallback), and served from then on. A new content that holds no certificate
// is logged and ignored: the bundle in use stays until a good one replaces it.
import { X509Certificate } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';

/** Upstream's FileRefreshDuration: the periodic re-read besides the file watch. */
export const CLIENT_CA_REFRESH_MS = 60_000;
/** Change events come in bursts (truncate, write, rename); one read after the burst. */
const RELOAD_SETTLE_MS = 100;
const CLIENT_CA_FIELD = 'authentication.x509.clientCAFile';

/** One loaded bundle: its PEM for the TLS context, and the SHA-256 fingerprints of its certificates. */
export interface ClientCaBundle {
  pem: string;
  fingerprints: ReadonlySet<string>;
}

/** What the authenticator needs: the bundle in use now. */
export interface ClientCaSource {
  current(): ClientCaBundle;
}

/** The certificates of a PEM bundle; throws when it holds none or one does not parse. */
export function parseCaBundle(pem: string): ClientCaBundle {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error('holds no PEM certificate');
  const fingerprints = new Set(blocks.map((block) => new X509Certificate(block).fingerprint256));
  return { pem, fingerprints };
}

export class DynamicClientCa extends EventEmitter<{ changed: [ClientCaBundle] }> implements ClientCaSource {
  private watcher?: FSWatcher;
  private pollTimer?: NodeJS.Timeout;
  private settleTimer?: NodeJS.Timeout;

  private constructor(
    readonly file: string,
    private bundle: ClientCaBundle,
    private readonly logger: Logger,
  ) {
    super();
  }

  /** Reads the file once; an unreadable file or one without a certificate fails start-up naming the field. */
  static async load(file: string, logger: Logger): Promise<DynamicClientCa> {
    const fail = (reason: string) =>
      new ShardletError(ErrorCodes.CONFIG_INVALID, `${CLIENT_CA_FIELD} (--client-ca-file) ${file}: ${reason}`, { field: CLIENT_CA_FIELD, path: file });
    let pem: string;
    try {
      pem = await readFile(file, 'utf8');
    } catch (err) {
      throw fail(`cannot read the client CA file: ${(err as Error).message}`);
    }
    try {
      return new DynamicClientCa(file, parseCaBundle(pem), logger);
    } catch (err) {
      throw fail((err as Error).message);
    }
  }

  current(): ClientCaBundle {
    return this.bundle;
  }

  /** Watches the file from now on. */
  start(): void {
    const name = path.basename(this.file);
    try {
      this.watcher = watch(path.dirname(this.file), (_event, changed) => {
        if (changed === null || changed === name) this.reloadSoon();
      });
      this.watcher.unref();
      this.watcher.on('error', (err) => this.logger.warn({ err: err.message, file: this.file }, 'client CA file watch failed; checking it every minute'));
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, file: this.file }, 'cannot watch the client CA file; checking it every minute');
    }
    this.pollTimer = setInterval(() => void this.reload(), CLIENT_CA_REFRESH_MS);
    this.pollTimer.unref();
  }

  stop(): void {
    this.watcher?.close();
    clearInterval(this.pollTimer);
    clearTimeout(this.settleTimer);
  }

  /** Reads the file again; a new valid bundle replaces the one in use and is announced. Resolves true when it changed. */
  async reload(): Promise<boolean> {
    let pem: string;
    try {
      pem = await readFile(this.file, 'utf8');
    } catch (err) {
      this.logger.error({ err: (err as Error).message, file: this.file }, 'cannot read the client CA file; keeping the bundle in use');
      return false;
    }
    if (pem === this.bundle.pem) return false;
    let bundle: ClientCaBundle;
    try {
      bundle = parseCaBundle(pem);
    } catch (err) {
      this.logger.error({ err: (err as Error).message, file: this.file }, 'the client CA file holds no usable certificate; keeping the bundle in use');
      return false;
    }
    this.bundle = bundle;
    this.logger.info({ file: this.file, certificates: bundle.fingerprints.size }, 'Loaded a new CA Bundle and Verifier');
    this.emit('changed', bundle);
    return true;
  }

  private reloadSoon(): void {
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => void this.reload(), RELOAD_SETTLE_MS);
    this.settleTimer.unref();
  }
}
