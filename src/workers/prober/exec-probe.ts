// The exec probe (and exec lifecycle handler) over CRI ExecSync, as upstream's
// pkg/probe/exec with the prober's ExecSync runner: exit code 0 succeeds, any other
// fails with the command's combined output, a command past its timeout fails as
// "timed out"; a CRI error means the probe could not run (upstream's probe error).
import { grpcCodeOf, type CriClient } from '../../shared/cri/client.js';
import { errored, failed, succeeded, type ProbeOutcome } from './probe-outcome.js';

/** gRPC's DEADLINE_EXCEEDED: the runtime (or the call's own deadline) gave up on the command. */
const GRPC_DEADLINE_EXCEEDED = 4;

export interface ExecResult {
  exitCode: number;
  /** stdout then stderr, as the CRI returns them apart and upstream joins them. */
  output: string;
}

/** ExecSync with `timeoutSeconds` (0: none) given to the runtime. */
export async function execInContainer(cri: CriClient, containerId: string, command: string[], timeoutSeconds: number): Promise<ExecResult> {
  const reply = await cri.execSync({ container_id: containerId, cmd: command, timeout: timeoutSeconds });
  const output = Buffer.concat([Buffer.from(reply.stdout ?? []), Buffer.from(reply.stderr ?? [])]).toString('utf8');
  return { exitCode: reply.exit_code, output };
}

export async function execProbe(cri: CriClient, containerId: string, command: string[], timeoutSeconds: number): Promise<ProbeOutcome> {
  try {
    const result = await execInContainer(cri, containerId, command, timeoutSeconds);
    return result.exitCode === 0 ? succeeded(result.output) : failed(result.output);
  } catch (err) {
    if (grpcCodeOf(err) === GRPC_DEADLINE_EXCEEDED) return failed(`command "${command.join(' ')}" timed out`);
    return errored((err as Error).message);
  }
}
