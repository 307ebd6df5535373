// Node-pressure eviction on real containerd: the best-effort pod holds about 60 MB in
// a shell variable, its working set as the runtime's stats report it.
import { CriClient } from '../../src/shared/cri/client.js';
import { ensureContainerd } from '../../src/tools/containerd-env.js';
import { evictionScenario, EVICTION_POD_NAMES } from './eviction-scenario.js';

evictionScenario(async () => {
  const containerd = ensureContainerd();
  return {
    endpoint: containerd.endpoint,
    image: containerd.busyboxImage,
    hogCommand: ['sh', '-c', 'hog=$(head -c 60000000 /dev/zero | tr "\\0" x); sleep 3600'],
    // Evicted API pods keep their stopped sandboxes (their objects still exist): take them away for the next tests.
    stop: async () => {
      const cri = new CriClient(containerd.endpoint, { timeoutMs: 30_000 });
      const { items } = await cri.listPodSandbox({});
      const ours = items.filter((sandbox) => EVICTION_POD_NAMES.includes(sandbox.metadata?.name ?? '') && sandbox.metadata?.namespace === 'default');
      for (const sandbox of ours) {
        await cri.stopPodSandbox({ pod_sandbox_id: sandbox.id });
        await cri.removePodSandbox({ pod_sandbox_id: sandbox.id });
      }
      cri.close();
    },
  };
});
