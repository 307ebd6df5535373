// gRPC clients that name the runtime by its socket path (grpc-go before 1.52, as in
// crictl 1.26 and kubelet ≤ 1.26; Python gRPC ≥ 1.57) reach the simulated runtime,
// as they reach containerd. grpc-js's `grpc.default_authority` makes it send exactly
// what those clients send.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { loadCriServices } from '../../src/shared/cri/load-proto.js';
import { AuthorityRewriter, REWRITTEN_AUTHORITY, authorityNghttp2Accepts } from '../../src/simruntime/authority-fixup.js';
import { startSimRuntime } from '../../src/simruntime/server.js';
import { tempSocketPath } from './harness.js';

const hpack = createRequire(import.meta.url)('hpack.js') as {
  compressor: { create(options: { table: { size: number } }): { write(headers: Array<{ name: string; value: string }>): void; read(): Buffer } };
  decompressor: { create(options: { table: { size: number } }): { write(block: Buffer): void; execute(): void; read(): { name: string; value: string } | null } };
};

/** Calls Version with the given :authority, and ListContainers with metadata whose header block needs CONTINUATION frames. */
async function callsWithAuthority(endpoint: string, authority: string): Promise<{ runtime: string; containers: number }> {
  const services = loadCriServices();
  const client = new grpc.Client(endpoint, grpc.credentials.createInsecure(), { 'grpc.default_authority': authority });
  const unary = <Res>(name: 'Version' | 'ListContainers', metadata: grpc.Metadata) =>
    new Promise<Res>((resolve, reject) => {
      const method = services.runtime[name];
      client.makeUnaryRequest(method.path, method.requestSerialize as (v: object) => Buffer, method.responseDeserialize as (b: Buffer) => Res, {}, metadata, { deadline: Date.now() + 5_000 }, (err, reply) =>
        err ? reject(err) : resolve(reply!),
      );
    });
  try {
    const version = await unary<{ runtime_name: string }>('Version', new grpc.Metadata());
    // Several calls on one connection: the client's HPACK dynamic table carries over between them.
    let containers = 0;
    for (let call = 0; call < 3; call++) {
      const metadata = new grpc.Metadata();
      metadata.set('x-big', 'v'.repeat(40_000));
      metadata.set('x-call', String(call));
      containers = (await unary<{ containers: unknown[] }>('ListContainers', metadata)).containers.length;
    }
    return { runtime: version.runtime_name, containers };
  } finally {
    client.close();
  }
}

test('a client that sends the socket path as :authority is served, as by containerd; localhost and the %-encoded path too', async () => {
  const { dir, socketPath } = tempSocketPath();
  const sim = await startSimRuntime({ socketPath });
  try {
    for (const authority of [socketPath, encodeURIComponent(socketPath), 'localhost']) {
      assert.deepEqual(await callsWithAuthority(sim.endpoint, authority), { runtime: 'shardlet-sim', containers: 0 }, authority);
    }
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("nghttp2's authority characters: a path is refused, host names, ports, IPv6 and %-escapes are not", () => {
  assert.equal(authorityNghttp2Accepts('/run/containerd/containerd.sock'), false);
  for (const ok of ['localhost', 'localhost:10250', '[::1]:80', '%2Frun%2Fx.sock', 'user@host']) assert.equal(authorityNghttp2Accepts(ok), true, ok);
});

/** An HTTP/2 frame: 24-bit length, type, flags, stream. */
function frame(type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(streamId, 5);
  return Buffer.concat([header, payload]);
}

/** Splits the frames a rewriter emits back into (stream, header block) pairs. */
function headerBlocksOf(bytes: Buffer): Array<{ streamId: number; block: Buffer }> {
  const blocks: Array<{ streamId: number; block: Buffer }> = [];
  for (let offset = 0; offset < bytes.length;) {
    const length = bytes.readUIntBE(offset, 3);
    const type = bytes[offset + 3]!;
    const streamId = bytes.readUInt32BE(offset + 5);
    const payload = bytes.subarray(offset + 9, offset + 9 + length);
    if (type === 0x1) blocks.push({ streamId, block: Buffer.from(payload) });
    else if (type === 0x9) blocks[blocks.length - 1]!.block = Buffer.concat([blocks[blocks.length - 1]!.block, payload]);
    offset += 9 + length;
  }
  return blocks;
}

const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).filter((name) => !(name in Object.prototype));
// hpack.js's compressor, which writes the test's header blocks, looks values up in a
// plain object and encodes `toString`, `constructor` and their kin as a bogus table
// index; its decompressor (the one the rewriter uses) is not affected. Those names and
// values are left out.
const headerValue = fc
  .string({ maxLength: 300 })
  .map((text) => text.replace(/[^\x20-\x7e]/g, 'x'))
  .filter((text) => !(text in Object.prototype));
const requestHeaders = fc.record({
  authority: fc.oneof(fc.constant('/run/containerd/containerd.sock'), fc.constant('localhost'), headerValue),
  extra: fc.array(fc.tuple(headerName, headerValue), { maxLength: 8 }),
});

test('property: any sequence of header blocks, cut into any frames, decodes to the same headers with an authority nghttp2 takes', () => {
  fc.assert(
    fc.property(fc.array(requestHeaders, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 64 }), (requests, fragmentBytes) => {
      const compressor = hpack.compressor.create({ table: { size: 4096 } });
      const rewriter = new AuthorityRewriter();
      const decompressor = hpack.decompressor.create({ table: { size: 4096 } });
      requests.forEach((request, index) => {
        const headers = [
          { name: ':method', value: 'POST' },
          { name: ':path', value: '/runtime.v1.RuntimeService/Version' },
          { name: ':authority', value: request.authority },
          ...request.extra.map(([name, value]) => ({ name, value })),
        ];
        compressor.write(headers);
        const block = compressor.read();
        const streamId = 1 + 2 * index;
        // HEADERS then CONTINUATIONs, each fragmentBytes long; the rewriter sees the frames one at a time.
        const frames: Buffer[] = [];
        for (let offset = 0; offset < block.length || offset === 0; offset += fragmentBytes) {
          const last = offset + fragmentBytes >= block.length;
          frames.push(frame(offset === 0 ? 0x1 : 0x9, last ? 0x4 : 0, streamId, block.subarray(offset, offset + fragmentBytes)));
        }
        const out = Buffer.concat(frames.flatMap((raw) => rewriter.frameOut({ type: raw[3]!, flags: raw[4]!, streamId, payload: raw.subarray(9), raw })));
        const [rewritten, ...more] = headerBlocksOf(out);
        assert.equal(more.length, 0);
        assert.equal(rewritten!.streamId, streamId);
        decompressor.write(rewritten!.block);
        decompressor.execute();
        const decoded: Array<{ name: string; value: string }> = [];
        for (let header = decompressor.read(); header; header = decompressor.read()) decoded.push({ name: header.name, value: header.value });
        const expected = headers.map((header) =>
          header.name === ':authority' && !authorityNghttp2Accepts(header.value) ? { ...header, value: REWRITTEN_AUTHORITY } : header,
        );
        assert.deepEqual(decoded, expected);
      });
    }),
    { numRuns: 200 },
  );
});
