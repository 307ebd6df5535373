// The CRI log record parser on untrusted lines (a container prints anything):
// it never throws, and what a runtime writes reads back as it was written.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatConmonRecordTime, formatCriLogLine, formatRecordTime, parseCriLogLine, parseRfc3339NanoNs } from '../../../src/shared/logs/cri-log-format.js';

const NUM_RUNS = 300;

test('any bytes: a record or undefined, never an exception', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      const record = parseCriLogLine(Buffer.from(bytes));
      if (record) assert.ok(record.stream === 'stdout' || record.stream === 'stderr');
    }),
    { numRuns: NUM_RUNS },
  );
});

test('near-records (valid prefix, hostile rest) never throw and keep the content bytes exactly', () => {
  const content = fc.uint8Array({ maxLength: 200 }).filter((bytes) => !bytes.includes(0x0a));
  fc.assert(
    fc.property(fc.constantFrom('stdout', 'stderr'), fc.constantFrom('F', 'P', 'F:x', 'P:a:b'), content, (stream, tag, body) => {
      const line = Buffer.concat([Buffer.from(`2026-11-24T10:45:24.123456789Z ${stream} ${tag} `), Buffer.from(body), Buffer.from('\n')]);
      const record = parseCriLogLine(line)!;
      assert.equal(record.partial, tag.startsWith('P'));
      // A full record keeps its newline; a partial one continues in the next record.
      const expected = record.partial ? Buffer.from(body) : Buffer.concat([Buffer.from(body), Buffer.from('\n')]);
      assert.deepEqual(record.content, expected);
    }),
    { numRuns: NUM_RUNS },
  );
});

test('a written line reads back: time, stream and text', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.integer({ min: 0, max: 999_999 }), fc.string({ maxLength: 100 }).filter((text) => !text.includes('\n')), (ms, extraNs, text) => {
      const time = formatRecordTime(ms, extraNs);
      const record = parseCriLogLine(Buffer.from(formatCriLogLine(time, 'stderr', text)))!;
      assert.equal(record.timeNs, BigInt(ms) * 1_000_000n + BigInt(extraNs));
      assert.equal(record.stream, 'stderr');
      assert.equal(record.content.toString(), `${text}\n`);
    }),
    { numRuns: NUM_RUNS },
  );
});

test('timestamps: nine fraction digits, offsets honoured, malformed ones refused', () => {
  const record = parseCriLogLine(Buffer.from('2026-11-24T12:45:24.5+02:00 stdout F hi\n'))!;
  assert.equal(record.timestamp, '2026-11-24T12:45:24.500000000+02:00');
  assert.equal(record.timeNs, parseRfc3339NanoNs('2026-11-24T10:45:24.5Z'));
  for (const bad of ['2026-11-24 stdout F x', 'x stdout F x', '2026-11-24T10:45:24Z stdin F x', '2026-11-24T10:45:24Z stdout', '2026-13-45T10:45:24Z stdout F x']) {
    assert.equal(parseCriLogLine(Buffer.from(bad)), undefined, bad);
  }
});

test("CRI-O's records (+00:00, conmon's nine digits) read as containerd's (Z): the same instant, the same timestamp out", () => {
  // kubectl logs --timestamps prints what the kubelet prints: Go's RFC3339NanoFixed, Z for any zero offset.
  const crio = parseCriLogLine(Buffer.from(`${formatConmonRecordTime(1_790_000_000_123, 456_789)} stdout F hi\n`))!;
  const containerd = parseCriLogLine(Buffer.from(`${formatRecordTime(1_790_000_000_123, 456_789)} stdout F hi\n`))!;
  assert.equal(crio.timeNs, containerd.timeNs);
  assert.equal(crio.timestamp, containerd.timestamp);
  assert.equal(crio.timestamp, '2026-09-21T14:13:20.123456789Z');
  assert.equal(parseCriLogLine(Buffer.from('2026-11-24T10:45:24.5-00:00 stderr F x\n'))!.timestamp, '2026-11-24T10:45:24.500000000Z');
});
