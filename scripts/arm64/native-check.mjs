// Fails when a native addon (.node) the project installs on this machine has no
// linux-arm64 build. Run on arm64 Node (under qemu) with the two trees:
//   HOST_TREE    node_modules as `npm ci` installed it here (x64);
//   ARM64_TREE   node_modules as `npm ci --cpu=arm64 --os=linux --libc=glibc` installed it.
// Each addon of the host tree must have its counterpart in the arm64 tree (the same
// path once the architecture in it is ignored: @napi-rs/nice-linux-x64-gnu/… pairs with
// @napi-rs/nice-linux-arm64-gnu/…; a build/Release/x.node built on install has none,
// since nothing is compiled for arm64), and every addon of the arm64 tree must be an
// AArch64 ELF file that this Node loads.
//
//   node scripts/arm64/native-check.mjs HOST_TREE ARM64_TREE
import { closeSync, openSync, readSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const ELF_MAGIC = '7f454c46';
/** e_machine of an ELF file's header (offset 18, little-endian): EM_AARCH64. */
const EM_AARCH64 = 183;
const ARCH_NAMES = /x86_64|x86-64|amd64|x64|aarch64|arm64/g;

const [hostTree, arm64Tree] = process.argv.slice(2);
if (!hostTree || !arm64Tree) {
  process.stderr.write('usage: native-check.mjs HOST_TREE ARM64_TREE\n');
  process.exit(2);
}
if (process.arch !== 'arm64') {
  process.stderr.write(`native-check: must run on arm64 Node, not ${process.arch}\n`);
  process.exit(2);
}

function addons(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return addons(path);
    return entry.isFile() && entry.name.endsWith('.node') ? [path] : [];
  });
}

/** The addon's path in its tree with the architecture left out. */
function archFree(tree, path) {
  return relative(tree, path).replace(ARCH_NAMES, '<arch>');
}

function elfMachine(path) {
  const header = Buffer.alloc(20);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  return header.subarray(0, 4).toString('hex') === ELF_MAGIC ? header.readUInt16LE(18) : undefined;
}

const failures = [];
const hostAddons = addons(hostTree);
const arm64Addons = addons(arm64Tree);
const arm64ArchFree = new Set(arm64Addons.map((path) => archFree(arm64Tree, path)));
for (const path of hostAddons) {
  if (!arm64ArchFree.has(archFree(hostTree, path))) failures.push(`${relative(hostTree, path)}: no linux-arm64 build installed beside it`);
}
for (const path of arm64Addons) {
  const name = relative(arm64Tree, path);
  const machine = elfMachine(path);
  if (machine !== EM_AARCH64) {
    failures.push(`${name}: not an AArch64 ELF file (e_machine ${machine ?? 'none: not ELF'})`);
    continue;
  }
  try {
    process.dlopen({ exports: {} }, path);
    process.stdout.write(`native-check: ${name} loads on arm64\n`);
  } catch (err) {
    failures.push(`${name}: does not load on arm64 Node: ${err.message}`);
  }
}

process.stdout.write(`native-check: ${hostAddons.length} native addon(s) here, ${arm64Addons.length} in the arm64 tree\n`);
for (const failure of failures) process.stderr.write(`native-check: FAIL ${failure}\n`);
process.exit(failures.length === 0 ? 0 : 1);
