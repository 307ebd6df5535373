// Prints the unit test files (one a line, paths under dist/test) that together load
// every module of dist/src the whole unit group loads: the arm64 step runs these under
// qemu, where the whole group takes too long. The modules a file loads come from the
// built files' relative imports, static and dynamic, and the worker entries they start
// (`new URL('./x.js', import.meta.url)`).
//
//   node scripts/arm64/unit-cover.mjs [ROOT]      ROOT: a built tree (default: this one)
// Summary on stderr.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(process.argv[2] ?? fileURLToPath(new URL('../..', import.meta.url)));
const TEST_DIR = join(ROOT, 'dist/test');
const SRC_DIR = join(ROOT, 'dist/src');
/** The folders of run-tests.mjs's sim group; the rest, minus containerd, is the unit group. */
const PROCESS_FOLDERS = ['e2e', 'attack', 'contract', 'bench'];
/**
 * Files whose tests give the code a wall-clock budget that qemu on a busy two-core
 * machine overruns (they pass on x64): chosen only for a module no other file loads.
 */
const WALL_CLOCK_BOUND = new Map([
  ['main/bootstrap/bootstrap.test.js', 'a 10 s certificate must be renewed before it expires (else the test waits for its timeout)'],
  ['main/config/url-source-hostile.test.js', 'each answer must come within a 1.5 s request timeout'],
  ['main/shards/shard-pool.test.js', 'a dead shard must be replaced within 30 s'],
  ['main/shards/shard-pool-creation-limit.test.js', 'a dead shard must be replaced within 30 s'],
]);
const RELATIVE_SPECIFIERS = [
  /\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g,
  /\bimport\s*['"](\.{1,2}\/[^'"]+)['"]/g,
  /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
  /\bnew URL\(\s*['"](\.{1,2}\/[^'"]+\.js)['"]\s*,\s*import\.meta\.url\s*\)/g,
];

function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return jsFiles(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

function isUnitTest(file) {
  if (!file.endsWith('.test.js') || file.endsWith('-containerd.test.js')) return false;
  return !PROCESS_FOLDERS.includes(relative(TEST_DIR, file).split('/')[0]);
}

const importsByFile = new Map();
function importsOf(file) {
  let imports = importsByFile.get(file);
  if (!imports) {
    const text = readFileSync(file, 'utf8');
    imports = RELATIVE_SPECIFIERS.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => resolve(dirname(file), match[1])));
    importsByFile.set(file, imports.filter((path) => existsSync(path)));
  }
  return importsByFile.get(file);
}

/** The dist/src modules `testFile` loads, directly or through other modules. */
function srcModulesOf(testFile) {
  const seen = new Set([testFile]);
  const pending = [testFile];
  while (pending.length > 0) {
    for (const imported of importsOf(pending.pop())) {
      if (seen.has(imported)) continue;
      seen.add(imported);
      pending.push(imported);
    }
  }
  return new Set([...seen].filter((path) => path.startsWith(SRC_DIR + '/')));
}

const unitFiles = jsFiles(TEST_DIR).filter(isUnitTest).sort();
const modulesByFile = new Map(unitFiles.map((file) => [file, srcModulesOf(file)]));
const filesByModule = new Map();
for (const [file, modules] of modulesByFile) {
  for (const path of modules) filesByModule.set(path, [...(filesByModule.get(path) ?? []), file]);
}

// The files that alone load some module first, then greedily the file that loads the
// most modules not yet loaded, a wall-clock-bound one only when no other file would do;
// last, any file whose modules the others load is dropped.
const isWallClockBound = (file) => WALL_CLOCK_BOUND.has(relative(TEST_DIR, file));
const chosen = new Set([...filesByModule.values()].filter((files) => files.length === 1).map(([file]) => file));
const uncovered = new Set(filesByModule.keys());
for (const file of chosen) for (const path of modulesByFile.get(file)) uncovered.delete(path);

/** The file of `files` not chosen yet that loads the most modules not yet loaded, if one loads any. */
function mostNewModules(files) {
  let best;
  let bestGain = 0;
  for (const file of files) {
    const gain = chosen.has(file) ? 0 : [...modulesByFile.get(file)].filter((path) => uncovered.has(path)).length;
    if (gain > bestGain) [best, bestGain] = [file, gain];
  }
  return best;
}

while (uncovered.size > 0) {
  const best = mostNewModules(unitFiles.filter((file) => !isWallClockBound(file))) ?? mostNewModules(unitFiles.filter(isWallClockBound));
  chosen.add(best);
  for (const path of modulesByFile.get(best)) uncovered.delete(path);
}
for (const file of [...chosen].reverse()) {
  const othersLoadAll = [...modulesByFile.get(file)].every((path) => filesByModule.get(path).some((other) => other !== file && chosen.has(other)));
  if (othersLoadAll) chosen.delete(file);
}
const loadedByUnitGroup = filesByModule.size;

const allSrcModules = jsFiles(SRC_DIR).length;
for (const file of [...chosen].sort()) process.stdout.write(`${relative(ROOT, file)}\n`);
for (const file of chosen) {
  if (isWallClockBound(file)) process.stderr.write(`unit-cover: ${relative(TEST_DIR, file)} is needed though ${WALL_CLOCK_BOUND.get(relative(TEST_DIR, file))}\n`);
}
process.stderr.write(
  `unit-cover: ${chosen.size} of ${unitFiles.length} unit files load the ${loadedByUnitGroup} modules the unit group loads ` +
    `(of ${allSrcModules} in dist/src)\n`,
);
