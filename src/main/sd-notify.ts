// Tells systemd the kubelet is up (sd_notify READY=1) when it runs under a unit of
// Type=notify, as OpenShift's kubelet.service is: systemd holds the unit in
// "activating", and units ordered after it, until the message arrives. Upstream's
// kubelet sends it once it runs (cmd/kubelet's run, daemon.SdNotify).
//
// Node has no unix datagram sockets, so the message goes through systemd-notify(1).
// Run as root it sends with the PID of the process that invoked it, shardlet's, so
// systemd's default NotifyAccess=main takes it; unprivileged, it falls back to its
// own PID, which only NotifyAccess=all accepts.
import { spawn } from 'node:child_process';
import type { Logger } from 'pino';

export const SYSTEMD_NOTIFY_BINARY = 'systemd-notify';

/** Sends READY=1 when NOTIFY_SOCKET is set; a failure is logged, never fatal (the kubelet runs either way). */
export async function notifySystemdReady(logger: Logger, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const socket = env.NOTIFY_SOCKET;
  if (!socket) return;
  const outcome = await new Promise<{ code: number | null; error?: Error; stderr: string }>((resolve) => {
    let stderr = '';
    const child = spawn(SYSTEMD_NOTIFY_BINARY, ['--ready'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', (error) => resolve({ code: null, error, stderr }));
    child.once('close', (code) => resolve({ code, stderr }));
  });
  if (outcome.code === 0) {
    logger.info({ notifySocket: socket }, 'Told systemd the kubelet is ready (READY=1)');
    return;
  }
  const reason = outcome.error
    ? (outcome.error as NodeJS.ErrnoException).code === 'ENOENT'
        ? `${SYSTEMD_NOTIFY_BINARY} is not installed`
        : outcome.error.message
    : `${SYSTEMD_NOTIFY_BINARY} exited with ${outcome.code}: ${outcome.stderr.trim()}`;
  logger.warn({ notifySocket: socket, reason }, 'NOTIFY_SOCKET is set but READY=1 could not be sent: a Type=notify unit will not see the kubelet start');
}
