// RuntimeService's exec calls of the simulated runtime: ExecSync runs the command
// through the exec evaluator and answers with its output, as containerd does
// (a deadline from req.timeout → DeadlineExceeded); Exec, Attach and PortForward
// only check their target and hand out a one-time URL on the sim's streaming
// server (streaming/streaming-server.ts), which serves the session itself.
import { status as GrpcStatus } from '@grpc/grpc-js';
import type * as cri from '../shared/cri/types.js';
import { filesOf } from './container-files.js';
import { runExecCommand } from './exec-commands.js';
import type { SimContext } from './sim-context.js';
import { SimError, invalidArgument, unknown } from './sim-error.js';
import type { ContainerRecord } from './state-store.js';
import type { StreamingServer } from './streaming/streaming-server.js';

/** As containerd caps each of ExecSync's output streams. */
export const EXEC_SYNC_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

function runningContainer(ctx: SimContext, id: string): ContainerRecord {
  const container = ctx.store.getContainer(id);
  if (container.state !== 'CONTAINER_RUNNING') {
    throw unknown(`failed to exec in container: container is in ${container.state} state`);
  }
  return container;
}

export async function execSync(ctx: SimContext, req: cri.ExecSyncRequest__Output): Promise<cri.ExecSyncResponse> {
  await ctx.latency.wait('ExecSync');
  const container = runningContainer(ctx, req.container_id);
  const timeoutSeconds = Number(req.timeout);
  const deadline = new AbortController();
  const timer = timeoutSeconds > 0 ? setTimeout(() => deadline.abort(), timeoutSeconds * 1000) : undefined;
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  try {
    const exitCode = await runExecCommand(req.cmd, filesOf(container, ctx.store.findSandbox(container.sandboxId)), {
      stdout: (chunk) => stdout.push(Buffer.from(chunk)),
      stderr: (chunk) => stderr.push(Buffer.from(chunk)),
      signal: deadline.signal,
    });
    if (deadline.signal.aborted) {
      throw new SimError(
        GrpcStatus.DEADLINE_EXCEEDED,
        `failed to exec in container: timeout ${timeoutSeconds}s exceeded: context deadline exceeded`,
      );
    }
    return { stdout: capped(stdout), stderr: capped(stderr), exit_code: exitCode };
  } finally {
    clearTimeout(timer);
  }
}

function capped(chunks: Buffer[]): Buffer {
  const all = Buffer.concat(chunks);
  return all.length > EXEC_SYNC_MAX_OUTPUT_BYTES ? all.subarray(0, EXEC_SYNC_MAX_OUTPUT_BYTES) : all;
}

/** As the CRI streaming server's validation: a session needs at least one stream. */
function checkStreams(req: { stdin: boolean; stdout: boolean; stderr: boolean }): void {
  if (!req.stdin && !req.stdout && !req.stderr) throw invalidArgument('one of stdin, stdout, or stderr must be set');
}

export async function exec(ctx: SimContext, streaming: StreamingServer, req: cri.ExecRequest__Output): Promise<cri.ExecResponse> {
  await ctx.latency.wait('Exec');
  const container = runningContainer(ctx, req.container_id);
  if (req.cmd.length === 0) throw invalidArgument('cmd must not be empty');
  checkStreams(req);
  const { tty, stdin, stdout } = req;
  return { url: streaming.issue({ kind: 'exec', containerId: container.id, cmd: req.cmd, tty, stdin, stdout, stderr: req.stderr && !tty }) };
}

export async function attach(ctx: SimContext, streaming: StreamingServer, req: cri.AttachRequest__Output): Promise<cri.AttachResponse> {
  await ctx.latency.wait('Attach');
  const container = runningContainer(ctx, req.container_id);
  checkStreams(req);
  const { tty, stdin, stdout } = req;
  return { url: streaming.issue({ kind: 'attach', containerId: container.id, cmd: [], tty, stdin, stdout, stderr: req.stderr && !tty }) };
}

export async function portForward(
  ctx: SimContext,
  streaming: StreamingServer,
  req: cri.PortForwardRequest__Output,
): Promise<cri.PortForwardResponse> {
  await ctx.latency.wait('PortForward');
  const sandbox = ctx.store.getSandbox(req.pod_sandbox_id);
  if (sandbox.state !== 'SANDBOX_READY') {
    throw unknown(`failed to port forward: sandbox "${sandbox.id}" is not running`);
  }
  return { url: streaming.issue({ kind: 'portforward', sandboxId: sandbox.id, ports: req.port }) };
}
