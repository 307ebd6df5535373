// A unary call driven on the channel keeps what grpc-js's Client guaranteed: the
// runtime's code and details reach the caller as a CriError, a reply or request
// that cannot be (de)serialized ends the call INTERNAL with the Client's words, and
// every call is counted once, as failed when it failed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { CriCallCounts } from '../../../src/shared/cri/call-counts.js';
import { CriError } from '../../../src/shared/cri/cri-error.js';
import { unaryCall } from '../../../src/shared/cri/unary-call.js';
import type { UnaryMethod } from '../../../src/shared/cri/unary-methods.js';

const PATH = '/runtime.v1.RuntimeService/ContainerStatus';
const DEADLINE_MS = 10_000;
const passThrough = (bytes: Buffer): Buffer => bytes;

/** What the fake runtime answers, by the request's text. */
function answer(request: string, callback: grpc.sendUnaryData<Buffer>): void {
  if (request === 'missing') callback({ code: grpc.status.NOT_FOUND, details: 'container "missing" not found' });
  else callback(null, Buffer.from(`reply to ${request}`));
}

const textMethod: UnaryMethod<string, string> = {
  name: 'ContainerStatus',
  service: 'RuntimeService',
  label: 'RuntimeService/ContainerStatus',
  path: PATH,
  serialize: (request) => Buffer.from(request),
  deserialize: (reply) => reply.toString(),
};

describe('unaryCall', () => {
  let dir: string;
  let server: grpc.Server;
  let client: grpc.Client;
  let channel: grpc.ChannelInterface;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shardlet-unary-call-'));
    server = new grpc.Server();
    const definition = {
      ContainerStatus: { path: PATH, requestStream: false, responseStream: false, requestSerialize: passThrough, requestDeserialize: passThrough, responseSerialize: passThrough, responseDeserialize: passThrough },
    };
    server.addService(definition, { ContainerStatus: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => answer(call.request.toString(), callback) });
    const socket = `unix://${join(dir, 'fake.sock')}`;
    await new Promise<void>((resolve, reject) => server.bindAsync(socket, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
    client = new grpc.Client(socket, grpc.credentials.createInsecure());
    channel = client.getChannel();
  });

  after(() => {
    client.close();
    server.forceShutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('resolves with the decoded reply and counts the call', async () => {
    const counts = new CriCallCounts();
    assert.equal(await unaryCall(channel, textMethod, 'c1', Date.now() + DEADLINE_MS, counts), 'reply to c1');
    const [figures] = counts.figures();
    assert.deepEqual([figures.method, figures.calls, figures.errors], ['ContainerStatus', 1, 0]);
  });

  it("rejects with the runtime's code and details, counted as an error", async () => {
    const counts = new CriCallCounts();
    const err = await unaryCall(channel, textMethod, 'missing', Date.now() + DEADLINE_MS, counts).catch((e: unknown) => e);
    assert.ok(err instanceof CriError);
    assert.equal(err.code, grpc.status.NOT_FOUND);
    assert.equal(err.details, 'container "missing" not found');
    assert.equal(err.method, 'RuntimeService/ContainerStatus');
    assert.deepEqual([counts.figures()[0].calls, counts.figures()[0].errors], [1, 1]);
  });

  it('ends a call whose reply cannot be parsed INTERNAL, as the Client did', async () => {
    const counts = new CriCallCounts();
    const broken: UnaryMethod<string, string> = { ...textMethod, deserialize: () => { throw new RangeError('index out of range: 3 + 1 > 3'); } };
    const err = await unaryCall(channel, broken, 'c2', Date.now() + DEADLINE_MS, counts).catch((e: unknown) => e);
    assert.ok(err instanceof CriError);
    assert.equal(err.code, grpc.status.INTERNAL);
    assert.equal(err.details, 'Response message parsing error: index out of range: 3 + 1 > 3');
    assert.equal(counts.figures()[0].errors, 1);
  });

  it('ends a call whose request cannot be serialized INTERNAL, without sending it', async () => {
    const unserializable: UnaryMethod<string, string> = { ...textMethod, serialize: () => { throw new TypeError('not a string'); } };
    const err = await unaryCall(channel, unserializable, 'c3', Date.now() + DEADLINE_MS, undefined).catch((e: unknown) => e);
    assert.ok(err instanceof CriError);
    assert.equal(err.code, grpc.status.INTERNAL);
    assert.equal(err.details, 'Request message serialization failure: not a string');
  });

  it('rejects, not throws, on a closed channel', async () => {
    const closed = new grpc.Client(`unix://${join(dir, 'fake.sock')}`, grpc.credentials.createInsecure());
    closed.close();
    const pending = unaryCall(closed.getChannel(), textMethod, 'c4', Date.now() + DEADLINE_MS, undefined);
    await assert.rejects(pending);
  });
});
