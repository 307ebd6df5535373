// Under a Type=notify unit (OpenShift's kubelet.service) systemd waits for READY=1 on
// $NOTIFY_SOCKET, and with its default NotifyAccess=main takes it only from the
// unit's main process. A unix datagram socket stands in for systemd here and reads
// the sender's credentials (SO_PASSCRED) as systemd does: Node has no datagram
// sockets, so a small python3 script listens.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { startSimRuntime } from '../../src/simruntime/server.js';
import { signalGroup, startKubelet, waitUntil } from '../helpers/kubelet-process.js';

const RECEIVER = `
import json, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
print(json.dumps({"bound": True}), flush=True)
while True:
    message, ancillary, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(12))
    pid = None
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            pid = struct.unpack("iii", data[:12])[0]
    print(json.dumps({"message": message.decode(), "pid": pid}), flush=True)
`;

test('READY=1 reaches $NOTIFY_SOCKET from the kubelet process itself, once it runs its pods', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shardlet-notify-'));
  const notifySocket = join(dir, 'notify.sock');
  const sim = await startSimRuntime({ socketPath: join(dir, 'sim.sock') });
  const receiver = spawn('python3', ['-c', RECEIVER, notifySocket], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  const received: Array<{ message?: string; pid?: number; bound?: boolean }> = [];
  createInterface({ input: receiver.stdout! }).on('line', (line) => received.push(JSON.parse(line)));
  let kubelet: Awaited<ReturnType<typeof startKubelet>> | undefined;
  try {
    await waitUntil(async () => received.some((entry) => entry.bound), 10_000, 'the notify socket bound');
    kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers: 1, env: { NOTIFY_SOCKET: notifySocket } });
    const ready = await waitUntil(async () => received.find((entry) => entry.message !== undefined) ?? false, 30_000, 'a notification');
    assert.match(ready.message!, /^READY=1$/m);
    assert.equal(ready.pid, kubelet.child.pid, "sent with the kubelet's own PID, which NotifyAccess=main requires");
    assert.ok(kubelet.logs.some((line) => line.msg === 'Told systemd the kubelet is ready (READY=1)'));
  } finally {
    await kubelet?.stop();
    await signalGroup(receiver, 'SIGTERM');
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
