// Runs one exec or attach session of the simulated runtime over whichever wire
// carried it: exec runs its command through the exec evaluator with the
// session's stdin; attach has no process output to show (the sim runs no
// process), so it echoes what arrives on stdin to stdout until stdin or the
// client ends, the closest a modelled process gets to `kubectl attach -i`.
import { filesOf } from '../container-files.js';
import { runExecCommand } from '../exec-commands.js';
import type { SimContext } from '../sim-context.js';
import type { RemoteCommandStreams } from './remote-command.js';

export interface RemoteCommandRequest {
  kind: 'exec' | 'attach';
  containerId: string;
  cmd: string[];
  tty: boolean;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
}

const ignore = (): void => {};

export async function serveRemoteCommand(ctx: SimContext, request: RemoteCommandRequest, streams: RemoteCommandStreams): Promise<void> {
  const container = ctx.store.findContainer(request.containerId);
  if (!container || container.state !== 'CONTAINER_RUNNING') {
    streams.finish({ error: `container ${request.containerId} is not running` });
    return;
  }
  const stdout = streams.stdout ?? ignore;
  // With a TTY, the process's stderr is the terminal too.
  const stderr = streams.stderr ?? (request.tty ? stdout : ignore);
  try {
    if (request.kind === 'exec') {
      const files = filesOf(container, ctx.store.findSandbox(container.sandboxId));
      const exitCode = await runExecCommand(request.cmd, files, { stdin: streams.stdin, stdout, stderr, signal: streams.gone });
      streams.finish({ exitCode });
      return;
    }
    if (streams.stdin) for await (const chunk of streams.stdin) stdout(chunk as Buffer);
    else await new Promise((resolve) => streams.gone.addEventListener('abort', resolve, { once: true }));
    streams.finish({ exitCode: 0 });
  } catch (err) {
    ctx.logger.debug({ err, containerId: request.containerId }, 'streaming session failed');
    streams.finish({ error: (err as Error).message });
  }
}
