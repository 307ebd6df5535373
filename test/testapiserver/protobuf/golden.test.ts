// The request bodies kubectl 1.32 sent on this machine (test/fixtures/
// kubectl-protobuf/, made by capture-kubectl.ts), decoded field by field into the
// JSON kube-apiserver would hold, and written back byte for byte: the encoder
// agrees with gogo's Marshal on field order, which value fields Go always
// writes, map order, IntOrString, Quantity, Time and bytes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { projectProtoPath } from '../../../src/shared/project-path.js';
import { decodeEnveloped, encodeEnveloped } from '../../../src/testapiserver/protobuf/object-codec.js';

const FIXTURES = projectProtoPath(path.join('test', 'fixtures', 'kubectl-protobuf'));
/** The bytes kubectl read from --from-file: not UTF-8, and "k8s\0" inside. */
const BLOB_BASE64 = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a, 0x6b, 0x38, 0x73, 0x00]).toString('base64');

function fixture(name: string): Buffer {
  return readFileSync(path.join(FIXTURES, `${name}.pb`));
}

/** Decodes a captured body, checks it equals `expected`, and that encoding it again gives kubectl's bytes. */
function checkGolden(name: string, expected: Record<string, unknown>): Record<string, unknown> {
  const body = fixture(name);
  const decoded = decodeEnveloped(body);
  assert.deepEqual(decoded, expected);
  assert.equal(encodeEnveloped(decoded).toString('hex'), body.toString('hex'), `${name}: re-encoded bytes differ from kubectl's`);
  return decoded;
}

describe('kubectl 1.32 protobuf bodies', () => {
  it('create secret generic: bytes values (binary, empty), namespace, type', () => {
    checkGolden('create-secret', {
      kind: 'Secret', apiVersion: 'v1',
      metadata: { name: 's1', namespace: 'default', creationTimestamp: null },
      data: { blob: BLOB_BASE64, empty: '', username: Buffer.from('admin').toString('base64') },
      type: 'example.com/basic',
    });
  });

  it('create configmap: UTF-8 data and non-UTF-8 binaryData', () => {
    checkGolden('create-configmap', {
      kind: 'ConfigMap', apiVersion: 'v1',
      metadata: { name: 'c1', creationTimestamp: null },
      data: { greeting: 'grüße', mode: 'fast' },
      binaryData: { blob: BLOB_BASE64 },
    });
  });

  it('create deployment: a full pod template, value structs written even when empty', () => {
    checkGolden('create-deployment', {
      kind: 'Deployment', apiVersion: 'apps/v1',
      metadata: { name: 'web', creationTimestamp: null, labels: { app: 'web' } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'web' } },
          spec: { containers: [{ name: 'busybox', image: 'busybox:1.36', command: ['sleep', '3600'], ports: [{ containerPort: 8080 }], resources: {} }] },
        },
        strategy: {},
      },
      status: {},
    });
  });

  it('create rolebinding and clusterrolebinding: subjects of three kinds, roleRef', () => {
    checkGolden('create-rolebinding', {
      kind: 'RoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'rb1', creationTimestamp: null },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
        { kind: 'ServiceAccount', name: 'builder', namespace: 'default' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    });
    checkGolden('create-clusterrolebinding', {
      kind: 'ClusterRoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'crb1', creationTimestamp: null },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    });
  });

  it('create role: a rule whose empty API group is kept (a list entry, not a value field)', () => {
    checkGolden('create-role', {
      kind: 'Role', apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'pod-reader', creationTimestamp: null },
      rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['web'] }],
    });
  });

  it('auth can-i: SelfSubjectAccessReviews with resource attributes', () => {
    checkGolden('auth-can-i-create-pods', {
      kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } },
      status: {},
    });
    checkGolden('auth-can-i-nodes-proxy', {
      kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'nodes', subresource: 'proxy' } },
      status: {},
    });
  });

  it('create namespace and serviceaccount: empty spec and status', () => {
    checkGolden('create-namespace', { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'team-a', creationTimestamp: null }, spec: {}, status: {} });
    checkGolden('create-serviceaccount', { kind: 'ServiceAccount', apiVersion: 'v1', metadata: { name: 'builder', creationTimestamp: null } });
  });

  it('create token: a TokenRequest whose zero expirationTimestamp is null', () => {
    checkGolden('create-token', {
      kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { audiences: ['https://example.com'], expirationSeconds: 3600 },
      status: { expirationTimestamp: null },
    });
  });

  it('create service: IntOrString as a number and as a name', () => {
    checkGolden('create-service', {
      kind: 'Service', apiVersion: 'v1',
      metadata: { name: 'api', creationTimestamp: null, labels: { app: 'api' } },
      spec: {
        ports: [{ name: '443-8443', protocol: 'TCP', port: 443, targetPort: 8443 }, { name: '80-http', protocol: 'TCP', port: 80, targetPort: 'http' }],
        selector: { app: 'api' },
        type: 'ClusterIP',
      },
      status: { loadBalancer: {} },
    });
  });

  it('create quota: a map of quantities', () => {
    checkGolden('create-quota', {
      kind: 'ResourceQuota', apiVersion: 'v1',
      metadata: { name: 'q1', creationTimestamp: null },
      spec: { hard: { cpu: '1500m', memory: '1Gi', pods: '10' } },
      status: {},
    });
  });

  it('certificate approve: a stored CSR sent back with times, uid, annotations and an Approved condition', () => {
    const body = fixture('certificate-approve');
    const decoded = decodeEnveloped(body) as { metadata: Record<string, any>; spec: Record<string, any>; status: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    const lastApplied = JSON.parse(decoded.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'] as string);
    assert.deepEqual(decoded, {
      kind: 'CertificateSigningRequest', apiVersion: 'certificates.k8s.io/v1',
      metadata: {
        name: 'csr1', uid: '0c6914ce-eb54-4aef-a60b-550af433152d', resourceVersion: '15', creationTimestamp: '2026-11-27T10:31:04Z',
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': `${JSON.stringify(lastApplied)}\n` },
      },
      spec: {
        request: lastApplied.spec.request, signerName: 'kubernetes.io/kube-apiserver-client', expirationSeconds: 86400,
        usages: ['client auth'], username: 'admin', groups: ['system:masters', 'system:authenticated'],
      },
      status: {
        conditions: [{
          type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'This CSR was approved by kubectl certificate approve.',
          lastUpdateTime: '2026-11-27T10:31:19Z', lastTransitionTime: null,
        }],
      },
    });
    assert.match(Buffer.from(decoded.spec.request as string, 'base64').toString(), /^-----BEGIN CERTIFICATE REQUEST-----\n/);
    assert.equal(encodeEnveloped(decoded).toString('hex'), body.toString('hex'));
  });
});
