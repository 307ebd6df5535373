// The image's user as upstream's getImageUser reads it from ImageStatus.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { imageUserOf, ROOT_IMAGE_USER } from '../../../src/workers/images/image-user.js';

test('a uid when the runtime reports one, else the name, else root', () => {
  const image = { id: 'sha256:1', size: 1 };
  assert.deepEqual(imageUserOf({ ...image, uid: { value: 65532 }, username: '' }), { uid: 65532 });
  assert.deepEqual(imageUserOf({ ...image, uid: { value: 0 }, username: '' }), { uid: 0 });
  assert.deepEqual(imageUserOf({ ...image, uid: null, username: 'nginx' }), { username: 'nginx' });
  assert.deepEqual(imageUserOf({ ...image, uid: null, username: '' }), ROOT_IMAGE_USER, 'an image that names no user runs as root');
  assert.deepEqual(imageUserOf(null), ROOT_IMAGE_USER, 'an image the runtime does not know counts as root');
});
