import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { FileSource } from '../../../src/main/config/file-source.js';
import { PodStorage } from '../../../src/main/config/pod-storage.js';
import { ErrorCodes } from '../../../src/shared/errors.js';
import type { PodUpdate } from '../../../src/shared/types.js';

/** A period long enough never to fire during a test: period scans are asked for with rescan(). */
const NEVER_MS = 3_600_000;
const WAIT_LIMIT_MS = 10_000;

function manifest(name: string, image = 'busybox:1.36'): string {
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n    - name: main\n      image: ${image}\n`;
}

async function withSource(run: (h: Awaited<ReturnType<typeof startSource>>) => Promise<void>, path?: (dir: string) => Promise<string> | string) {
  const dir = await mkdtemp(join(tmpdir(), 'shardlet-file-source-'));
  const handle = await startSource(dir, (await path?.(dir)) ?? dir);
  try {
    await run(handle);
  } finally {
    handle.source.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function startSource(dir: string, path: string, files: Record<string, string> = {}) {
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  const sets: PodUpdate[] = [];
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const source = new FileSource({ path, nodeName: 'node-1', periodMs: NEVER_MS, logger, onUpdate: (update) => sets.push(update) });
  const lastNames = () => (sets.at(-1)?.pods ?? []).map((pod) => pod.metadata?.name).sort();
  const waitFor = async (what: string, ready: () => boolean) => {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (!ready()) {
      if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; sets: ${JSON.stringify(sets.map((set) => set.pods.map((pod) => pod.metadata?.name)))}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { dir, source, sets, logs, logger, lastNames, waitFor };
}

test('a directory is scanned into full SETs as files are added, changed and removed', async () => {
  await withSource(async ({ dir, source, sets, lastNames, waitFor }) => {
    await writeFile(join(dir, 'web.yaml'), manifest('web'));
    await source.start();
    assert.deepEqual(lastNames(), ['web-node-1']);
    assert.ok(sets.every((set) => set.op === 'SET' && set.source === 'file'));
    const firstUid = sets.at(-1)!.pods[0]!.metadata!.uid;

    await writeFile(join(dir, 'db.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'db' }, spec: { containers: [{ name: 'c', image: 'postgres:16' }] } }));
    await waitFor('the watch to pick up db.json', () => lastNames().length === 2);
    assert.deepEqual(lastNames(), ['db-node-1', 'web-node-1']);

    await writeFile(join(dir, 'web.yaml'), manifest('web', 'nginx:1.25'));
    await waitFor('the changed web.yaml', () => sets.at(-1)!.pods.some((pod) => pod.spec?.containers[0]?.image === 'nginx:1.25'));
    const web = sets.at(-1)!.pods.find((pod) => pod.metadata?.name === 'web-node-1')!;
    assert.notEqual(web.metadata!.uid, firstUid, 'a content change makes a new UID, as upstream');

    await unlink(join(dir, 'db.json'));
    await waitFor('db.json to go', () => lastNames().length === 1);
    await source.rescan();
    assert.deepEqual(lastNames(), ['web-node-1']);
  });
});

test('dotfiles and subdirectories are ignored; an empty directory sends an empty SET', async () => {
  await withSource(async ({ dir, source, sets, lastNames }) => {
    await writeFile(join(dir, '.web.yaml.swp'), 'garbage');
    await writeFile(join(dir, '.hidden.yaml'), manifest('hidden'));
    await mkdir(join(dir, 'nested'));
    await writeFile(join(dir, 'nested', 'pod.yaml'), manifest('nested'));
    await source.start();
    assert.equal(sets.length, 1);
    assert.deepEqual(lastNames(), []);
  });
});

test('a malformed file is logged with its path and skipped; the other pods stay', async () => {
  await withSource(async ({ dir, source, logs, lastNames }) => {
    await writeFile(join(dir, 'good.yaml'), manifest('good'));
    await writeFile(join(dir, 'bad.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: { name: bad }\nspec: { containers: [{ name: c }] }\n');
    await source.start();
    assert.deepEqual(lastNames(), ['good-node-1']);
    const errors = logs.filter((line) => line.code === ErrorCodes.MANIFEST_INVALID);
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.path, join(dir, 'bad.yaml'));
    assert.match(String(errors[0]!.reason), /spec\.containers\[0\]\.image: Required value/);
    await source.rescan();
    assert.equal(logs.filter((line) => line.code === ErrorCodes.MANIFEST_INVALID && line.level === 50).length, 1, 'an unchanged bad file is reported once');
  });
});

test('a file that becomes malformed keeps its pod through watch scans and loses it at the periodic rescan, as upstream', async () => {
  await withSource(async ({ dir, source, logs, sets, lastNames, waitFor }) => {
    await writeFile(join(dir, 'a.yaml'), manifest('a'));
    await writeFile(join(dir, 'b.yaml'), manifest('b'));
    await source.start();
    await writeFile(join(dir, 'a.yaml'), 'kind: Pod\nspec: [not, a, pod');
    await waitFor('the watch scan to see the bad file', () => logs.some((line) => line.code === ErrorCodes.MANIFEST_INVALID));
    await waitFor('the watch scan SET', () => sets.length >= 2);
    assert.deepEqual(lastNames(), ['a-node-1', 'b-node-1'], 'watch scan keeps the last good pod');
    await source.rescan();
    assert.deepEqual(lastNames(), ['b-node-1'], 'periodic rescan drops it');
  });
});

test('through the merge: a broken file removes only its own pod', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'shardlet-file-merge-'));
  const merged: Array<[string, string[]]> = [];
  const logger = pino({ level: 'silent' });
  const storage = new PodStorage((update) => merged.push([update.op, update.pods.map((pod) => pod.metadata!.name!)]), logger);
  const source = new FileSource({ path: dir, nodeName: 'node-1', periodMs: NEVER_MS, logger, onUpdate: (update) => storage.merge(update.source, update) });
  try {
    await writeFile(join(dir, 'a.yaml'), manifest('a'));
    await writeFile(join(dir, 'b.yaml'), manifest('b'));
    await source.start();
    assert.deepEqual(merged, [['ADD', ['a-node-1', 'b-node-1']]]);
    assert.equal(storage.sourcesReady(['file']), true);
    await writeFile(join(dir, 'a.yaml'), '{ not yaml');
    await source.rescan();
    assert.deepEqual(merged.at(-1), ['REMOVE', ['a-node-1']]);
    assert.ok(!merged.some(([op, names]) => op === 'REMOVE' && names.includes('b-node-1')));
  } finally {
    source.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a single manifest file as the path; a malformed one sends nothing, keeping its pod', async () => {
  await withSource(
    async ({ dir, source, sets, lastNames }) => {
      await source.start();
      assert.deepEqual(lastNames(), ['solo-node-1']);
      await writeFile(join(dir, 'solo.yaml'), 'kind: [');
      const before = sets.length;
      await source.rescan();
      assert.equal(sets.length, before, 'no SET, so the merge keeps the pod');
    },
    async (dir) => {
      const path = join(dir, 'solo.yaml');
      await writeFile(path, manifest('solo'));
      return path;
    },
  );
});

test('a missing path sends an empty SET so the source is seen', async () => {
  await withSource(async ({ source, sets }) => {
    await source.start();
    assert.deepEqual(sets, [{ op: 'SET', source: 'file', pods: [] }]);
  }, (dir) => join(dir, 'does-not-exist'));
});

test('a watch event reads again only the file it names; what no event names waits for the periodic scan, as upstream', async () => {
  const outside = await mkdtemp(join(tmpdir(), 'shardlet-file-outside-'));
  try {
    await withSource(async ({ dir, source, sets, waitFor }) => {
      // A manifest that is a link to a file outside the directory: changing the target makes no event in the directory.
      await writeFile(join(outside, 'linked.yaml'), manifest('linked', 'busybox:1.36'));
      await symlink(join(outside, 'linked.yaml'), join(dir, 'linked.yaml'));
      await source.start();
      const imageOfLinked = () => sets.at(-1)!.pods.find((pod) => pod.metadata?.name === 'linked-node-1')?.spec?.containers[0]?.image;
      assert.equal(imageOfLinked(), 'busybox:1.36');

      await writeFile(join(outside, 'linked.yaml'), manifest('linked', 'nginx:1.25'));
      await writeFile(join(dir, 'other.yaml'), manifest('other'));
      await waitFor('the watch scan for other.yaml', () => sets.at(-1)!.pods.length === 2);
      assert.equal(imageOfLinked(), 'busybox:1.36', 'the event named other.yaml only');

      await source.rescan();
      assert.equal(imageOfLinked(), 'nginx:1.25', 'the periodic scan reads every file');
    });
  } finally {
    await rm(outside, { recursive: true, force: true });
  }
});

test('under a steady stream of changes a new file is still picked up while the stream goes on', async () => {
  await withSource(async ({ dir, source, sets, lastNames, waitFor }) => {
    await source.start();
    let streaming = true;
    let seenWhileStreaming = false;
    // A change every 30 ms for 2 s: never the quiet gap a debounce would wait for.
    const stream = (async () => {
      const until = Date.now() + 2_000;
      for (let i = 0; Date.now() < until; i++) {
        await writeFile(join(dir, 'busy.yaml'), manifest('busy', `busybox:1.${i}`));
        if (lastNames().includes('fresh-node-1')) seenWhileStreaming = true;
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      streaming = false;
    })();
    await writeFile(join(dir, 'fresh.yaml'), manifest('fresh'));
    await stream;
    assert.equal(streaming, false);
    assert.ok(seenWhileStreaming, `fresh.yaml reached a SET before the stream of changes ended (${sets.length} SETs)`);
    await writeFile(join(dir, 'after.yaml'), manifest('after'));
    await waitFor('a file written after the stream', () => lastNames().includes('after-node-1'));
  });
});

test('a periodic scan that reads the files a watch batch named leaves the watch working', async () => {
  await withSource(async ({ dir, source, lastNames, waitFor }) => {
    await source.start();
    await writeFile(join(dir, 'first.yaml'), manifest('first'));
    // The rescan takes the batch's names before its timer fires: the timer then finds nothing to read.
    await source.rescan();
    assert.deepEqual(lastNames(), ['first-node-1']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await writeFile(join(dir, 'second.yaml'), manifest('second'));
    await waitFor('a file written after the empty batch', () => lastNames().includes('second-node-1'));
  });
});
