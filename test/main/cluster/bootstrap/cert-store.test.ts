// The rotating certificate files: an issued certificate becomes current only if
// it belongs to the private key it was asked for (upstream's FileStore checks the
// pair with tls.X509KeyPair), and a current file whose pair does not match is
// refused rather than served.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CertificateStore, KUBELET_CLIENT_PREFIX } from '../../../../src/main/cluster/bootstrap/cert-store.js';
import { ErrorCodes } from '../../../../src/shared/errors.js';
import { CertificateAuthority, type KeyPair } from '../../../../src/testapiserver/tls.js';

let authority: CertificateAuthority;
let first: KeyPair;
let second: KeyPair;
let dir: string;

before(async () => {
  authority = await CertificateAuthority.create();
  first = await authority.clientCert({ user: 'system:node:n1', groups: ['system:nodes'] });
  second = await authority.clientCert({ user: 'system:node:n2', groups: ['system:nodes'] });
  dir = await mkdtemp(path.join(tmpdir(), 'shardlet-cert-store-'));
});

after(async () => {
  await authority.destroy();
  await rm(dir, { recursive: true, force: true });
});

const mismatch = { code: ErrorCodes.CERTIFICATE_KEY_MISMATCH };

test('a certificate issued for another key never becomes current; the one in use stays', async () => {
  const certDir = path.join(dir, 'update');
  const store = new CertificateStore(certDir, KUBELET_CLIENT_PREFIX);
  const stored = await store.update(first.certPem, first.keyPem);
  const target = await readlink(store.currentPath);
  const filesBefore = await readdir(certDir);
  await assert.rejects(store.update(second.certPem, first.keyPem), mismatch);
  assert.equal(await readlink(store.currentPath), target);
  assert.deepEqual(await readdir(certDir), filesBefore, 'no pair file written for it');
  assert.equal((await store.current())?.certPem, stored.certPem);
});

test('a refused certificate takes its pending key with it, so the next request asks with a new key', async () => {
  const store = new CertificateStore(path.join(dir, 'pending'), KUBELET_CLIENT_PREFIX);
  const pendingKeyFile = path.join(dir, 'kubelet-client.key.tmp');
  await writeFile(pendingKeyFile, first.keyPem);
  await assert.rejects(store.updateFromPendingKey(second.certPem, first.keyPem, pendingKeyFile), mismatch);
  await assert.rejects(readlink(pendingKeyFile), { code: 'ENOENT' });
  assert.equal(await store.current(), undefined);
});

test('a current file whose certificate and key do not match is refused', async () => {
  const certDir = path.join(dir, 'tampered');
  const store = new CertificateStore(certDir, KUBELET_CLIENT_PREFIX);
  await store.update(first.certPem, first.keyPem);
  const tampered = path.join(certDir, 'kubelet-client-tampered.pem');
  await writeFile(tampered, `${second.certPem.trimEnd()}\n${first.keyPem}`);
  await rm(store.currentPath);
  await symlink(tampered, store.currentPath);
  await assert.rejects(store.current(), mismatch);
});
