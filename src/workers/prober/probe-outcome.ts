// What one probe attempt found, as upstream's pkg/probe Result plus its output.
// `error` is upstream's probe error: the probe could not be run at all (a CRI call
// failed, a named port does not exist), which the worker throws away rather than
// count as a failure.

export type ProbeVerdict = 'success' | 'warning' | 'failure' | 'unknown';

export interface ProbeOutcome {
  verdict: ProbeVerdict;
  /** The probe's output: the body, the command's output, or why it failed. */
  output: string;
  error?: string;
}

export function succeeded(output = ''): ProbeOutcome {
  return { verdict: 'success', output };
}

export function failed(output: string): ProbeOutcome {
  return { verdict: 'failure', output };
}

export function errored(error: string): ProbeOutcome {
  return { verdict: 'unknown', output: '', error };
}

/** Go's "host:port", with IPv6 hosts in brackets, as net.JoinHostPort. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** How Go's net package words a failed dial, which upstream's probe output carries. */
export function dialErrorText(address: string, err: NodeJS.ErrnoException): string {
  const reason =
    err.code === 'ECONNREFUSED'
      ? 'connect: connection refused'
      : err.code === 'EHOSTUNREACH'
        ? 'connect: no route to host'
        : err.code === 'ENETUNREACH'
          ? 'connect: network is unreachable'
          : err.code === 'ETIMEDOUT'
            ? 'i/o timeout'
            : err.message;
  return `dial tcp ${address}: ${reason}`;
}
