// Removes a test's work directory, first unmounting what shardlet mounted below it
// (the tmpfs of Secret volumes): a test that failed half-way leaves its pods, and
// their mounts, behind, and a mount point cannot be removed.
import { rm } from 'node:fs/promises';
import { mountsUnder, unmount } from '../../src/workers/volumes/mountinfo.js';

export async function removeWorkDir(workDir: string): Promise<void> {
  for (const entry of await mountsUnder(workDir)) await unmount(entry.mountPoint);
  await rm(workDir, { recursive: true, force: true });
}
