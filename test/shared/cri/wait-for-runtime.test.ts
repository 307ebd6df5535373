// waitForRuntime: retries with one coded log line per attempt while the runtime
// is missing, speaks another CRI version or is not ready, and resolves once it is.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { CriClient } from '../../../src/shared/cri/client.js';
import { loadCriServices } from '../../../src/shared/cri/load-proto.js';
import { waitForRuntime } from '../../../src/shared/cri/wait-for-runtime.js';
import { startSimRuntime, type SimRuntime } from '../../../src/simruntime/server.js';
import { eventually, tempSocketPath } from '../../simruntime/harness.js';

interface LogLine {
  level: number;
  msg: string;
  code?: string;
  endpoint?: string;
  reason?: string;
  retryInMs?: number;
  stack?: string;
  err?: unknown;
}

/** A pino logger whose lines land in an array, parsed. */
function capturingLogger(): { logger: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}

/** A runtime that answers Version with an older CRI version and nothing else. */
async function startOldRuntime(socketPath: string): Promise<grpc.Server> {
  const server = new grpc.Server();
  server.addService(loadCriServices().runtime, {
    Version: (_call: unknown, callback: grpc.sendUnaryData<object>) =>
      callback(null, { version: '0.1.0', runtime_name: 'old-runtime', runtime_version: '1.4.0', runtime_api_version: 'v1alpha2' }),
  });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  return server;
}

function assertOneLineWithoutStack(line: LogLine): void {
  assert.ok(!line.msg.includes('\n'), 'a single line');
  assert.equal(line.stack, undefined);
  assert.equal(line.err, undefined);
}

describe('waitForRuntime', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('retries while the socket is missing and resolves once the runtime appears', async () => {
    const { socketPath } = tempSocketPath();
    cleanups.push(() => rmSync(dirname(socketPath), { recursive: true, force: true }));
    const client = new CriClient(socketPath, { timeoutMs: 5_000 });
    cleanups.push(() => client.close());
    const { logger, lines } = capturingLogger();
    const abort = new AbortController();
    cleanups.push(() => abort.abort());
    // Jitter pinned at +10 %: 55, 110, 220, then 220 (the 200 ms cap before jitter).
    const ready = waitForRuntime(client, { logger, signal: abort.signal, initialBackoffMs: 50, maxBackoffMs: 200, random: () => 0.5 });
    ready.catch(() => undefined); // a failed assertion below must not leave an unhandled rejection

    await eventually(async () => (lines.length >= 4 ? true : undefined));
    let sim: SimRuntime | undefined = await startSimRuntime({ socketPath, latency: { scale: 0 } });
    cleanups.push(() => sim?.close());

    const version = await ready;
    assert.equal(version.runtime_name, 'shardlet-sim');
    assert.equal(version.runtime_api_version, 'v1');
    const unavailable = lines.filter((line) => line.code === 'SHARDLET_CRI_UNAVAILABLE');
    assert.ok(unavailable.length >= 4, 'one line per failed attempt');
    assert.deepEqual(unavailable.slice(0, 4).map((line) => line.retryInMs), [55, 110, 220, 220], 'the shared jittered backoff');
    for (const line of unavailable) {
      assertOneLineWithoutStack(line);
      assert.equal(line.endpoint, `unix://${socketPath}`);
      assert.match(line.msg, /^SHARDLET_CRI_UNAVAILABLE: container runtime at unix:\/\/.*cri\.sock is unavailable: the socket does not exist/);
    }
    await sim.close();
    sim = undefined;
  });

  it('logs SHARDLET_CRI_VERSION_UNSUPPORTED for a runtime that is not at CRI v1, and keeps trying', async () => {
    const { socketPath } = tempSocketPath();
    const server = await startOldRuntime(socketPath);
    cleanups.push(() => {
      server.forceShutdown();
      rmSync(dirname(socketPath), { recursive: true, force: true });
    });
    const client = new CriClient(socketPath, { timeoutMs: 5_000 });
    cleanups.push(() => client.close());
    const { logger, lines } = capturingLogger();
    const abort = new AbortController();
    cleanups.push(() => abort.abort());
    const waiting = waitForRuntime(client, { logger, signal: abort.signal, initialBackoffMs: 20, maxBackoffMs: 50 });
    waiting.catch(() => undefined);

    const line = await eventually(async () => lines.find((l) => l.code === 'SHARDLET_CRI_VERSION_UNSUPPORTED'));
    assertOneLineWithoutStack(line);
    assert.match(line.msg, /old-runtime 1\.4\.0\) speaks CRI API "v1alpha2", shardlet needs "v1"/);
    assert.equal(line.endpoint, `unix://${socketPath}`);
    await eventually(async () => (lines.length >= 2 ? true : undefined));
    abort.abort();
    await assert.rejects(waiting, { name: 'AbortError' });
  });

  it('waits for RuntimeReady, and only reports NetworkReady=false', async () => {
    const { socketPath } = tempSocketPath();
    const sim = await startSimRuntime({ socketPath, latency: { scale: 0 } });
    cleanups.push(async () => {
      await sim.close();
      rmSync(dirname(socketPath), { recursive: true, force: true });
    });
    sim.setConditions({ runtimeReady: false, networkReady: false });
    const client = new CriClient(socketPath, { timeoutMs: 5_000 });
    cleanups.push(() => client.close());
    const { logger, lines } = capturingLogger();
    const abort = new AbortController();
    cleanups.push(() => abort.abort());
    const ready = waitForRuntime(client, { logger, signal: abort.signal, initialBackoffMs: 20, maxBackoffMs: 50 });
    ready.catch(() => undefined);

    const notReady = await eventually(async () => lines.find((l) => l.code === 'SHARDLET_CRI_NOT_READY'));
    assertOneLineWithoutStack(notReady);
    assert.match(notReady.msg, /is not ready: RuntimeReady=false .*NetworkReady=false/);
    sim.setConditions({ runtimeReady: true });

    assert.equal((await ready).runtime_name, 'shardlet-sim');
    const last = lines[lines.length - 1];
    assert.equal(last.code, 'SHARDLET_CRI_NOT_READY');
    assert.match(last.msg, /network not ready: RuntimeReady=true, NetworkReady=false \(NetworkPluginNotReady/);
  });
});
