// The /containerLogs query as upstream decodes and validates it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LogQueryError, parseLogQuery } from '../../../src/main/logs/log-options.js';

const NOW_MS = Date.parse('2026-11-24T10:00:00Z');
const parse = (query: string, splitStreams = false) => parseLogQuery(new URLSearchParams(query), NOW_MS, splitStreams);
const statusOf = (query: string, splitStreams = false) => {
  try {
    parse(query, splitStreams);
    return 200;
  } catch (err) {
    assert.ok(err instanceof LogQueryError);
    return err.statusCode;
  }
};

test('defaults: everything, no follow, both streams', () => {
  const { read, previous } = parse('');
  assert.deepEqual({ ...read, streams: [...read.streams] }, { sinceNs: 0n, tailLines: -1, limitBytes: -1, follow: false, timestamps: false, streams: ['stdout', 'stderr'] });
  assert.equal(previous, false);
});

test('the old tail parameter, booleans as apimachinery reads them, the later of since and sinceTime', () => {
  assert.equal(parse('tail=5').read.tailLines, 5);
  assert.equal(parse('tail=all&tailLines=5').read.tailLines, -1);
  assert.equal(parse('follow=1&timestamps=false&previous=').read.follow, true);
  assert.equal(parse('follow=1&timestamps=false').read.timestamps, false);
  assert.equal(parse('previous=true').previous, true);
  assert.equal(parse('sinceSeconds=10').read.sinceNs, BigInt(NOW_MS - 10_000) * 1_000_000n);
  assert.equal(parse('sinceTime=2026-11-24T09:00:00.5Z').read.sinceNs, BigInt(NOW_MS - 3_600_000 + 500) * 1_000_000n);
});

test('undecodable is 400, invalid is 422, stream only with PodLogsQuerySplitStreams', () => {
  for (const query of ['tailLines=x', 'limitBytes=1.5', 'sinceTime=yesterday']) assert.equal(statusOf(query), 400, query);
  for (const query of ['tailLines=-1', 'limitBytes=0', 'sinceSeconds=0', 'sinceSeconds=5&sinceTime=2026-11-24T09:00:00Z', 'stream=Stdout']) {
    assert.equal(statusOf(query), 422, query);
  }
  assert.equal(statusOf('stream=Stdout', true), 200);
  assert.equal(statusOf('stream=Both', true), 422);
  assert.equal(statusOf('stream=Stderr&tailLines=3', true), 422);
  assert.equal(statusOf('stream=All&tailLines=3', true), 200);
});
