// A container's life: api.proto's comments on CreateContainer, StartContainer,
// StopContainer, RemoveContainer, ContainerStatus and the filters, cri-tools'
// pkg/validate container.go and idempotence.go, and the OOM kill of
// container_linux.go ("Container OOM").
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import { detectCgroupLayout } from '../../../src/shared/cm/cgroup-fs.js';
import { failureCode, type ContractCase, type ContractContext } from '../contract-context.js';

/** critest's pause command. */
const PAUSE_COMMAND = ['sh', '-c', 'top'];
const SLEEP_COMMAND = ['sleep', '3600'];
const MIB = 1024 * 1024;
/** How long an exited container's Error may still turn into OOMKilled. */
const OOM_REASON_WAIT_MS = 5_000;

export const CONTAINER_CASES: ContractCase[] = [
  {
    name: 'CreateContainer makes a CREATED container that ListContainers finds by ID',
    spec: 'critest container.go "runtime should support creating container"',
    async run(ctx) {
      const sandbox = await ctx.sandbox('create');
      const id = await ctx.container(sandbox, 'created', SLEEP_COMMAND);
      const listed = await ctx.client.listContainers({ filter: { id } });
      assert.deepEqual(listed.containers.map((c) => [c.id, c.state, c.pod_sandbox_id]), [[id, 'CONTAINER_CREATED', sandbox.id]]);
    },
  },
  {
    name: 'StartContainer runs it; StopContainer leaves it EXITED with its end recorded',
    spec: 'critest container.go "runtime should support starting container" and "stopping container"',
    async run(ctx) {
      const sandbox = await ctx.sandbox('start-stop');
      const id = await ctx.runningContainer(sandbox, 'sleeper', SLEEP_COMMAND);
      await ctx.client.stopContainer({ container_id: id, timeout: 60 }, 70_000);
      const status = await ctx.containerStatus(id);
      assert.equal(status.state, 'CONTAINER_EXITED');
      assert.ok(Number(status.finished_at) >= Number(status.started_at) && Number(status.started_at) > 0, 'started_at ≤ finished_at');
      assert.equal(status.exit_code, 143, 'sleep ends on SIGTERM: 128 + 15');
    },
  },
  {
    name: 'StopContainer of a stopped container succeeds',
    spec: 'api.proto StopContainer: "If the container has already been stopped, StopContainer must not return an error"; critest idempotence.go',
    async run(ctx) {
      const sandbox = await ctx.sandbox('stop-twice');
      const id = await ctx.runningContainer(sandbox, 'sleeper', PAUSE_COMMAND);
      await ctx.client.stopContainer({ container_id: id, timeout: 60 }, 70_000);
      await ctx.client.stopContainer({ container_id: id, timeout: 60 }, 70_000);
      assert.equal((await ctx.containerStatus(id)).state, 'CONTAINER_EXITED');
    },
  },
  {
    name: 'StopContainer of an unknown ID succeeds',
    spec: 'api.proto StopContainer: "This call is idempotent"; critest idempotence.go "StopContainer should not return an error if not found"',
    async run(ctx) {
      await ctx.client.stopContainer({ container_id: randomUUID(), timeout: 0 });
    },
    containerd16: {
      reason: 'containerd 1.6 looks the container up first and answers NotFound; 1.7 and 2.x (and CRI-O) return success, as critest requires',
      async run(ctx) {
        assert.equal(await failureCode(ctx.client.stopContainer({ container_id: randomUUID(), timeout: 0 })), 'NOT_FOUND');
      },
    },
  },
  {
    name: 'StopContainer of a created, never started container succeeds and leaves it CREATED',
    spec: 'containerd (1.6 and 2.x) returns at once for a container that is not running; the kubelet must not wait for it (DESIGN.md, facts found later)',
    async run(ctx) {
      const sandbox = await ctx.sandbox('stop-created');
      const id = await ctx.container(sandbox, 'created', SLEEP_COMMAND);
      await ctx.client.stopContainer({ container_id: id, timeout: 2 });
      assert.equal((await ctx.containerStatus(id)).state, 'CONTAINER_CREATED');
    },
  },
  {
    name: 'RemoveContainer removes a created, a running and a stopped container',
    spec: 'critest container.go "removing created / running / stopped container"; api.proto RemoveContainer: "If the container is running, the container must be forcibly removed"',
    async run(ctx) {
      const sandbox = await ctx.sandbox('remove');
      const created = await ctx.container(sandbox, 'created', PAUSE_COMMAND);
      const running = await ctx.runningContainer(sandbox, 'running', PAUSE_COMMAND);
      const stopped = await ctx.runningContainer(sandbox, 'stopped', PAUSE_COMMAND);
      await ctx.client.stopContainer({ container_id: stopped, timeout: 60 }, 70_000);
      for (const id of [created, running, stopped]) {
        await ctx.client.removeContainer({ container_id: id }, 60_000);
        assert.equal((await ctx.client.listContainers({ filter: { id } })).containers.length, 0, `container ${id} still listed`);
      }
    },
  },
  {
    name: 'RemoveContainer of a removed or unknown container succeeds',
    spec: 'api.proto RemoveContainer: "must not return an error if the container has already been removed"; critest idempotence.go',
    async run(ctx) {
      const sandbox = await ctx.sandbox('remove-twice');
      const id = await ctx.container(sandbox, 'created', PAUSE_COMMAND);
      await ctx.client.removeContainer({ container_id: id });
      await ctx.client.removeContainer({ container_id: id });
      await ctx.client.removeContainer({ container_id: randomUUID() });
    },
  },
  {
    name: 'ContainerStatus of an unknown ID is NotFound',
    spec: 'api.proto ContainerStatus: "If the container is not present, returns an error"; the kubelet reads NotFound as gone',
    async run(ctx) {
      assert.equal(await failureCode(ctx.client.containerStatus({ container_id: randomUUID() })), 'NOT_FOUND');
    },
  },
  {
    name: 'Calls naming an unknown container answer NotFound',
    spec: 'api.proto: a container that is not present is an error; containerd answers NotFound, which the kubelet reads as gone',
    async run(ctx) {
      const id = randomUUID();
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['StartContainer', () => ctx.client.startContainer({ container_id: id })],
        ['ExecSync', () => ctx.client.execSync({ container_id: id, cmd: ['true'], timeout: 5 })],
        ['ReopenContainerLog', () => ctx.client.reopenContainerLog({ container_id: id })],
        ['UpdateContainerResources', () => ctx.client.updateContainerResources({ container_id: id, linux: { memory_limit_in_bytes: 64 * MIB } })],
      ];
      for (const [name, call] of calls) assert.equal(await failureCode(call()), 'NOT_FOUND', name);
    },
  },
  {
    name: 'A container keeps its metadata, labels, annotations, image and log path',
    spec: 'api.proto ContainerConfig: labels and annotations "MUST NOT be modified by the runtime"; ContainerStatus.log_path is log_directory joined with log_path',
    async run(ctx) {
      const logDirectory = ctx.logDirectory();
      const sandbox = await ctx.sandbox('attrs', { log_directory: logDirectory });
      const id = await ctx.container(sandbox, 'attrs', SLEEP_COMMAND, {
        labels: { foo: 'bar' },
        annotations: { 'example.com/a': 'x y' },
        log_path: 'attrs/0.log',
      });
      const status = await ctx.containerStatus(id);
      assert.equal(status.labels.foo, 'bar');
      assert.deepEqual(status.annotations, { 'example.com/a': 'x y' });
      assert.equal(status.metadata?.attempt, 0);
      assert.equal(status.log_path, posix.join(logDirectory, 'attrs/0.log'));
      assert.ok(status.image_ref, 'image_ref');
      const [listed] = (await ctx.client.listContainers({ filter: { id } })).containers;
      assert.equal(listed.labels.foo, 'bar');
      assert.deepEqual(listed.annotations, { 'example.com/a': 'x y' });
    },
  },
  {
    name: 'A command that ends on its own leaves EXITED with its exit code and reason',
    spec: 'api.proto ContainerStatus: exit_code, reason; containerd reports "Completed" for 0 and "Error" otherwise',
    async run(ctx) {
      const sandbox = await ctx.sandbox('exit');
      const failing = await ctx.container(sandbox, 'failing', ['sh', '-c', 'exit 3']);
      const succeeding = await ctx.container(sandbox, 'succeeding', ['true']);
      for (const id of [failing, succeeding]) await ctx.client.startContainer({ container_id: id }, 60_000);
      const failed = await ctx.waitForState(failing, 'CONTAINER_EXITED');
      assert.deepEqual([failed.exit_code, failed.reason], [3, 'Error']);
      const completed = await ctx.waitForState(succeeding, 'CONTAINER_EXITED');
      assert.deepEqual([completed.exit_code, completed.reason], [0, 'Completed']);
    },
  },
  {
    name: 'StartContainer of a container that is not CREATED fails',
    spec: 'api.proto StartContainer starts a created container; a started one cannot start again',
    async run(ctx) {
      const sandbox = await ctx.sandbox('start-twice');
      const id = await ctx.runningContainer(sandbox, 'sleeper', SLEEP_COMMAND);
      await assert.rejects(ctx.client.startContainer({ container_id: id }));
    },
  },
  {
    name: 'CreateContainer in an unknown sandbox fails with NotFound',
    spec: 'api.proto CreateContainer "creates a new container in specified PodSandbox"; containerd answers NotFound for a sandbox it does not have',
    async run(ctx) {
      const sandbox = await ctx.sandbox('ghost');
      await ctx.ensureImage(ctx.target.busybox);
      const config = { metadata: { name: 'ghost', attempt: 0 }, image: { image: ctx.target.busybox }, command: SLEEP_COMMAND };
      assert.equal(await failureCode(ctx.client.createContainer({ pod_sandbox_id: randomUUID(), config, sandbox_config: sandbox.config })), 'NOT_FOUND');
    },
  },
  {
    name: 'ListContainers filters by sandbox, state and labels together',
    spec: 'api.proto ContainerFilter: "All those fields are combined with \'AND\'"',
    async run(ctx) {
      const sandbox = await ctx.sandbox('filters');
      const other = await ctx.sandbox('filters-other');
      const running = await ctx.runningContainer(sandbox, 'running', SLEEP_COMMAND, { labels: { role: 'a' } });
      const created = await ctx.container(sandbox, 'created', SLEEP_COMMAND, { labels: { role: 'a' } });
      await ctx.container(other, 'elsewhere', SLEEP_COMMAND, { labels: { role: 'a' } });
      const ids = async (filter: object) => (await ctx.client.listContainers({ filter })).containers.map((c) => c.id).sort();
      assert.deepEqual(await ids({ pod_sandbox_id: sandbox.id }), [running, created].sort());
      assert.deepEqual(await ids({ pod_sandbox_id: sandbox.id, state: { state: 'CONTAINER_RUNNING' } }), [running]);
      assert.deepEqual(await ids({ pod_sandbox_id: sandbox.id, label_selector: { role: 'a' }, state: { state: 'CONTAINER_CREATED' } }), [created]);
      assert.deepEqual(await ids({ pod_sandbox_id: sandbox.id, label_selector: { role: 'b' } }), []);
    },
  },
  {
    name: 'ContainerStats and ListContainerStats report a started container, filtered by labels',
    spec: 'critest container.go "runtime should support listing container stats" and "listing stats for containers filtered by labels"',
    async run(ctx) {
      const sandbox = await ctx.sandbox('stats');
      const mark = ctx.uniqueName('mark');
      const id = await ctx.runningContainer(sandbox, 'stats', SLEEP_COMMAND, { labels: { mark } });
      const { stats } = await ctx.client.containerStats({ container_id: id });
      assert.equal(stats?.attributes?.id, id);
      assert.ok(Number(stats?.cpu?.timestamp) > 0 && Number(stats?.memory?.timestamp) > 0, 'cpu and memory timestamps');
      const listed = await ctx.client.listContainerStats({ filter: { label_selector: { mark } } });
      assert.deepEqual(listed.stats.map((s) => s.attributes?.id), [id]);
      const none = await ctx.client.listContainerStats({ filter: { label_selector: { mark: 'other' } } });
      assert.equal(none.stats.length, 0);
    },
  },
  {
    name: 'A container over its memory limit is OOM-killed: EXITED, 137, OOMKilled',
    spec: 'critest container_linux.go "Container OOM: should terminate with exitCode 137 and reason OOMKilled" (dd bs=20M under a 15 MiB limit)',
    async run(ctx) {
      const sandbox = await ctx.sandbox('oom');
      const id = await ctx.container(sandbox, 'oom', ['sh', '-c', 'dd if=/dev/zero of=/dev/null bs=20M'], {
        linux: { resources: { memory_limit_in_bytes: 15 * MIB, memory_swap_limit_in_bytes: 15 * MIB } },
      });
      await ctx.client.startContainer({ container_id: id }, 60_000);
      assert.deepEqual(await exitOf(ctx, id), [137, 'OOMKilled']);
    },
  },
  {
    name: 'Lowering a running container\'s memory limit below what it holds OOM-kills it',
    spec: 'UpdateContainerResources sets the cgroup limit at once; the kernel\'s OOM killer then ends the process (137, OOMKilled), as on containerd',
    async run(ctx) {
      const id = await memoryHolder(ctx);
      await ctx.client.updateContainerResources({ container_id: id, linux: { memory_limit_in_bytes: 15 * MIB } });
      assert.deepEqual(await exitOf(ctx, id), [137, 'OOMKilled']);
    },
    containerd16: {
      reason: 'on a cgroup v1 memory controller the kernel refuses a limit it cannot reclaim down to (EBUSY), which runc reports as "unable to set memory limit", and the container runs on under its old limit; v2 (and v1 when the limit was still above the usage) OOM-kills, as the case says',
      async run(ctx) {
        const id = await memoryHolder(ctx);
        const memoryOnV1 = (await detectCgroupLayout()).mounts.memory !== undefined;
        // On v1 the write succeeds when dd has not yet touched enough of its buffer: then the kill comes as on v2.
        const refusal = await ctx.client.updateContainerResources({ container_id: id, linux: { memory_limit_in_bytes: 15 * MIB } }).then(
          () => undefined,
          (err: Error) => err,
        );
        if (!memoryOnV1 || refusal === undefined) {
          if (refusal) throw refusal;
          assert.deepEqual(await exitOf(ctx, id), [137, 'OOMKilled']);
          return;
        }
        assert.match(refusal.message, /unable to set memory limit/);
        assert.equal((await ctx.containerStatus(id)).state, 'CONTAINER_RUNNING');
      },
    },
  },
];

/** A running container holding 20 MiB (dd's buffer) under a 256 MiB limit. */
async function memoryHolder(ctx: ContractContext): Promise<string> {
  const sandbox = await ctx.sandbox('oom-update');
  return ctx.runningContainer(sandbox, 'oom', ['sh', '-c', 'dd if=/dev/zero of=/dev/null bs=20M'], {
    linux: { resources: { memory_limit_in_bytes: 256 * MIB } },
  });
}

/**
 * The exit code and reason of a container that ends. containerd learns of an OOM
 * kill from its own event, which can come after the exit's: until then the status
 * says Error, then OOMKilled (containerd's TaskOOM handler sets the reason on an
 * exited container too). So the reason is read again until it stops being Error.
 */
async function exitOf(ctx: ContractContext, id: string): Promise<[number, string]> {
  let status = await ctx.waitForState(id, 'CONTAINER_EXITED');
  await ctx.eventually('an OOM kill\'s reason', async () => (status = await ctx.containerStatus(id)).reason !== 'Error', OOM_REASON_WAIT_MS).catch(() => undefined);
  return [status.exit_code, status.reason];
}
