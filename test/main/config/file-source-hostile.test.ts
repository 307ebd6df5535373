// The file source beside entries that cannot be pods: each is logged once at
// error level with its path and reason, skipped, logged again only when it
// changes, and never stops the good pod beside it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, truncate, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { FileSource } from '../../../src/main/config/file-source.js';
import { ErrorCodes } from '../../../src/shared/errors.js';
import type { PodUpdate } from '../../../src/shared/types.js';

const NEVER_MS = 3_600_000;

function manifest(name: string): string {
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n    - name: main\n      image: busybox:1.36\n`;
}

async function withDir(run: (dir: string) => Promise<void>) {
  const dir = await mkdtemp(join(tmpdir(), 'shardlet-file-hostile-'));
  try {
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function startSource(dir: string) {
  const sets: PodUpdate[] = [];
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const source = new FileSource({ path: dir, nodeName: 'node-1', periodMs: NEVER_MS, logger, onUpdate: (update) => sets.push(update) });
  const names = () => (sets.at(-1)?.pods ?? []).map((pod) => pod.metadata?.name).sort();
  /** Error-level lines about `file`. */
  const errorsFor = (file: string) => logs.filter((line) => line.level === 50 && line.path === file);
  return { source, sets, logs, names, errorsFor };
}

test('a symlink loop, a FIFO, a directory named x.yaml, an unreadable file, a dangling link, binary data and a 20 MB file are each logged once and skipped', async () => {
  await withDir(async (dir) => {
    await writeFile(join(dir, 'good.yaml'), manifest('good'));
    await symlink('loop-b.yaml', join(dir, 'loop-a.yaml'));
    await symlink('loop-a.yaml', join(dir, 'loop-b.yaml'));
    execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
    await mkdir(join(dir, 'dir.yaml'));
    // Tests run as root, who reads any file whatever its mode; the kernel refuses
    // to read /proc/self/mem at offset 0 (EIO) even to root.
    await symlink('/proc/self/mem', join(dir, 'unreadable.yaml'));
    await symlink(join(dir, 'nothing-here'), join(dir, 'dangling.yaml'));
    const secret = Buffer.from('\x7fELF\x02\x01\x01\x00 SECRET-BYTES \xff\xfe', 'latin1');
    await writeFile(join(dir, 'binary.yaml'), secret);
    await writeFile(join(dir, 'huge.yaml'), '');
    await truncate(join(dir, 'huge.yaml'), 20 * 1024 * 1024);
    const bad: Record<string, RegExp> = {
      'loop-a.yaml': /symbolic link loop/,
      'loop-b.yaml': /symbolic link loop/,
      'fifo.yaml': /is a FIFO, not a regular file/,
      'dir.yaml': /is a directory/,
      'unreadable.yaml': /cannot be read: .*EIO|i\/o error/i,
      'dangling.yaml': /symbolic link to nothing/,
      'binary.yaml': /not (UTF-8 )?text/,
      'huge.yaml': /larger than 10485760 bytes/,
    };

    const { source, names, errorsFor, logs } = startSource(dir);
    try {
      await source.start();
      assert.deepEqual(names(), ['good-node-1']);
      for (const [name, reason] of Object.entries(bad)) {
        const errors = errorsFor(join(dir, name));
        assert.equal(errors.length, 1, `${name} is logged once at error level: ${JSON.stringify(errors)}`);
        assert.match(String(errors[0]!.reason), reason, name);
        assert.ok(typeof errors[0]!.code === 'string' && errors[0]!.code.startsWith('SHARDLET_'), `${name} carries a code`);
      }
      assert.ok(!JSON.stringify(logs).includes('SECRET-BYTES'), "a binary file's bytes are not echoed");

      await source.rescan();
      await source.rescan();
      assert.deepEqual(names(), ['good-node-1']);
      for (const name of Object.keys(bad)) assert.equal(errorsFor(join(dir, name)).length, 1, `${name} is not logged again by a rescan`);

      // A change to the file is news: it is logged again (once).
      await writeFile(join(dir, 'binary.yaml'), Buffer.concat([secret, Buffer.from([0])]));
      await source.rescan();
      await source.rescan();
      assert.equal(errorsFor(join(dir, 'binary.yaml')).length, 2, 'a changed bad file is logged again, once');
      const later = new Date(Date.now() + 5_000);
      await utimes(join(dir, 'huge.yaml'), later, later);
      await source.rescan();
      assert.equal(errorsFor(join(dir, 'huge.yaml')).length, 2, 'a touched file is logged again');
    } finally {
      source.stop();
    }
  });
});

test('a duplicate pod name is reported naming both files; the first file in name order keeps the pod', async () => {
  await withDir(async (dir) => {
    await writeFile(join(dir, 'a.yaml'), manifest('web'));
    await writeFile(join(dir, 'b.yaml'), manifest('web').replace('busybox:1.36', 'nginx:1.25'));
    const { source, sets, names, errorsFor } = startSource(dir);
    try {
      await source.start();
      await source.rescan();
      assert.deepEqual(names(), ['web-node-1']);
      assert.equal(sets.at(-1)!.pods[0]!.spec!.containers[0]!.image, 'busybox:1.36');
      const errors = errorsFor(join(dir, 'b.yaml'));
      assert.equal(errors.length, 1, 'reported once');
      assert.equal(errors[0]!.code, ErrorCodes.MANIFEST_DUPLICATE);
      assert.equal(errors[0]!.duplicateOf, join(dir, 'a.yaml'));
      assert.match(String(errors[0]!.reason), new RegExp(`already defined by ${join(dir, 'a.yaml')}`));
    } finally {
      source.stop();
    }
  });
});

test('a file that is fixed and breaks again is logged again', async () => {
  await withDir(async (dir) => {
    const file = join(dir, 'web.yaml');
    await writeFile(file, 'kind: [');
    const { source, names, errorsFor } = startSource(dir);
    try {
      await source.start();
      await writeFile(file, manifest('web'));
      await source.rescan();
      assert.deepEqual(names(), ['web-node-1']);
      await writeFile(file, 'kind: [');
      await source.rescan();
      assert.deepEqual(names(), []);
      assert.equal(errorsFor(file).length, 2);
    } finally {
      source.stop();
    }
  });
});

test('a manifest whose metadata.uid would climb out of the pod directory is reported with its file and reason, and skipped', async () => {
  await withDir(async (dir) => {
    await writeFile(join(dir, 'good.yaml'), manifest('good'));
    const hostile = manifest('t').replace('  name: t\n', '  name: t\n  uid: "x/../../../../../../../../../../tmp/victim"\n');
    await writeFile(join(dir, 'victim.yaml'), hostile);
    const { source, sets, names, errorsFor } = startSource(dir);
    try {
      await source.start();
      await source.rescan();
      assert.deepEqual(names(), ['good-node-1'], 'the good pod runs on, the hostile one is not a pod');
      assert.ok(sets.every((update) => update.pods.every((pod) => !String(pod.metadata?.uid).includes('/'))), 'no update ever carried the UID');
      const errors = errorsFor(join(dir, 'victim.yaml'));
      assert.equal(errors.length, 1, 'reported once');
      assert.equal(errors[0]!.code, ErrorCodes.MANIFEST_INVALID);
      assert.match(String(errors[0]!.reason), /metadata\.uid: Invalid value: "x\/\.\.\/.*tmp\/victim": must consist of letters, digits and '-'/);
    } finally {
      source.stop();
    }
  });
});
