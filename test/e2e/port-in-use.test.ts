// Defect 9: a port shardlet must listen on is already taken. The real process,
// the simulated runtime over its socket and a manifest waiting in the pod
// directory: shardlet exits 1 with one line naming the flag and the port, and
// never touched a pod (it binds its listeners before any source starts).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CriClient } from '../../src/shared/cri/client.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { kubeletServerPortArgs, PACKAGE_ROOT } from '../helpers/kubelet-process.js';

const CLI = join(PACKAGE_ROOT, 'dist/src/main/cli.js');
const EXIT_TIMEOUT_MS = 60_000;

let workDir: string;
let sim: SimRuntime;
let taken: Server;
let takenPort: number;

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-port-'));
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  takenPort = (taken.address() as AddressInfo).port;
});

after(async () => {
  await new Promise((resolve) => taken.close(resolve));
  await sim.close();
  rmSync(workDir, { recursive: true, force: true });
});

/** Runs shardlet to its exit in its own process group; the group is killed if it outlives the timeout. */
async function runShardlet(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...(await kubeletServerPortArgs(args)), ...args], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`shardlet still running after ${EXIT_TIMEOUT_MS} ms; stderr: ${stderr}`));
    }, EXIT_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

test('a taken --read-only-port: exit 1, one line naming the flag and port, no pod started', async () => {
  const manifestDir = join(workDir, 'manifests');
  mkdirSync(manifestDir);
  writeFileSync(
    join(manifestDir, 'web.json'),
    JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'busybox:1.35', command: ['sleep', '3600'] }] } }),
  );
  const { code, stderr } = await runShardlet([
    `--container-runtime-endpoint=${sim.endpoint}`,
    `--pod-manifest-path=${manifestDir}`,
    `--root-dir=${join(workDir, 'root')}`,
    `--read-only-port=${takenPort}`,
    '--workers=1',
    '--hostname-override=test-node',
  ]);

  assert.equal(code, 1);
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `one line on stderr, no stack:\n${stderr}`);
  assert.match(lines[0], new RegExp(`--read-only-port ${takenPort}\\b`));
  assert.match(lines[0], /address already in use/);
  assert.match(lines[0], /SHARDLET_LISTEN_FAILED/);

  // Counted when the sim receives a call, so a sandbox created just before the exit shows too.
  assert.equal(sim.stats().calls.RunPodSandbox ?? 0, 0, 'no RunPodSandbox was sent');
  const cri = new CriClient(sim.endpoint, { timeoutMs: 10_000 });
  try {
    assert.deepEqual((await cri.listPodSandbox({})).items, [], 'the runtime holds no sandbox');
  } finally {
    cri.close();
  }
});

test('a taken --port (the kubelet API): exit 1, one line naming the flag and port', async () => {
  const { code, stderr } = await runShardlet([
    `--container-runtime-endpoint=${sim.endpoint}`,
    `--root-dir=${join(workDir, 'root-api')}`,
    '--read-only-port=0',
    '--address=127.0.0.1',
    `--port=${takenPort}`,
    '--workers=1',
    '--hostname-override=test-node',
  ]);

  assert.equal(code, 1);
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `one line on stderr, no stack:\n${stderr}`);
  assert.match(lines[0], new RegExp(`--port ${takenPort}: listen tcp 127\\.0\\.0\\.1:${takenPort}: bind: address already in use`));
});
