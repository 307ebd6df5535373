// The per-pod directory layout under the root dir: the pod's UID, volume names and
// container names each become one directory, so each must be one plain segment;
// anything else is refused with SHARDLET_PATH_UNSAFE, not joined into a path that
// climbs out of <rootDir>/pods/<uid>.
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { ErrorCodes } from '../../../src/shared/errors.js';
import { pathSegmentError } from '../../../src/shared/safe-path.js';
import {
  emptyDirPath,
  podContainerDir,
  podDir,
  podEtcHostsPath,
  podVolumesDir,
  pluginVolumePath,
  SECRET_PLUGIN_NAME,
} from '../../../src/workers/volumes/volume-paths.js';
import { hostilePathString } from '../../helpers/path-arbitraries.js';

const ROOT = '/var/lib/kubelet';
const UID = 'b7a4d0c2-1111-4e2f-8a9b-0c1d2e3f4a5b';
const VICTIM_UID = 'x/../../../../../../../../../../tmp/victim';
const unsafe = { code: ErrorCodes.PATH_UNSAFE };

test('every builder refuses the UID from the issue, and ".." and "" as UIDs', () => {
  for (const uid of [VICTIM_UID, '..', '.', '', '/tmp/victim', 'a\0b']) {
    assert.throws(() => podDir(ROOT, uid), { ...unsafe, message: /^metadata\.uid: Invalid value/ }, JSON.stringify(uid));
    assert.throws(() => podVolumesDir(ROOT, uid), unsafe);
    assert.throws(() => podEtcHostsPath(ROOT, uid), unsafe);
    assert.throws(() => emptyDirPath(ROOT, uid, 'scratch'), unsafe);
    assert.throws(() => pluginVolumePath(ROOT, uid, SECRET_PLUGIN_NAME, 'token'), unsafe);
    assert.throws(() => podContainerDir(ROOT, uid, 'app'), unsafe);
  }
});

test('volume and container names that are not one segment are refused, naming the field', () => {
  for (const name of ['..', '../../../../etc', 'a/b', '', '.']) {
    assert.throws(() => emptyDirPath(ROOT, UID, name), { ...unsafe, message: /^volume name: / }, JSON.stringify(name));
    assert.throws(() => pluginVolumePath(ROOT, UID, SECRET_PLUGIN_NAME, name), { ...unsafe, message: /^volume name: / });
    assert.throws(() => podContainerDir(ROOT, UID, name), { ...unsafe, message: /^container name: / });
  }
});

test('property: what the builders accept lies one level below the directory it belongs in', () => {
  fc.assert(
    fc.property(hostilePathString, hostilePathString, (uid, name) => {
      if (pathSegmentError(uid) !== undefined) return void assert.throws(() => podDir(ROOT, uid), unsafe);
      assert.equal(dirname(podDir(ROOT, uid)), `${ROOT}/pods`);
      if (pathSegmentError(name) !== undefined) return void assert.throws(() => emptyDirPath(ROOT, uid, name), unsafe);
      assert.equal(dirname(emptyDirPath(ROOT, uid, name)), `${ROOT}/pods/${uid}/volumes/kubernetes.io~empty-dir`);
      assert.equal(dirname(podContainerDir(ROOT, uid, name)), `${ROOT}/pods/${uid}/containers`);
    }),
    { numRuns: 1_000 },
  );
});

test('ordinary names give upstream layout', () => {
  assert.equal(podDir(ROOT, UID), `${ROOT}/pods/${UID}`);
  assert.equal(emptyDirPath(ROOT, UID, 'scratch'), `${ROOT}/pods/${UID}/volumes/kubernetes.io~empty-dir/scratch`);
  assert.equal(pluginVolumePath(ROOT, UID, SECRET_PLUGIN_NAME, 'token'), `${ROOT}/pods/${UID}/volumes/kubernetes.io~secret/token`);
  assert.equal(podContainerDir(ROOT, UID, 'app'), `${ROOT}/pods/${UID}/containers/app`);
  assert.equal(podEtcHostsPath(ROOT, UID), `${ROOT}/pods/${UID}/etc-hosts`);
});
