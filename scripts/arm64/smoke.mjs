// The arm64 smoke: `npm start`'s demo (dist/src/tools/start-demo.js: the simulated
// runtime and shardlet standalone with the example static pods) run by the given Node,
// until its summary line shows every example pod Running. The demo and its children
// run in a process group of their own, stopped as a group however the smoke ends.
//
//   node scripts/arm64/smoke.mjs NODE ROOT
// NODE: the Node binary to run the demo with; ROOT: a built tree with its node_modules.
import { spawn } from 'node:child_process';
import { createWriteStream, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const RUNNING_TIMEOUT_MS = 300_000;
const STOP_GRACE_MS = 10_000;

const [node, root] = process.argv.slice(2);
if (!node || !root) {
  process.stderr.write('usage: smoke.mjs NODE ROOT\n');
  process.exit(2);
}
const expectedPods = readdirSync(join(root, 'examples/static-pods')).length;

/** A port the OS says is free now, for the demo's kubelet API (not 10250: other kubelets may run here). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
  } catch (err) {
    if (err.code !== 'ESRCH') throw err;
  }
}

const logPath = join(root, 'smoke.log');
const log = createWriteStream(logPath);
const started = Date.now();
const demo = spawn(node, ['dist/src/tools/start-demo.js'], {
  cwd: root,
  detached: true,
  env: { ...process.env, SHARDLET_DEMO_PORT: String(await freePort()) },
  stdio: ['ignore', 'pipe', 'pipe'],
});
demo.stdout.pipe(log, { end: false });
const exited = new Promise((resolve) => demo.on('exit', (code, signal) => resolve(signal ?? code)));
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    signalGroup(demo.pid, 'SIGKILL');
    process.exit(1);
  });
}

/** The demo's own temporary directory, which it leaves behind; named in its first lines. */
let demoWorkDir;
const outcome = await new Promise((resolve) => {
  const timer = setTimeout(() => resolve(`not all ${expectedPods} pods Running after ${RUNNING_TIMEOUT_MS / 1000} s`), RUNNING_TIMEOUT_MS);
  exited.then((how) => resolve(`the demo exited (${how}) before its pods were Running`));
  createInterface({ input: demo.stderr }).on('line', (line) => {
    log.write(`${line}\n`);
    demoWorkDir ??= /^demo: manifests in (\S+)\/manifests /.exec(line)?.[1];
    const summary = /^demo: (\d+) pods: (.*)$/.exec(line);
    if (!summary) return;
    process.stdout.write(`smoke: ${((Date.now() - started) / 1000).toFixed(1)} s ${line}\n`);
    const phases = summary[2].split(' ').map((pod) => pod.split('=')[1]);
    if (Number(summary[1]) === expectedPods && phases.every((phase) => phase === 'Running')) {
      clearTimeout(timer);
      resolve(undefined);
    }
  });
});

signalGroup(demo.pid, 'SIGTERM');
await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS))]);
// Whatever of the group outlived the grace period (the demo's children included).
signalGroup(demo.pid, 'SIGKILL');
log.end();
if (demoWorkDir) rmSync(demoWorkDir, { recursive: true, force: true });

if (outcome) {
  process.stderr.write(`smoke: FAIL ${outcome}; the demo's output is in ${logPath}\n`);
  process.exit(1);
}
process.stdout.write(`smoke: ${expectedPods} pods Running on ${node} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
