// --state-dir: what the test API server keeps across restarts of its process, so
// that a test can take it away and bring it back as a real control plane comes
// back (etcd and the PKI outlive kube-apiserver): the CA and serving certificate
// (pki/, so every kubeconfig written before stays valid), the service-account token
// signing key, every object with the resourceVersion counter (store.json, saved
// shortly after each change and at stop), and the port (server.json).
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Store, StoreSnapshot } from './store.js';

/** How long after a change the store is saved: a burst of writes costs one save. */
export const STORE_SAVE_DELAY_MS = 100;

export interface SavedServerState {
  snapshot?: StoreSnapshot;
  signingKey?: Buffer;
  port?: number;
}

export function pkiDirOf(stateDir: string): string {
  return path.join(stateDir, 'pki');
}

async function readIfThere(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes through a temp file and a rename, so a crash never leaves half a file. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const temp = `${file}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  await rename(temp, file);
}

/** What an earlier start left in the state directory (nothing, the first time). */
export async function loadServerState(stateDir: string): Promise<SavedServerState> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const storeText = await readIfThere(path.join(stateDir, 'store.json'));
  const keyText = await readIfThere(path.join(stateDir, 'sa-signing.key'));
  const serverText = await readIfThere(path.join(stateDir, 'server.json'));
  const state: SavedServerState = {};
  try {
    if (storeText) state.snapshot = JSON.parse(storeText) as StoreSnapshot;
    if (serverText) state.port = (JSON.parse(serverText) as { port?: number }).port;
  } catch (err) {
    throw new Error(`${stateDir}: unreadable test API server state: ${(err as Error).message}`, { cause: err });
  }
  if (keyText) state.signingKey = Buffer.from(keyText.trim(), 'base64');
  return state;
}

export async function saveSigningKey(stateDir: string, key: Buffer): Promise<void> {
  await writeAtomically(path.join(stateDir, 'sa-signing.key'), `${key.toString('base64')}\n`);
}

export async function savePort(stateDir: string, port: number): Promise<void> {
  await writeAtomically(path.join(stateDir, 'server.json'), `${JSON.stringify({ port })}\n`);
}

/** Saves the store shortly after it changes, one save at a time. */
export class StoreSaver {
  private timer?: NodeJS.Timeout;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly stateDir: string,
    private readonly store: Store,
  ) {}

  /** A change happened: save soon. */
  schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.save();
    }, STORE_SAVE_DELAY_MS);
  }

  /** Saves now (at stop), after any save under way. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.save();
  }

  private save(): Promise<void> {
    const text = JSON.stringify(this.store.snapshot());
    this.saving = this.saving.then(() => writeAtomically(path.join(this.stateDir, 'store.json'), text));
    return this.saving;
  }
}
