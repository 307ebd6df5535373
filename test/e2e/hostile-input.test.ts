// The hostile manifest corpus through the real process on the simulated runtime:
// shardlet starts and stays up, the good pods beside the corpus run, and every
// bad file is named in the log once (at error level, the default level shows it),
// not again on later rescans.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startSimRuntime } from '../../src/simruntime/server.js';
import { freePort } from '../../src/tools/free-port.js';
import type { Pod } from '../../src/shared/types.js';
import { CORPUS, writeCorpus } from '../fixtures/hostile-corpus.js';
import { PACKAGE_ROOT, waitUntil } from '../helpers/kubelet-process.js';

const CLI = join(PACKAGE_ROOT, 'dist/src/main/cli.js');
const START_TIMEOUT_MS = 60_000;
const ERROR_LEVEL = 50;
/** Rescans each bad file must survive without being logged again. */
const RESCANS_WATCHED = 3;

interface Shardlet {
  child: ChildProcess;
  logs: Array<Record<string, unknown>>;
  /** Everything written to stderr so far. */
  readonly stderr: string;
  pods(): Promise<Pod[]>;
  stop(): Promise<void>;
}

/** Starts shardlet in its own process group, so stopping it stops everything it started. */
async function startShardlet(endpoint: string, manifestDir: string, rootDir: string): Promise<Shardlet> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      CLI,
      `--container-runtime-endpoint=${endpoint}`,
      `--pod-manifest-path=${manifestDir}`,
      `--root-dir=${rootDir}`,
      `--read-only-port=${port}`,
      '--workers=1',
      '--hostname-override=test-node',
      '--file-check-frequency=1s',
      '--v=4',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  const logs: Array<Record<string, unknown>> = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    logs,
    async pods() {
      const reply = await fetch(`http://127.0.0.1:${port}/pods`);
      return ((await reply.json()) as { items: Pod[] }).items;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    },
    get stderr() {
      return stderr;
    },
  };
}

function running(pods: Pod[], name: string): boolean {
  return pods.some((pod) => pod.metadata?.name === `${name}-test-node` && pod.status?.phase === 'Running');
}

const GOOD_PODS = ['good', ...CORPUS.filter((entry) => entry.outcome === 'accepted').map((entry) => entry.podName!)];
const REFUSED = CORPUS.filter((entry) => entry.outcome === 'refused');

let sim: Awaited<ReturnType<typeof startSimRuntime>> | undefined;
let shardlet: Shardlet | undefined;
after(async () => {
  await shardlet?.stop();
  await sim?.close();
});

test('the hostile corpus beside good pods: shardlet stays up, good pods run, each bad file is logged once', async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-hostile-'));
  const socketPath = join(workDir, 'sim.sock');
  sim = await startSimRuntime({ socketPath });
  const manifestDir = join(workDir, 'manifests');
  await writeCorpus(manifestDir);
  await writeFile(join(manifestDir, 'good.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: good\nspec:\n  containers:\n    - name: c\n      image: busybox:1.35\n');
  shardlet = await startShardlet(`unix://${socketPath}`, manifestDir, join(workDir, 'root'));
  const current = shardlet;
  const alive = () => {
    if (current.child.exitCode !== null || current.child.signalCode !== null) {
      throw new Error(`shardlet exited (${current.child.exitCode ?? current.child.signalCode}): ${current.stderr.slice(-2_000)}`);
    }
  };

  // A shardlet that exits fails the test at once, with its last words, rather than at the timeout.
  const exitedEarly = new Promise<never>((_resolve, reject) => current.child.once('exit', () => reject(new Error('exited'))));
  exitedEarly.catch(() => undefined);
  const orExit = <T>(waiting: Promise<T>) => Promise.race([waiting, exitedEarly.catch(() => alive() as never)]);

  await orExit(
    waitUntil(async () => {
      const pods = await current.pods();
      return GOOD_PODS.every((name) => running(pods, name));
    }, START_TIMEOUT_MS, `pods ${GOOD_PODS.join(', ')} Running`),
  );

  const errorsFor = (name: string) => current.logs.filter((line) => line.level === ERROR_LEVEL && line.path === join(manifestDir, name));
  const repeatsFor = (name: string) => current.logs.filter((line) => line.path === join(manifestDir, name) && String(line.msg).endsWith('(reported before)'));
  // Every bad file is named at error level, and later periodic rescans (seen in their debug lines) log it no more.
  const pending = () => REFUSED.filter((entry) => errorsFor(entry.name).length === 0 || repeatsFor(entry.name).length < RESCANS_WATCHED);
  await orExit(waitUntil(async () => pending().length === 0, START_TIMEOUT_MS, `every refused file logged and rescanned ${RESCANS_WATCHED} times`)).catch((err: Error) => {
    const detail = pending().map((entry) => `${entry.name}: ${errorsFor(entry.name).length} errors, ${repeatsFor(entry.name).length} repeats`);
    throw new Error(`${err.message}; pending: ${detail.join('; ')}`);
  });
  for (const entry of REFUSED) {
    const errors = errorsFor(entry.name);
    assert.equal(errors.length, 1, `${entry.name} logged once at error level: ${JSON.stringify(errors)}`);
    assert.match(String(errors[0]!.reason), entry.reason!, entry.name);
  }
  const pods = await current.pods();
  for (const name of GOOD_PODS) assert.ok(running(pods, name), `${name} still Running`);
  assert.deepEqual(
    pods.map((pod) => pod.metadata?.name).sort(),
    GOOD_PODS.map((name) => `${name}-test-node`).sort(),
    'no pod from a refused file',
  );
  alive();
});
