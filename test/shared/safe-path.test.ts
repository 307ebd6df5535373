// The one safe join for pod-supplied path parts: whatever a pod puts in a name,
// what the join accepts stays one segment (or, for a profile, a descending path)
// inside its parent, and what it refuses is refused with SHARDLET_PATH_UNSAFE naming
// the field.
import assert from 'node:assert/strict';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { ErrorCodes, ShardletError } from '../../src/shared/errors.js';
import { checkPathSegment, descendingPathError, joinDescendingPath, joinPathSegment, pathSegmentError, unlessPathUnsafe } from '../../src/shared/safe-path.js';
import { hostilePathString } from '../helpers/path-arbitraries.js';

const NUM_RUNS = 2_000;
const PARENT = '/var/lib/kubelet/pods';
const VICTIM_UID = 'x/../../../../../../../../../../tmp/victim';
/** A refusal quotes at most 100 characters of the value, whatever its length. */
const MAX_MESSAGE_CHARS = 400;

function refusal(run: () => unknown): ShardletError {
  try {
    run();
  } catch (err) {
    assert.ok(err instanceof ShardletError, `a ShardletError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a refusal');
}

test('property: a segment the join accepts is exactly one child of the parent, never anything else', () => {
  fc.assert(
    fc.property(hostilePathString, (value) => {
      if (pathSegmentError(value) !== undefined) return;
      const joined = joinPathSegment(PARENT, 'metadata.uid', value);
      assert.equal(dirname(joined), PARENT, `${JSON.stringify(value)} stays directly in the parent`);
      assert.equal(basename(joined), value, `${JSON.stringify(value)} is not rewritten by the join`);
      assert.ok(resolve(joined).startsWith(`${PARENT}/`));
    }),
    { numRuns: NUM_RUNS },
  );
});

test('property: anything with a separator, NUL, or that is empty, "." or ".." is refused, naming the field', () => {
  fc.assert(
    fc.property(hostilePathString, (value) => {
      const mustRefuse = value === '' || value === '.' || value === '..' || value.includes('/') || value.includes('\0');
      if (!mustRefuse) return;
      const err = refusal(() => joinPathSegment(PARENT, 'container name', value));
      assert.equal(err.code, ErrorCodes.PATH_UNSAFE);
      assert.ok(err.message.startsWith('container name: Invalid value: '), err.message);
      assert.ok(err.message.length < MAX_MESSAGE_CHARS, `message of ${err.message.length} chars`);
      assert.equal(err.details.field, 'container name');
    }),
    { numRuns: NUM_RUNS },
  );
});

test('property: a descending path the join accepts resolves strictly below its root', () => {
  fc.assert(
    fc.property(hostilePathString, (value) => {
      if (descendingPathError(value) !== undefined) {
        assert.equal(refusal(() => joinDescendingPath(PARENT, 'localhostProfile', value)).code, ErrorCodes.PATH_UNSAFE);
        return;
      }
      const inside = relative(PARENT, joinDescendingPath(PARENT, 'localhostProfile', value));
      assert.ok(inside !== '' && inside !== '..' && !inside.startsWith('../') && !isAbsolute(inside), `${JSON.stringify(value)} → ${inside}`);
    }),
    { numRuns: NUM_RUNS },
  );
});

test('the UID from the issue is refused as a segment and as a descending path; ordinary names pass as they are', () => {
  const err = refusal(() => joinPathSegment(PARENT, 'metadata.uid', VICTIM_UID));
  assert.equal(err.code, 'SHARDLET_PATH_UNSAFE');
  assert.match(err.message, /^metadata\.uid: Invalid value: "x\/\.\.\/.*": must not contain '\/'/);
  assert.match(refusal(() => joinDescendingPath('/r/seccomp', 'localhostProfile', VICTIM_UID)).message, /must not contain '\.\.'/);
  assert.match(refusal(() => joinDescendingPath('/r/seccomp', 'localhostProfile', '/etc/shadow')).message, /must be a relative path/);
  assert.match(refusal(() => joinDescendingPath('/r/seccomp', 'localhostProfile', './')).message, /must name a file below/);
  assert.match(refusal(() => checkPathSegment('volume name', 'a'.repeat(256))).message, /no more than 255 bytes/);
  assert.match(refusal(() => checkPathSegment('volume name', 'é'.repeat(128))).message, /no more than 255 bytes/, 'bytes, not characters');

  assert.equal(joinPathSegment(PARENT, 'metadata.uid', '3f2a-uid'), join(PARENT, '3f2a-uid'));
  assert.equal(checkPathSegment('volume name', '..hidden'), '..hidden', "a name that only starts with '..' is one segment");
  assert.equal(joinDescendingPath('/r/seccomp', 'localhostProfile', 'profiles/audit.json'), '/r/seccomp/profiles/audit.json');
  assert.equal(joinDescendingPath('/r/seccomp', 'localhostProfile', 'a/./b..json'), '/r/seccomp/a/b..json');
});

test('a refused value is quoted short, however long it is', () => {
  const err = refusal(() => checkPathSegment('metadata.name', `${'a/'.repeat(500_000)}`));
  assert.ok(err.message.length < MAX_MESSAGE_CHARS, `message of ${err.message.length} chars`);
  assert.ok(String(err.details.value).length < 110);
});

test('unlessPathUnsafe turns only a refusal into undefined; other errors still throw', () => {
  assert.equal(unlessPathUnsafe(() => joinPathSegment(PARENT, 'metadata.uid', VICTIM_UID)), undefined);
  assert.equal(unlessPathUnsafe(() => joinPathSegment(PARENT, 'metadata.uid', 'u1')), join(PARENT, 'u1'));
  assert.throws(() => unlessPathUnsafe(() => { throw new Error('disk on fire'); }), /disk on fire/);
});
