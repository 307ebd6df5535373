// The CRI contract table against the project's containerd 1.6 (scripts/containerd/setup.sh;
// needs root). Run it under the shared lock:
//   flock /tmp/shardlet-containerd.lock npx node --test dist/test/contract/cri-contract-containerd.test.js
// Every sandbox carries the suite's own label (CONTRACT_LABEL) and is stopped and
// removed after its case; what an interrupted earlier run left under that label
// is removed first. Nothing else on the runtime is touched, and the busybox tags a
// case removes are pulled again after it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { CriClient } from '../../src/shared/cri/client.js';
import { ensureContainerd } from '../../src/tools/containerd-env.js';
import { FullCriClient } from '../helpers/full-cri.js';
import { CONTRACT_LABEL, type ContractTarget } from './contract-context.js';
import { registerContractCases } from './run-contract.js';

const CALL_TIMEOUT_MS = 60_000;

let workDir: string;
let target: ContractTarget;

/** Sandboxes an interrupted earlier run of this suite left behind (its label, any run). */
async function removeLeftovers(client: CriClient): Promise<void> {
  const { items } = await client.listPodSandbox({});
  for (const sandbox of items.filter((item) => CONTRACT_LABEL in item.labels)) {
    await client.stopPodSandbox({ pod_sandbox_id: sandbox.id }, CALL_TIMEOUT_MS);
    await client.removePodSandbox({ pod_sandbox_id: sandbox.id }, CALL_TIMEOUT_MS);
  }
}

before(async () => {
  const containerd = ensureContainerd();
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-cri-contract-containerd-'));
  const client = new CriClient(containerd.endpoint, { timeoutMs: CALL_TIMEOUT_MS });
  await removeLeftovers(client);
  target = {
    kind: 'containerd-1.6',
    client,
    full: new FullCriClient(containerd.endpoint),
    busybox: containerd.busyboxImage,
    // build-images.sh pushes the one busybox image under both tags.
    busyboxOtherTag: containerd.busyboxImage.replace(/:[^:/]+$/, ':latest'),
    // build-images.sh gives busybox-nonroot the user 65534:65534.
    nonRoot: { image: containerd.nonRootImage, uid: 65534 },
    workDir,
    runId: randomBytes(6).toString('hex'),
  };
});

after(async () => {
  if (target) await removeLeftovers(target.client);
  target?.client.close();
  target?.full.close();
  rmSync(workDir, { recursive: true, force: true });
});

registerContractCases('CRI contract: containerd', () => target);
