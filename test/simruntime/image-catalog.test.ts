// Image reference normalisation and which pulls the simulated registries refuse.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { ImageCatalog, imageIdOf, imageStatusUser, imageUserOf, parseImageReference } from '../../src/simruntime/image-catalog.js';

describe('image catalog', () => {
  const table: Array<[string, string]> = [
    ['busybox', 'docker.io/library/busybox:latest'],
    ['busybox:1.36', 'docker.io/library/busybox:1.36'],
    ['team/app:2', 'docker.io/team/app:2'],
    ['registry.k8s.io/pause:3.9', 'registry.k8s.io/pause:3.9'],
    ['127.0.0.1:5000/busybox:1.36', '127.0.0.1:5000/busybox:1.36'],
    ['localhost/app', 'localhost/app:latest'],
    ['busybox@sha256:' + 'a'.repeat(64), 'docker.io/library/busybox@sha256:' + 'a'.repeat(64)],
  ];
  for (const [name, canonical] of table) {
    it(`normalises ${name}`, () => assert.equal(parseImageReference(name).canonical, canonical));
  }

  it('derives the same ID from every spelling of a name', () => {
    assert.equal(imageIdOf(parseImageReference('busybox')), imageIdOf(parseImageReference('docker.io/library/busybox:latest')));
    assert.notEqual(imageIdOf(parseImageReference('busybox:1')), imageIdOf(parseImageReference('busybox:2')));
  });

  it('refuses unknown hosts and missing images, and honours knownRegistries', () => {
    const open = new ImageCatalog({ defaultImageSizeBytes: 1, imageSizesBytes: {} });
    assert.equal(open.pullFailure(parseImageReference('registry.bench/app-1:1.0')), undefined);
    assert.equal(open.pullFailure(parseImageReference('nope.invalid/app'))?.code, GrpcStatus.UNKNOWN);
    assert.equal(open.pullFailure(parseImageReference('app-doesnotexist:1'))?.code, GrpcStatus.NOT_FOUND);
    const closed = new ImageCatalog({ knownRegistries: ['127.0.0.1:5000'], defaultImageSizeBytes: 1, imageSizesBytes: {} });
    assert.equal(closed.pullFailure(parseImageReference('127.0.0.1:5000/busybox:1.36')), undefined);
    assert.match(closed.pullFailure(parseImageReference('busybox'))?.message ?? '', /lookup docker\.io: no such host/);
  });

  it('gives the tags of one image (sameImages), and a digest it handed out, that image\'s ID', () => {
    const catalog = new ImageCatalog({ defaultImageSizeBytes: 1, imageSizesBytes: {}, sameImages: [['reg.test/app:1', 'reg.test/app:latest']] });
    const one = catalog.contentOf(parseImageReference('reg.test/app:1'));
    const latest = catalog.contentOf(parseImageReference('reg.test/app:latest'));
    assert.deepEqual(latest, one);
    const byDigest = catalog.contentOf(parseImageReference(one.repoDigest));
    assert.deepEqual(byDigest, one);
    const other = catalog.contentOf(parseImageReference('reg.test/app:2'));
    assert.notEqual(other.id, one.id);
    assert.equal(catalog.contentOf(parseImageReference(other.repoDigest)).id, other.id);
    // An ungrouped tag keeps the ID it always had.
    assert.equal(other.id, imageIdOf(parseImageReference('reg.test/app:2')));
  });

  it('gives each image a user, reported as containerd reports it: a uid when numeric, else a name', () => {
    assert.equal(imageUserOf(parseImageReference('busybox:1.36')), '', 'busybox names no user: root');
    assert.equal(imageUserOf(parseImageReference('gcr.io/distroless/static:nonroot')), '65532:65532');
    assert.equal(imageUserOf(parseImageReference('registry.local/named-user/app:1')), 'app');
    const table: Array<[string, ReturnType<typeof imageStatusUser>]> = [
      ['', { uid: null, username: '' }],
      ['0', { uid: { value: 0 }, username: '' }],
      ['65532:65532', { uid: { value: 65532 }, username: '' }],
      ['1000:users', { uid: { value: 1000 }, username: '' }],
      ['app', { uid: null, username: 'app' }],
      ['root:root', { uid: null, username: 'root' }],
      [':100', { uid: null, username: '' }],
    ];
    for (const [user, reported] of table) assert.deepEqual(imageStatusUser(user), reported, user);
  });
});
