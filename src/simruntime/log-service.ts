// RuntimeService's log call of the simulated runtime: ReopenContainerLog, after
// the kubelet rotated a container's log file (container-log-writer.ts writes them).
import type * as cri from '../shared/cri/types.js';
import type { SimContext } from './sim-context.js';

export async function reopenContainerLog(ctx: SimContext, req: cri.ReopenContainerLogRequest__Output): Promise<cri.ReopenContainerLogResponse> {
  await ctx.latency.wait('ReopenContainerLog');
  await ctx.logWriter.reopen(ctx.store.getContainer(req.container_id));
  return {};
}
