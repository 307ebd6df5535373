// Runs the built test files (dist/test) in three groups:
//   unit        pure logic and in-process tests: everything outside the folders below;
//   sim         whole processes on the simulated runtime and the test API server
//               (test/e2e, test/attack, test/contract, test/bench, minus containerd);
//   containerd  every *-containerd test: they share the one containerd of
//               scripts/containerd/setup.sh, and one of them kills it on purpose, so
//               they run one file at a time.
// With no argument (npm test) the containerd group runs beside the unit and sim
// groups, which run several files at a time: their tests take their ports from the
// OS, their runtimes and API servers are their own, and they wait for conditions,
// not for time. Each group is one `node --test` run; its lines are prefixed with the
// group's name, and the last line adds the groups' counts up.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TEST_DIR = join(ROOT, 'dist/test');
const TEST_TIMEOUT_MS = 900_000;
const PROCESS_FOLDERS = ['e2e', 'attack', 'contract', 'bench'];
const GROUP_NAMES = ['unit', 'sim', 'containerd'];
/** Files of the unit and sim groups run at a time: most of their time is spent waiting on child processes. */
const CONCURRENCY = Number(process.env.SHARDLET_TEST_CONCURRENCY) || Math.max(3, availableParallelism());

function groupOf(file) {
  if (file.endsWith('-containerd.test.js')) return 'containerd';
  const folder = relative(TEST_DIR, file).split('/')[0];
  return PROCESS_FOLDERS.includes(folder) ? 'sim' : 'unit';
}

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.js') ? [path] : [];
  });
}

/** One `node --test` run over `files`; resolves with its summary counts. */
function runGroup(label, files, concurrency) {
  const args = ['--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, `--test-timeout=${TEST_TIMEOUT_MS}`, ...files];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const counts = {};
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      process.stdout.write(`[${label}] ${line}\n`);
      const count = /^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(line);
      if (count) counts[count[1]] = Number(count[2]);
    });
  }
  return new Promise((resolve) => child.on('close', (code) => resolve({ label, code, counts })));
}

// Node 22 or newer, as package.json's engines say: npm scripts run the `node` devDependency's.
if (Number(process.versions.node.split('.')[0]) < 22) {
  process.stderr.write(`run-tests: Node ${process.version} is too old; run it through npm (npm test) or node_modules/.bin/node\n`);
  process.exit(2);
}

const asked = process.argv.slice(2);
for (const name of asked) {
  if (!GROUP_NAMES.includes(name)) {
    process.stderr.write(`run-tests: unknown group "${name}" (groups: ${GROUP_NAMES.join(', ')})\n`);
    process.exit(2);
  }
}
const wanted = asked.length > 0 ? asked : GROUP_NAMES;
const filesByGroup = Object.fromEntries(GROUP_NAMES.map((name) => [name, []]));
for (const file of testFiles(TEST_DIR).sort()) filesByGroup[groupOf(file)].push(file);

// containerd's files one at a time; unit and sim together, several at a time.
const runs = [];
if (wanted.includes('containerd')) runs.push(runGroup('containerd', filesByGroup.containerd, 1));
const shared = wanted.filter((name) => name !== 'containerd');
if (shared.length > 0) runs.push(runGroup(shared.join('+'), shared.flatMap((name) => filesByGroup[name]), CONCURRENCY));

const started = Date.now();
const results = await Promise.all(runs);
const total = (key) => results.reduce((sum, result) => sum + (result.counts[key] ?? 0), 0);
for (const { label, code } of results) process.stdout.write(`run-tests: ${label} exited ${code}\n`);
process.stdout.write(`run-tests: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
const failed = total('fail') + total('cancelled');
process.stdout.write(`tests: ${total('pass')} passed, ${failed} failed, ${total('skipped')} skipped\n`);
process.exit(results.every((result) => result.code === 0) && failed === 0 ? 0 : 1);
