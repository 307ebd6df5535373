// The hostile manifest corpus through the real process on the simulated runtime:
// shardlet starts and stays up, the good pods beside the corpus run, and every
// bad file is named in the log once (at error level, the default level shows it),
// not again on later rescans.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startSimRuntime } from '../../src/simruntime/server.js';
import type { Pod } from '../../src/shared/types.js';
import { CORPUS, writeCorpus } from '../fixtures/hostile-corpus.js';
import { startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';

const START_TIMEOUT_MS = 60_000;
const ERROR_LEVEL = 50;
/** Rescans each bad file must survive without being logged again. */
const RESCANS_WATCHED = 3;

function running(pods: Pod[], name: string): boolean {
  return pods.some((pod) => pod.metadata?.name === `${name}-test-node` && pod.status?.phase === 'Running');
}

const GOOD_PODS = ['good', ...CORPUS.filter((entry) => entry.outcome === 'accepted').map((entry) => entry.podName!)];
const REFUSED = CORPUS.filter((entry) => entry.outcome === 'refused');

let sim: Awaited<ReturnType<typeof startSimRuntime>> | undefined;
let shardlet: KubeletProcess | undefined;
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
  shardlet = await startKubelet({ runtimeEndpoint: `unix://${socketPath}`, workers: 1, workDir });
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
