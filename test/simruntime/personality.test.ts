// The simulated runtime's personalities over its socket with CriClient: where
// containerd 1.6, containerd 2.x and CRI-O answer the same call differently, the
// sim answers as the personality's runtime does (src/simruntime/personality.ts
// names the upstream code each trait comes from). Without one, it answers as it
// always did.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type * as cri from '../../src/shared/cri/types.js';
import { CRIO_POD_PID_NAMESPACE_MISSING } from '../../src/simruntime/container-service.js';
import type { PersonalityName } from '../../src/simruntime/personality.js';
import { containerConfig, eventually, rejectionOf, sandboxConfig, startHarness, subscribeToEvents, TEST_IMAGE, type SimHarness } from './harness.js';

type PidMode = 'POD' | 'CONTAINER' | 'NODE';

async function withSim(personality: PersonalityName | undefined, podEvents: boolean | undefined, body: (h: SimHarness) => Promise<void>): Promise<void> {
  const h = await startHarness({ scale: 0 }, { preloadImages: [TEST_IMAGE], personality, ...(podEvents === undefined ? {} : { podEvents }) });
  try {
    await body(h);
  } finally {
    await h.close();
  }
}


function podConfig(name: string, pid: PidMode = 'CONTAINER', logDirectory?: string): cri.PodSandboxConfig {
  const config = sandboxConfig(name);
  return {
    ...config,
    ...(logDirectory ? { log_directory: logDirectory } : {}),
    linux: { security_context: { namespace_options: { network: 'POD', pid, ipc: 'POD' } } },
  };
}

function appConfig(name: string, command: string[], pid: PidMode = 'CONTAINER'): cri.ContainerConfig {
  return { ...containerConfig(name, command), linux: { security_context: { namespace_options: { network: 'POD', pid, ipc: 'POD' } } } };
}

async function runContainer(h: SimHarness, sandboxId: string, config: cri.PodSandboxConfig, container: cri.ContainerConfig): Promise<string> {
  const { container_id: id } = await h.client.createContainer({ pod_sandbox_id: sandboxId, config: container, sandbox_config: config });
  await h.client.startContainer({ container_id: id });
  return id;
}

/** A pod's full lifecycle with one container that exits on its own: the events a stream saw, as `<type> <object>`. */
async function lifecycleEvents(h: SimHarness): Promise<string[]> {
  const stream = subscribeToEvents(h.client);
  await eventually(async () => (h.sim.eventStreams() === 1 ? true : undefined));
  const config = podConfig('events');
  const sandboxId = (await h.client.runPodSandbox({ config })).pod_sandbox_id;
  const containerId = await runContainer(h, sandboxId, config, appConfig('once', ['sh', '-c', 'exit 3']));
  await eventually(async () => ((await h.client.containerStatus({ container_id: containerId })).status?.state === 'CONTAINER_EXITED' ? true : undefined));
  await h.client.removeContainer({ container_id: containerId });
  await h.client.stopPodSandbox({ pod_sandbox_id: sandboxId });
  await h.client.removePodSandbox({ pod_sandbox_id: sandboxId });
  // Whatever comes, comes before the runtime answers the next call; one more sandbox marks the end.
  await h.client.runPodSandbox({ config: podConfig('marker') });
  await eventually(async () => (stream.events.some((event) => event.pod_sandbox_status?.metadata?.name === 'marker') ? true : undefined));
  stream.stop();
  const names: Record<string, string> = { [sandboxId]: 'sandbox', [containerId]: 'container' };
  return stream.events
    .filter((event) => event.pod_sandbox_status?.metadata?.name !== 'marker')
    .map((event) => `${event.container_event_type.replace('CONTAINER_', '').replace('_EVENT', '')} ${names[event.container_id]}`);
}

describe('personalities: container events', () => {
  it('containerd 1.6 answers GetContainerEvents with UNIMPLEMENTED', async () => {
    await withSim('containerd-1.6', undefined, async (h) => {
      const err = (await subscribeToEvents(h.client).ended) as { code?: number };
      assert.equal(err?.code, GrpcStatus.UNIMPLEMENTED);
    });
  });

  it('containerd 2.x streams every change, DELETED of the container and the sandbox included', async () => {
    await withSim('containerd-2', undefined, async (h) => {
      assert.deepEqual(await lifecycleEvents(h), [
        'CREATED sandbox',
        'STARTED sandbox',
        'CREATED container',
        'STARTED container',
        'STOPPED container',
        'DELETED container',
        'STOPPED sandbox',
        'DELETED sandbox',
      ]);
    });
  });

  it('CRI-O without enable_pod_events (its default) answers OK with an empty stream that ends at once', async () => {
    await withSim('crio', undefined, async (h) => {
      const stream = subscribeToEvents(h.client);
      assert.equal(await stream.ended, undefined, 'ended, without an error');
      assert.deepEqual(stream.events, []);
      assert.equal(h.sim.eventStreams(), 0);
    });
  });

  it('CRI-O with enable_pod_events streams events, but a sandbox never STARTED nor DELETED', async () => {
    await withSim('crio', true, async (h) => {
      assert.deepEqual(await lifecycleEvents(h), [
        'CREATED sandbox',
        'CREATED container',
        'STARTED container',
        'STOPPED container',
        'DELETED container',
        'STOPPED sandbox',
      ]);
    });
  });
});

describe('personalities: sandbox stats', () => {
  /** One pod with a running container and an exited one (the instance a restart left). */
  async function podStats(h: SimHarness): Promise<cri.PodSandboxStats__Output> {
    const config = podConfig('stats');
    const sandboxId = (await h.client.runPodSandbox({ config })).pod_sandbox_id;
    const exitedId = await runContainer(h, sandboxId, config, appConfig('done', ['sh', '-c', 'exit 0']));
    await runContainer(h, sandboxId, config, appConfig('app', ['sleep', '3600']));
    await eventually(async () => ((await h.client.containerStatus({ container_id: exitedId })).status?.state === 'CONTAINER_EXITED' ? true : undefined));
    const { stats } = await h.client.listPodSandboxStats({});
    assert.equal(stats.length, 1);
    return stats[0];
  }

  it('containerd 2.x lists the exited instance too, without CPU or memory figures', async () => {
    await withSim('containerd-2', undefined, async (h) => {
      const stats = await podStats(h);
      const byName = new Map(stats.linux!.containers.map((container) => [container.attributes!.metadata!.name, container]));
      assert.deepEqual([...byName.keys()].sort(), ['app', 'done']);
      assert.equal(byName.get('done')!.cpu, null);
      assert.equal(byName.get('done')!.memory, null);
      assert.ok(byName.get('app')!.cpu?.usage_core_nano_seconds);
      assert.ok(stats.linux!.cpu?.usage_core_nano_seconds, 'pod-level CPU');
    });
  });

  it('CRI-O gives no pod-level CPU or memory, and running containers only', async () => {
    await withSim('crio', undefined, async (h) => {
      const stats = await podStats(h);
      assert.equal(stats.linux!.cpu, null);
      assert.equal(stats.linux!.memory, null);
      assert.deepEqual(stats.linux!.containers.map((container) => container.attributes!.metadata!.name), ['app']);
      assert.ok(stats.linux!.containers[0].memory?.working_set_bytes, 'container figures are there');
    });
  });

  it('without a personality: running containers only, with pod-level figures, as before', async () => {
    await withSim(undefined, undefined, async (h) => {
      const stats = await podStats(h);
      assert.deepEqual(stats.linux!.containers.map((container) => container.attributes!.metadata!.name), ['app']);
      assert.ok(stats.linux!.memory?.working_set_bytes);
    });
  });
});

describe('personalities: log record times', () => {
  for (const [personality, pattern] of [
    ['containerd-2', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z stdout F hello$/],
    ['crio', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}\+00:00 stdout F hello$/],
  ] as const) {
    it(`${personality} writes ${personality === 'crio' ? "conmon's +00:00 with nine digits" : 'RFC3339Nano with Z'}`, async () => {
      const logDirectory = mkdtempSync(join(tmpdir(), 'shardlet-personality-logs-'));
      // The kubelet makes the container's directory; the runtime only writes the file.
      mkdirSync(join(logDirectory, 'talker'));
      try {
        await withSim(personality, undefined, async (h) => {
          const config = podConfig('logs', 'CONTAINER', logDirectory);
          const sandboxId = (await h.client.runPodSandbox({ config })).pod_sandbox_id;
          const id = await runContainer(h, sandboxId, config, appConfig('talker', ['sh', '-c', 'echo hello; sleep 3600']));
          const line = await eventually(async () => {
            try {
              return readFileSync(join(logDirectory, 'talker/0.log'), 'utf8').split('\n')[0] || undefined;
            } catch {
              return undefined;
            }
          });
          assert.match(line, pattern);
          await h.client.stopContainer({ container_id: id, timeout: 0 });
        });
      } finally {
        rmSync(logDirectory, { recursive: true, force: true });
      }
    });
  }
});

describe('personalities: PID namespaces', () => {
  it("CRI-O refuses a container asking for the pod's PID namespace in a sandbox without one, with CRI-O's words", async () => {
    await withSim('crio', undefined, async (h) => {
      const config = podConfig('pid', 'CONTAINER');
      const sandboxId = (await h.client.runPodSandbox({ config })).pod_sandbox_id;
      const err = await rejectionOf(h.client.createContainer({ pod_sandbox_id: sandboxId, config: appConfig('app', ['sleep', '3600'], 'POD'), sandbox_config: config }));
      assert.equal(err.code, GrpcStatus.UNKNOWN);
      assert.match(String(err.details), new RegExp(CRIO_POD_PID_NAMESPACE_MISSING));
      // Consistent modes pass: what a kubelet sends (CONTAINER in both, or POD in both with shareProcessNamespace).
      await runContainer(h, sandboxId, config, appConfig('own', ['sleep', '3600'], 'CONTAINER'));
      const shared = podConfig('shared', 'POD');
      const sharedId = (await h.client.runPodSandbox({ config: shared })).pod_sandbox_id;
      await runContainer(h, sharedId, shared, appConfig('app', ['sleep', '3600'], 'POD'));
    });
  });

  it('containerd accepts it (the container joins the pause process)', async () => {
    await withSim('containerd-2', undefined, async (h) => {
      const config = podConfig('pid', 'CONTAINER');
      const sandboxId = (await h.client.runPodSandbox({ config })).pod_sandbox_id;
      await runContainer(h, sandboxId, config, appConfig('app', ['sleep', '3600'], 'POD'));
    });
  });
});

describe('personalities: StopPodSandbox on running containers', () => {
  /** Exit codes of a SIGTERM-obeying and a SIGTERM-ignoring container once StopPodSandbox (2 s deadline) answered. */
  async function exitCodesAfterSandboxStop(h: SimHarness): Promise<{ obeying: number; ignoring: number; stopped: boolean }> {
    const config = podConfig('stop');
    const sandboxId = (await h.client.runPodSandbox({ config })).pod_sandbox_id;
    const obeyingId = await runContainer(h, sandboxId, config, appConfig('obeying', ['sleep', '3600']));
    const ignoringId = await runContainer(h, sandboxId, config, appConfig('ignoring', ['sh', '-c', "trap '' TERM; while true; do sleep 1; done"]));
    const stopped = await h.client.stopPodSandbox({ pod_sandbox_id: sandboxId }, 2_000).then(
      () => true,
      () => false,
    );
    const exitCode = async (id: string) => (await h.client.containerStatus({ container_id: id })).status!.exit_code;
    const ignoring = await eventually(async () => {
      const status = (await h.client.containerStatus({ container_id: ignoringId })).status!;
      return status.state === 'CONTAINER_EXITED' ? status.exit_code : undefined;
    });
    return { obeying: await exitCode(obeyingId), ignoring, stopped };
  }

  it('containerd kills them at once (SIGKILL, 137)', async () => {
    await withSim('containerd-2', undefined, async (h) => {
      assert.deepEqual(await exitCodesAfterSandboxStop(h), { obeying: 137, ignoring: 137, stopped: true });
    });
  });

  it("CRI-O gives them SIGTERM and what is left of the call's deadline: one that ignores SIGTERM is killed only then", async () => {
    await withSim('crio', undefined, async (h) => {
      const outcome = await exitCodesAfterSandboxStop(h);
      assert.equal(outcome.obeying, 143, 'SIGTERM ended it');
      assert.equal(outcome.ignoring, 137, 'killed when the stop timeout ran out');
    });
  });
});
