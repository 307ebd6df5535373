// The read-only server: a port it cannot bind is a coded error naming the flag and
// the port (defect 9), and /stats/startup can be asked for the pods seen since a time.
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { pino } from 'pino';
import { ErrorCodes, ShardletError } from '../../../src/shared/errors.js';
import { ReadOnlyServer, type ReadOnlyServerSource } from '../../../src/main/server/read-only-server.js';

const source = (records: Array<{ seenAtMs: number; pod: string }>, threadCpu?: ReadOnlyServerSource['threadCpu']): ReadOnlyServerSource => ({
  pods: () => [],
  statusOf: () => undefined,
  healthy: () => ({ ok: true, reason: '' }),
  startupRecords: () => records,
  criCalls: () => ({}),
  threadCpu: threadCpu ?? (async () => ({ mainMicros: 5, shardsMicros: [2, 3], plegMicros: 1, processMicros: 20 })),
});

test('a taken port rejects with SHARDLET_LISTEN_FAILED naming the flag and the port', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as AddressInfo).port;
  try {
    const server = new ReadOnlyServer(source([]), pino({ level: 'silent' }));
    await assert.rejects(server.listen(port, '--read-only-port'), (err: unknown) => {
      assert.ok(err instanceof ShardletError);
      assert.equal(err.code, ErrorCodes.LISTEN_FAILED);
      assert.equal(err.message, `--read-only-port ${port}: listen tcp 127.0.0.1:${port}: bind: address already in use`);
      return true;
    });
    await server.close();
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});

test('/stats/startup?seenSince= answers only the pods seen then or later', async () => {
  const server = new ReadOnlyServer(source([{ seenAtMs: 100, pod: 'a' }, { seenAtMs: 200, pod: 'b' }]), pino({ level: 'silent' }));
  const port = await server.listen(0, '--read-only-port');
  try {
    const read = async (query: string) => ((await (await fetch(`http://127.0.0.1:${port}/stats/startup${query}`)).json()) as { items: Array<{ pod: string }> }).items.map((r) => r.pod);
    assert.deepEqual(await read(''), ['a', 'b']);
    assert.deepEqual(await read('?seenSince=150'), ['b']);
    assert.equal((await fetch(`http://127.0.0.1:${port}/stats/startup?seenSince=x`)).status, 400);
  } finally {
    await server.close();
  }
});

test('a request target that is no URL gets 400 and the server stays up', async () => {
  const server = new ReadOnlyServer(source([]), pino({ level: 'silent' }));
  const port = await server.listen(0, '--read-only-port');
  try {
    const reply = await rawRequest(port, 'GET http://[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.match(reply, /^HTTP\/1\.1 400 /);
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
  } finally {
    await server.close();
  }
});

function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    let reply = '';
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString()));
    socket.on('end', () => resolve(reply));
    socket.on('error', reject);
  });
}

test('/stats/threads serves the per-thread CPU report; a thread that cannot answer is a 503, not a crash', async () => {
  let failing = false;
  const report = { mainMicros: 5, shardsMicros: [2, 3], plegMicros: 1, processMicros: 20 };
  const server = new ReadOnlyServer(
    source([], async () => {
      if (failing) throw new Error('worker exited');
      return report;
    }),
    pino({ level: 'silent' }),
  );
  const port = await server.listen(0, '--read-only-port');
  try {
    const ok = await fetch(`http://127.0.0.1:${port}/stats/threads`);
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), report);
    failing = true;
    const unavailable = await fetch(`http://127.0.0.1:${port}/stats/threads`);
    assert.equal(unavailable.status, 503);
    assert.match(((await unavailable.json()) as { message: string }).message, /worker exited/);
  } finally {
    await server.close();
  }
});
