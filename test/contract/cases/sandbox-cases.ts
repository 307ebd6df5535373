// The runtime-wide calls and the pod sandbox's life: api.proto's RuntimeService
// comments on RunPodSandbox, StopPodSandbox, RemovePodSandbox and PodSandboxStatus,
// and cri-tools' pkg/validate runtime_info.go, pod.go and idempotence.go.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { failureCode, type ContractCase } from '../contract-context.js';

export const SANDBOX_CASES: ContractCase[] = [
  {
    name: 'Version names the runtime and CRI v1',
    spec: 'critest runtime_info.go "runtime should support returning version": runtime name, version and API version set',
    async run(ctx) {
      const version = await ctx.client.version({ version: 'v1' });
      assert.ok(version.runtime_name, 'runtime_name');
      assert.ok(version.runtime_version, 'runtime_version');
      assert.equal(version.runtime_api_version, 'v1');
    },
  },
  {
    name: 'Status reports RuntimeReady and NetworkReady true',
    spec: 'critest runtime_info.go "runtime should support returning runtime info"; api.proto RuntimeCondition: both conditions required',
    async run(ctx) {
      const status = await ctx.client.status({});
      const conditions = new Map((status.status?.conditions ?? []).map((c) => [c.type, c.status]));
      assert.equal(conditions.get('RuntimeReady'), true);
      assert.equal(conditions.get('NetworkReady'), true);
    },
  },
  {
    name: 'RunPodSandbox answers with a READY sandbox that ListPodSandbox finds by ID',
    spec: 'critest pod.go "runtime should support running PodSandbox"; api.proto RunPodSandbox: "the runtime must ensure the sandbox is in the ready state on success"',
    async run(ctx) {
      const sandbox = await ctx.sandbox('run');
      assert.equal((await ctx.sandboxStatus(sandbox.id)).state, 'SANDBOX_READY');
      const listed = await ctx.client.listPodSandbox({ filter: { id: sandbox.id } });
      assert.deepEqual(listed.items.map((item) => item.id), [sandbox.id]);
    },
  },
  {
    name: 'A sandbox keeps its metadata, labels and annotations',
    spec: 'critest pod.go "runtime should support preserving PodSandbox attributes"; api.proto: labels and annotations "MUST NOT be modified by the runtime"',
    async run(ctx) {
      const sandbox = await ctx.sandbox('attrs', { labels: { foo: 'bar' }, annotations: { abc: 'def', 'example.com/x': 'a b\nc' } });
      const status = await ctx.sandboxStatus(sandbox.id);
      const [listed] = (await ctx.full.listPodSandbox({ filter: { id: sandbox.id } })).items;
      for (const view of [status, listed]) {
        assert.deepEqual(
          { ...view.metadata },
          { ...sandbox.config.metadata },
        );
        assert.equal(view.labels.foo, 'bar');
        assert.deepEqual(view.annotations, sandbox.config.annotations);
      }
    },
  },
  {
    name: 'StopPodSandbox leaves the sandbox NOTREADY',
    spec: 'critest pod.go "runtime should support stopping PodSandbox"',
    async run(ctx) {
      const sandbox = await ctx.sandbox('stop');
      await ctx.client.stopPodSandbox({ pod_sandbox_id: sandbox.id });
      assert.equal((await ctx.sandboxStatus(sandbox.id)).state, 'SANDBOX_NOTREADY');
    },
  },
  {
    name: 'StopPodSandbox of a stopped sandbox succeeds',
    spec: 'critest idempotence.go "StopPodSandbox should not return an error if already stopped"; api.proto StopPodSandbox: idempotent',
    async run(ctx) {
      const sandbox = await ctx.sandbox('stop-twice');
      await ctx.client.stopPodSandbox({ pod_sandbox_id: sandbox.id });
      await ctx.client.stopPodSandbox({ pod_sandbox_id: sandbox.id });
      assert.equal((await ctx.sandboxStatus(sandbox.id)).state, 'SANDBOX_NOTREADY');
    },
  },
  {
    name: 'StopPodSandbox of an unknown ID succeeds',
    spec: 'api.proto StopPodSandbox: "This call is idempotent, and must not return an error if all relevant resources have already been reclaimed"; critest idempotence.go "should not return an error if not found"',
    async run(ctx) {
      await ctx.client.stopPodSandbox({ pod_sandbox_id: randomUUID() });
    },
    containerd16: {
      reason: 'containerd 1.6 looks the sandbox up first and answers NotFound; 1.7 and 2.x (and CRI-O) return success, as critest requires',
      async run(ctx) {
        assert.equal(await failureCode(ctx.client.stopPodSandbox({ pod_sandbox_id: randomUUID() })), 'NOT_FOUND');
      },
    },
  },
  {
    name: 'StopPodSandbox ends the sandbox\'s running containers',
    spec: 'api.proto StopPodSandbox: "If there are any running containers in the sandbox, they must be forcibly terminated"',
    async run(ctx) {
      const sandbox = await ctx.sandbox('stop-kills');
      const id = await ctx.runningContainer(sandbox, 'sleeper', ['sleep', '3600']);
      await ctx.client.stopPodSandbox({ pod_sandbox_id: sandbox.id }, 60_000);
      assert.equal((await ctx.containerStatus(id)).state, 'CONTAINER_EXITED');
    },
  },
  {
    name: 'RemovePodSandbox takes the sandbox away',
    spec: 'critest pod.go "runtime should support removing PodSandbox"',
    async run(ctx) {
      const sandbox = await ctx.sandbox('remove');
      await ctx.client.stopPodSandbox({ pod_sandbox_id: sandbox.id });
      await ctx.client.removePodSandbox({ pod_sandbox_id: sandbox.id });
      assert.equal((await ctx.client.listPodSandbox({ filter: { id: sandbox.id } })).items.length, 0);
    },
  },
  {
    name: 'RemovePodSandbox of a sandbox with a running container removes both',
    spec: 'api.proto RemovePodSandbox: "If there are any running containers in the sandbox, they must be forcibly terminated and removed"',
    async run(ctx) {
      const sandbox = await ctx.sandbox('remove-running');
      const id = await ctx.runningContainer(sandbox, 'sleeper', ['sleep', '3600']);
      await ctx.client.stopPodSandbox({ pod_sandbox_id: sandbox.id }, 60_000);
      await ctx.client.removePodSandbox({ pod_sandbox_id: sandbox.id });
      assert.equal((await ctx.client.listContainers({ filter: { id } })).containers.length, 0);
      assert.equal(await failureCode(ctx.client.containerStatus({ container_id: id })), 'NOT_FOUND');
    },
  },
  {
    name: 'RemovePodSandbox of an unknown ID succeeds',
    spec: 'api.proto RemovePodSandbox: "must not return an error if the sandbox has already been removed"; critest idempotence.go',
    async run(ctx) {
      await ctx.client.removePodSandbox({ pod_sandbox_id: randomUUID() });
    },
  },
  {
    name: 'PodSandboxStatus of an unknown ID is NotFound',
    spec: 'api.proto PodSandboxStatus: "If the PodSandbox is not present, returns an error"; the kubelet reads NotFound as gone',
    async run(ctx) {
      assert.equal(await failureCode(ctx.client.podSandboxStatus({ pod_sandbox_id: randomUUID() })), 'NOT_FOUND');
    },
  },
  {
    name: 'A second sandbox with the same name and attempt is refused while the first exists',
    spec: 'containerd and CRI-O reserve the sandbox name <name>_<namespace>_<uid>_<attempt>; the kubelet relies on it to never run a pod twice',
    async run(ctx) {
      const sandbox = await ctx.sandbox('dup');
      await assert.rejects(ctx.client.runPodSandbox({ config: sandbox.config }), /reserve|exists|already/i);
      assert.equal((await ctx.client.listPodSandbox({ filter: { label_selector: sandbox.config.labels } })).items.length, 1);
    },
  },
  {
    name: 'ListPodSandbox filters by state and labels together',
    spec: 'api.proto PodSandboxFilter: "All those fields are combined with \'AND\'"',
    async run(ctx) {
      const mark = ctx.uniqueName('mark');
      const ready = await ctx.sandbox('ready', { labels: { mark } });
      const stopped = await ctx.sandbox('stopped', { labels: { mark } });
      await ctx.client.stopPodSandbox({ pod_sandbox_id: stopped.id });
      const ids = async (state: 'SANDBOX_READY' | 'SANDBOX_NOTREADY') =>
        (await ctx.client.listPodSandbox({ filter: { state: { state }, label_selector: { mark } } })).items.map((item) => item.id);
      assert.deepEqual(await ids('SANDBOX_READY'), [ready.id]);
      assert.deepEqual(await ids('SANDBOX_NOTREADY'), [stopped.id]);
      assert.equal((await ctx.client.listPodSandbox({ filter: { label_selector: { mark: 'other' } } })).items.length, 0);
    },
  },
];
