// Attack: hostile path-forming fields in static pod manifests, against the real
// process on the simulated runtime. fast-check writes batches of manifests whose UID,
// namespace, name, container name, volume name or seccomp localhostProfile (pod or
// container level) carry '..', '/', absolute paths, NUL, unicode or very long
// strings; shardlet reads them, runs what it accepts, and the test removes them.
// Every file and directory of a sentinel tree around --root-dir and the pod log
// directory, and of a private cgroup tree around the cgroup root (real cgroups:
// cgroupsPerQOS is on, as by default), is listed with its size and mtime before and
// after each batch: nothing outside those three may be created, written or removed.
// The allowed directories sit deeper in the sentinel trees than any generated climb
// reaches, and the long climbs aim into the sentinel, so that a fault lands where it
// is seen, never elsewhere on the host.
//
// Writes the host's cgroup tree (under a root of its own, removed at the end): run it
// by hand under `flock /tmp/shardlet-containerd.lock`.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { cgroupMounts, detectCgroupLayout, removeCgroup } from '../../src/shared/cm/cgroup-fs.js';
import type { Pod } from '../../src/shared/types.js';
import { startSimRuntime } from '../../src/simruntime/server.js';
import { findPod, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { hostilePathStrings, MAX_SHORT_CLIMBS } from '../helpers/path-arbitraries.js';
import { snapshotTree, treeChanges, type TreeSnapshot } from '../helpers/tree-snapshot.js';

const IMAGE = 'busybox:1.36';
const NODE = 'test-node';
/** Batches (fast-check runs) and manifests per batch: a few seconds each on 2 busy cores. */
const BATCHES = 3;
const MIN_MANIFESTS = 12;
const MAX_MANIFESTS = 20;
const ACT_TIMEOUT_MS = 45_000;
const REMOVE_TIMEOUT_MS = 20_000;
const ERROR_LEVEL = 50;
/** Levels between a sentinel's top and the allowed directories: more than any short climb. */
const NESTING = Array.from({ length: MAX_SHORT_CLIMBS + 2 }, (_, i) => `n${i}`);

const aux = mkdtempSync(join(tmpdir(), 'shardlet-attack-aux-'));
const sentinel = mkdtempSync(join(tmpdir(), 'shardlet-attack-paths-'));
const deep = join(sentinel, ...NESTING);
const rootDir = join(deep, 'root');
const podLogsDir = join(deep, 'logs');
const manifestDir = join(deep, 'manifests');
const cgroupTop = `/shardlet-attack-${process.pid}-${Date.now()}`;
const cgroupRoot = [cgroupTop, ...NESTING].join('/');
const victimTarget = join(sentinel, 'victim');

let shardlet: KubeletProcess | undefined;
let closeSim: (() => Promise<void>) | undefined;
after(async () => {
  await shardlet?.stop();
  await closeSim?.();
  await removeCgroup(await detectCgroupLayout(), cgroupTop).catch(() => undefined);
  rmSync(sentinel, { recursive: true, force: true });
  rmSync(aux, { recursive: true, force: true });
});

/** The fields a batch member makes hostile (the rest stay ordinary). */
interface HostileFields {
  uid?: string;
  namespace?: string;
  name?: string;
  container?: string;
  volume?: string;
  podProfile?: string;
  containerProfile?: string;
}

const FIELDS: Array<keyof HostileFields> = ['uid', 'namespace', 'name', 'container', 'volume', 'podProfile', 'containerProfile'];
/** One or two hostile fields per manifest, so that each reaches the code behind it without another refusing the pod first. */
const hostileFields: fc.Arbitrary<HostileFields> = fc
  .array(fc.tuple(fc.constantFrom(...FIELDS), hostilePathStrings(victimTarget)), { minLength: 1, maxLength: 2 })
  .map((pairs) => Object.fromEntries(pairs) as HostileFields);

/** A UID that is a plain token is not an attack, but two pods sharing one would be a different test: make it unique. */
const PLAIN_TOKEN = /^[A-Za-z0-9-]+$/;

function manifestOf(fields: HostileFields, id: string): { pod: Pod; podName: string } {
  const name = fields.name ?? id;
  const container: NonNullable<Pod['spec']>['containers'][number] = { name: fields.container ?? 'c', image: IMAGE };
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [container], terminationGracePeriodSeconds: 0 },
  };
  const metadata = pod.metadata!;
  if (fields.uid !== undefined) metadata.uid = PLAIN_TOKEN.test(fields.uid) ? `${fields.uid}-${id}` : fields.uid;
  if (fields.namespace !== undefined) metadata.namespace = fields.namespace;
  if (fields.volume !== undefined) {
    pod.spec!.volumes = [{ name: fields.volume, emptyDir: {} }];
    container.volumeMounts = [{ name: fields.volume, mountPath: '/data' }];
  }
  if (fields.podProfile !== undefined) pod.spec!.securityContext = { seccompProfile: { type: 'Localhost', localhostProfile: fields.podProfile } };
  if (fields.containerProfile !== undefined) container.securityContext = { seccompProfile: { type: 'Localhost', localhostProfile: fields.containerProfile } };
  return { pod, podName: `${name}-${NODE}` };
}

/** The allowed places: a snapshot skips below them, and their own mtimes move as pods come and go. */
function allowedOnly(changes: string[], top: string, allowed: string[]): string[] {
  const own = new Set(allowed.map((dir) => `changed ${relative(top, dir)}`));
  return changes.filter((change) => !own.has(change));
}

interface Snapshots {
  files: TreeSnapshot;
  cgroups: TreeSnapshot[];
}

async function snapshotAll(mounts: string[]): Promise<Snapshots> {
  const files = await snapshotTree(sentinel, [rootDir, podLogsDir, manifestDir]);
  const cgroups = await Promise.all(mounts.map((mount) => snapshotTree(join(mount, cgroupTop), [join(mount, cgroupRoot)])));
  return { files, cgroups };
}

function changesBetween(before: Snapshots, after: Snapshots, mounts: string[]): string[] {
  const files = allowedOnly(treeChanges(before.files, after.files), sentinel, [rootDir, podLogsDir, manifestDir]);
  const cgroups = mounts.flatMap((mount, index) => {
    const top = join(mount, cgroupTop);
    return allowedOnly(treeChanges(before.cgroups[index]!, after.cgroups[index]!), top, [join(mount, cgroupRoot)]).map((change) => `${top}: ${change}`);
  });
  return [...files, ...cgroups];
}

/** Whether shardlet logged the manifest file as refused (error level, naming the file). */
function refusedIn(kubelet: KubeletProcess, file: string): boolean {
  return kubelet.logs.some((line) => line.level === ERROR_LEVEL && line.path === file);
}

test('hostile path-forming manifest fields never make shardlet create, write or remove anything outside its directories', async (t) => {
  // Something to overwrite or remove at every level a climb can land on.
  for (let depth = 0; depth <= NESTING.length; depth++) {
    const level = join(sentinel, ...NESTING.slice(0, depth));
    mkdirSync(join(level, 'victim'), { recursive: true });
    writeFileSync(join(level, 'victim', 'keep'), 'sentinel');
  }
  mkdirSync(manifestDir, { recursive: true });
  mkdirSync(podLogsDir, { recursive: true });
  const configPath = join(aux, 'kubelet-config.json');
  writeFileSync(configPath, JSON.stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    podLogsDir,
    cgroupRoot,
    authentication: { webhook: { enabled: false } },
    authorization: { mode: 'AlwaysAllow' },
  }));
  const sim = await startSimRuntime({ socketPath: join(aux, 'sim.sock'), latency: { scale: 0 }, preloadImages: [IMAGE] });
  closeSim = () => sim.close();
  // The control pod: it runs beside every batch and shows the kubelet acting (and its directories' modes).
  const control = manifestOf({}, 'control');
  control.pod.spec!.volumes = [{ name: 'scratch', emptyDir: {} }];
  writeFileSync(join(manifestDir, 'control.json'), JSON.stringify(control.pod));
  shardlet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 1, workDir: deep, nodeName: NODE, extraArgs: [`--config=${configPath}`] });
  const kubelet = shardlet;
  const running = await waitUntil(async () => {
    const pod = findPod(await kubelet.pods(), 'control');
    return pod?.status?.phase === 'Running' ? pod : undefined;
  }, ACT_TIMEOUT_MS, 'the control pod Running');
  const controlUid = running.metadata!.uid!;
  assert.equal(statSync(join(rootDir, 'pods')).mode & 0o777, 0o750, '<root-dir>/pods is 0750, as upstream');
  assert.equal(statSync(join(rootDir, 'pods', controlUid)).mode & 0o777, 0o750, 'a pod directory is 0750, as upstream');

  const mounts = cgroupMounts(await detectCgroupLayout());
  let batch = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(hostileFields, { minLength: MIN_MANIFESTS, maxLength: MAX_MANIFESTS }), async (members) => {
      batch++;
      const startedAt = Date.now();
      const before = await snapshotAll(mounts);
      const written = members.map((fields, index) => ({ ...manifestOf(fields, `b${batch}-m${index}`), file: join(manifestDir, `b${batch}-m${index}.json`), fields }));
      // Each file appears whole (a rename from a dotfile, which the source skips).
      for (const { pod, file } of written) {
        const temporary = join(manifestDir, `.${relative(manifestDir, file)}`);
        await writeFile(temporary, JSON.stringify(pod));
        await rename(temporary, file);
      }
      // Acted on: each file is refused in the log, or its pod runs, or a sync of it failed
      // (logged), or a container of it is left waiting for a reason of its own.
      const pending = async () => {
        const pods = await kubelet.pods();
        return written.filter(({ file, pod, podName }) => {
          const ref = `${pod.metadata?.namespace ?? 'default'}/${podName}`;
          const syncFailed = kubelet.logs.some((line) => line.msg === 'Pod sync failed' && line.pod === ref);
          const status = pods.find((item) => item.metadata?.name === podName)?.status;
          const stuck = (status?.containerStatuses ?? []).some((container) => (container.state?.waiting?.reason ?? 'ContainerCreating') !== 'ContainerCreating');
          return !refusedIn(kubelet, file) && !syncFailed && !stuck && status?.phase !== 'Running';
        });
      };
      await waitUntil(async () => (await pending()).length === 0, ACT_TIMEOUT_MS, `batch ${batch} acted on`).catch(async (err: Error) => {
        throw new Error(`${err.message}; pending: ${JSON.stringify((await pending()).map(({ fields }) => fields))}`);
      });
      await Promise.all(written.map(({ file }) => rm(file)));
      // Gone again: only the control pod left in /pods, the root dir and the log dir. What it
      // touched outside is judged even when that never happens, and is the first failure named.
      const leftovers = async () => {
        const names = (await kubelet.pods()).map((pod) => pod.metadata?.name);
        const podDirs = await readdir(join(rootDir, 'pods'));
        const logDirs = await readdir(podLogsDir);
        return names.length === 1 && podDirs.length === 1 && podDirs[0] === controlUid && logDirs.length === 1 ? undefined : { names, podDirs, logDirs };
      };
      const removed = await waitUntil(async () => (await leftovers()) === undefined, REMOVE_TIMEOUT_MS, `batch ${batch} removed`).then(
        () => true,
        () => false,
      );
      const changes = changesBetween(before, await snapshotAll(mounts), mounts);
      t.diagnostic(`batch ${batch}: ${members.length} manifests, ${written.filter(({ file }) => !refusedIn(kubelet, file)).length} ran, ${Date.now() - startedAt} ms`);
      assert.deepEqual(changes, [], `batch ${batch} touched something outside the allowed directories`);
      assert.ok(removed, `batch ${batch}: its pods and their directories are gone: ${JSON.stringify(await leftovers())}`);
    }),
    // Each run takes seconds: no shrinking; the failing batch and what it touched are printed whole.
    { numRuns: BATCHES, endOnFailure: true, includeErrorInReport: true },
  );
  assert.ok(kubelet.child.exitCode === null && kubelet.child.signalCode === null, 'shardlet is still running');
  assert.equal(findPod(await kubelet.pods(), 'control')?.status?.phase, 'Running', 'the control pod ran throughout');
});
