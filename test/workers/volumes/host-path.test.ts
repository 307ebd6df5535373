import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Volume } from '../../../src/shared/types.js';
import { setupHostPath } from '../../../src/workers/volumes/host-path.js';

const base = mkdtempSync(join(tmpdir(), 'shardlet-hostpath-'));
const servers: Server[] = [];
after(() => {
  servers.forEach((server) => server.close());
  rmSync(base, { recursive: true, force: true });
});

const volume = (path: string, type?: string): Volume => ({ name: 'host', hostPath: { path, ...(type === undefined ? {} : { type }) } });

async function rejectsWith(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (err: Error & { code?: string; details?: Record<string, unknown> }) => {
    assert.equal(err.code, 'SHARDLET_VOLUME_SETUP');
    assert.match(err.message, pattern);
    assert.match(err.message, /volume "host"/);
    return true;
  });
}

test('hostPath: no type means no check', async () => {
  const missing = join(base, 'nothing-here');
  assert.equal(await setupHostPath(volume(missing)), missing);
  assert.equal(await setupHostPath(volume(missing, '')), missing);
  assert.equal(existsSync(missing), false);
});

test('hostPath: DirectoryOrCreate creates missing directories with 0755', async () => {
  const path = join(base, 'made', 'deep', 'dir');
  assert.equal(await setupHostPath(volume(path, 'DirectoryOrCreate')), path);
  assert.ok(statSync(path).isDirectory());
  assert.equal(statSync(path).mode & 0o777, 0o755);
  // Existing: left as is.
  writeFileSync(join(path, 'keep'), 'x');
  await setupHostPath(volume(path, 'DirectoryOrCreate'));
  assert.equal(readFileSync(join(path, 'keep'), 'utf8'), 'x');
  // A file in the way fails the check.
  const file = join(base, 'a-file');
  writeFileSync(file, '');
  await rejectsWith(setupHostPath(volume(file, 'DirectoryOrCreate')), /is not a directory/);
});

test('hostPath: Directory must exist and be a directory', async () => {
  const dir = join(base, 'dir');
  mkdirSync(dir);
  assert.equal(await setupHostPath(volume(dir, 'Directory')), dir);
  await rejectsWith(setupHostPath(volume(join(base, 'absent'), 'Directory')), /absent is not a directory.*|type Directory/);
  await assert.rejects(setupHostPath(volume(join(base, 'absent'), 'Directory')), (err: Error & { details: Record<string, unknown> }) => {
    assert.deepEqual(err.details, { volume: 'host', path: join(base, 'absent'), expectedType: 'Directory' });
    return true;
  });
});

test('hostPath: FileOrCreate creates an empty 0644 file but not its parents', async () => {
  const file = join(base, 'created.conf');
  assert.equal(await setupHostPath(volume(file, 'FileOrCreate')), file);
  assert.equal(statSync(file).size, 0);
  assert.equal(statSync(file).mode & 0o777, 0o644);
  writeFileSync(file, 'content');
  await setupHostPath(volume(file, 'FileOrCreate'));
  assert.equal(readFileSync(file, 'utf8'), 'content', 'an existing file is not truncated');
  await rejectsWith(setupHostPath(volume(join(base, 'no-parent', 'x.conf'), 'FileOrCreate')), /creating .* failed/);
  await rejectsWith(setupHostPath(volume(base, 'FileOrCreate')), /is not a file/);
});

test('hostPath: File', async () => {
  const file = join(base, 'plain');
  writeFileSync(file, '');
  assert.equal(await setupHostPath(volume(file, 'File')), file);
  await rejectsWith(setupHostPath(volume(base, 'File')), /is not a file/);
  await rejectsWith(setupHostPath(volume(join(base, 'absent-file'), 'File')), /is not a file/);
});

test('hostPath: Socket', async () => {
  const socketPath = join(base, 'app.sock');
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  assert.equal(await setupHostPath(volume(socketPath, 'Socket')), socketPath);
  await rejectsWith(setupHostPath(volume(base, 'Socket')), /is not a socket file/);
});

test('hostPath: CharDevice and BlockDevice', async () => {
  assert.equal(await setupHostPath(volume('/dev/null', 'CharDevice')), '/dev/null');
  await rejectsWith(setupHostPath(volume(base, 'CharDevice')), /is not a character device/);
  await rejectsWith(setupHostPath(volume('/dev/null', 'BlockDevice')), /is not a block device/);
  const block = join(base, 'loop-node');
  execFileSync('mknod', [block, 'b', '7', '0']);
  assert.equal(await setupHostPath(volume(block, 'BlockDevice')), block);
});

test('hostPath: bad paths and types', async () => {
  await rejectsWith(setupHostPath(volume('/var/../etc', 'Directory')), /must not contain '\.\.'/);
  await rejectsWith(setupHostPath(volume(base, 'Folder')), /Folder is an invalid volume type/);
});
