// API pods are validated by the API server, but the shard treats them as hostile
// anyway: a pod whose UID, namespace, name, container name, volume name or seccomp
// localhostProfile would make a path that climbs out of the root dir, the pod log
// directory or the cgroup root has that sync fail with an error naming the field,
// its termination still completes, the shard goes on syncing other pods, and
// nothing outside those directories is created, written or removed (a sentinel
// tree around them is listed before and after).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { pino } from 'pino';
import { PullCoordinator } from '../../src/main/images/pull-coordinator.js';
import { cgroupRootName } from '../../src/shared/cm/cgroup-name.js';
import { descendingPathError, pathSegmentError } from '../../src/shared/safe-path.js';
import type { SyncPodResult } from '../../src/shared/shard-protocol.js';
import type { Pod } from '../../src/shared/types.js';
import { inProcessShardSettings } from '../../src/tools/in-process-shard-settings.js';
import { Shard } from '../../src/workers/shard.js';
import { hostilePathStrings, MAX_SHORT_CLIMBS } from '../helpers/path-arbitraries.js';
import { snapshotTree, treeChanges } from '../helpers/tree-snapshot.js';
import { startHarness, type SimHarness } from '../simruntime/harness.js';

const IMAGE = 'registry.local/app:1.0';
const NUM_RUNS = 60;
const logger = pino({ level: 'silent' });
/** The allowed directories sit this deep in the sentinel tree, so that the short climbs land inside it. */
const NESTING = Array.from({ length: MAX_SHORT_CLIMBS + 1 }, (_, i) => `n${i}`);

let harness: SimHarness;
let shard: Shard;
let sentinel: string;
let allowed: string[];

before(async () => {
  harness = await startHarness({ scale: 0 }, { preloadImages: [IMAGE] });
  sentinel = mkdtempSync(join(tmpdir(), 'shardlet-shard-hostile-'));
  const deep = join(sentinel, ...NESTING);
  const cgroupMounts = { cpu: join(deep, 'cgroup', 'cpu'), memory: join(deep, 'cgroup', 'memory'), pids: join(deep, 'cgroup', 'pids') };
  for (const mount of Object.values(cgroupMounts)) mkdirSync(mount, { recursive: true });
  // Something to remove or overwrite at every level a climb can land on.
  for (let depth = 0; depth <= NESTING.length; depth++) {
    const level = join(sentinel, ...NESTING.slice(0, depth));
    mkdirSync(join(level, 'victim'), { recursive: true });
    writeFileSync(join(level, 'victim', 'keep'), 'sentinel');
  }
  const settings = inProcessShardSettings(harness.sim.endpoint, deep, {
    podCgroups: { layout: { version: 'v1', mounts: cgroupMounts, description: 'v1' }, driver: 'cgroupfs', root: cgroupRootName('/') },
    podPidsLimit: 64,
  });
  allowed = [settings.rootDir, settings.podLogsDir, join(deep, 'cgroup')];
  // As the kubelet makes them at its start.
  mkdirSync(join(settings.rootDir, 'pods'), { recursive: true });
  mkdirSync(settings.podLogsDir, { recursive: true });
  shard = new Shard(0, settings, new PullCoordinator({ serializeImagePulls: false, maxParallelImagePulls: 5, logger }), logger);
});

after(async () => {
  await shard.close();
  await harness.close();
  rmSync(sentinel, { recursive: true, force: true });
});

type HostileField = 'uid' | 'namespace' | 'name' | 'container' | 'volume' | 'localhostProfile';

/** The field name a refusal of that field's value names. */
const REFUSED_AS: Record<HostileField, string> = {
  uid: 'metadata.uid: Invalid value',
  namespace: 'metadata.namespace: Invalid value',
  name: 'metadata.name: Invalid value',
  container: 'container name: Invalid value',
  volume: 'volume name: Invalid value',
  localhostProfile: 'localhostProfile',
};

function hostilePod(field: HostileField, value: string, run: number): Pod {
  const meta = { uid: `hostile-${run}`, namespace: 'default', name: `p${run}` };
  const container: NonNullable<Pod['spec']>['containers'][number] = { name: 'app', image: IMAGE, imagePullPolicy: 'IfNotPresent' };
  const pod: Pod = {
    metadata: { ...meta, ...(field === 'uid' || field === 'namespace' || field === 'name' ? { [field]: value } : {}) },
    spec: { containers: [container], volumes: [{ name: 'scratch', emptyDir: {} }], restartPolicy: 'Always', terminationGracePeriodSeconds: 0 },
  };
  if (field === 'container') container.name = value;
  if (field === 'volume') pod.spec!.volumes = [{ name: value, emptyDir: {} }];
  if (field === 'localhostProfile') container.securityContext = { seccompProfile: { type: 'Localhost', localhostProfile: value } };
  return pod;
}

/** Whether the value is one the builders must refuse (a safe one may run, or fail for another reason). */
function mustBeRefused(field: HostileField, value: string): boolean {
  if (field === 'localhostProfile') return descendingPathError(value) !== undefined;
  return pathSegmentError(value) !== undefined || (field === 'uid' && value.includes('_'));
}

/** Every error and waiting message the sync result carries. */
function messagesOf(result: SyncPodResult): string[] {
  const waiting = (result.status.containerStatuses ?? []).map((status) => status.state?.waiting?.message ?? '');
  return [...result.errors.map((error) => error.message), ...waiting];
}

const hostileFields = fc.constantFrom<HostileField>('uid', 'namespace', 'name', 'container', 'volume', 'localhostProfile');

test('property: a pod with a hostile path-forming field is refused naming the field, terminates, and touches nothing outside', async () => {
  const before = await snapshotTree(sentinel, allowed);
  let run = 0;
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(hostileFields, hostilePathStrings(join(sentinel, 'victim')), async (field, value) => {
      const pod = hostilePod(field, value, run++);
      const synced = await shard.sync({ kind: 'sync', pod });
      if (mustBeRefused(field, value)) {
        refused++;
        const messages = messagesOf(synced);
        assert.ok(messages.some((message) => message.includes(REFUSED_AS[field])), `${field} ${JSON.stringify(value)}: ${JSON.stringify(messages)}`);
      }
      await shard.sync({ kind: 'terminating', pod, gracePeriodSeconds: 0 });
      const terminated = await shard.sync({ kind: 'terminated', pod, removeFromRuntime: true });
      assert.deepEqual(terminated.errors, [], `${field} ${JSON.stringify(value)}: its removal completes`);
    }),
    { numRuns: NUM_RUNS },
  );
  assert.ok(refused > NUM_RUNS / 3, `most generated values are hostile (${refused} of ${NUM_RUNS})`);
  // The allowed directories' own mtimes move as pods come and go; their removal would still show.
  const ownMtimes = new Set(allowed.map((dir) => `changed ${relative(sentinel, dir)}`));
  const changes = treeChanges(before, await snapshotTree(sentinel, allowed)).filter((change) => !ownMtimes.has(change));
  assert.deepEqual(changes, [], 'nothing outside the root dir, the pod log directory and the cgroup root was created, written or removed');

  const good = await shard.sync({ kind: 'sync', pod: hostilePod('name', 'still-works', run++) });
  assert.equal(good.status.phase, 'Running', 'the shard goes on syncing other pods');
});
