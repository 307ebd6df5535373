// The real kubectl, as the e2e tests run it against the test API server: always with
// an explicit --kubeconfig, never a default config of the machine's.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const KUBECTL_TIMEOUT_MS = 60_000;

/** `kubectl --kubeconfig <kubeconfig> ARGS`; its stdout, or a rejection carrying its stderr. */
export async function kubectlOutput(kubeconfig: string, args: string[], timeoutMs = KUBECTL_TIMEOUT_MS): Promise<string> {
  const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: timeoutMs });
  return stdout;
}
