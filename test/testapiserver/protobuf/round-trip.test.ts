// JSON → protobuf → JSON for arbitrary objects of every kind the test API server
// serves (and the ones the authorization work adds), their lists, Status and
// DeleteOptions: whatever the schema can carry comes back unchanged. And bytes a
// hostile client makes up are refused with a decode error, never anything worse.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { RESOURCES, apiVersionOf } from '../../../src/testapiserver/resources.js';
import { writeEnvelope } from '../../../src/testapiserver/protobuf/envelope.js';
import { messageOfKind } from '../../../src/testapiserver/protobuf/kinds.js';
import { decodeEnveloped, encodeEnveloped } from '../../../src/testapiserver/protobuf/object-codec.js';
import { WireFormatError } from '../../../src/testapiserver/protobuf/wire.js';
import { objectOf } from './kube-arbitraries.js';

const RUNS_PER_KIND = 30;

/** What resources.ts serves on this branch, the kinds the authorization branch adds, and the shared meta kinds. */
const KINDS: Array<[string, string]> = [
  ['v1', 'Pod'], ['v1', 'Node'], ['v1', 'Namespace'], ['v1', 'ConfigMap'], ['v1', 'Secret'], ['v1', 'ServiceAccount'], ['v1', 'Event'],
  ['v1', 'Binding'], ['v1', 'PersistentVolumeClaim'], ['v1', 'PersistentVolume'],
  ['authentication.k8s.io/v1', 'TokenRequest'], ['authentication.k8s.io/v1', 'TokenReview'],
  ['authorization.k8s.io/v1', 'SubjectAccessReview'], ['authorization.k8s.io/v1', 'SelfSubjectAccessReview'], ['authorization.k8s.io/v1', 'SelfSubjectRulesReview'],
  ['policy/v1', 'Eviction'], ['coordination.k8s.io/v1', 'Lease'], ['certificates.k8s.io/v1', 'CertificateSigningRequest'], ['events.k8s.io/v1', 'Event'],
  ['apps/v1', 'Deployment'],
  ['rbac.authorization.k8s.io/v1', 'Role'], ['rbac.authorization.k8s.io/v1', 'ClusterRole'], ['rbac.authorization.k8s.io/v1', 'RoleBinding'], ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'],
  ['resource.k8s.io/v1', 'ResourceClaim'], ['resource.k8s.io/v1beta1', 'ResourceClaim'],
  ['v1', 'Status'], ['v1', 'DeleteOptions'], ['v1', 'APIResourceList'], ['v1', 'APIGroupList'],
];

/** Review kinds are created and answered, never listed. */
const UNLISTED = new Set(['Binding', 'TokenRequest', 'TokenReview', 'SubjectAccessReview', 'SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'Eviction', 'Status', 'DeleteOptions', 'APIResourceList', 'APIGroupList']);

const ALL_KINDS: Array<[string, string]> = [...KINDS, ...KINDS.filter(([, kind]) => !UNLISTED.has(kind)).map(([apiVersion, kind]): [string, string] => [apiVersion, `${kind}List`])];

describe('protobuf round trip of arbitrary objects', () => {
  it('covers every kind resources.ts serves, and its list', () => {
    for (const def of RESOURCES) {
      const apiVersion = apiVersionOf(def);
      assert.ok(ALL_KINDS.some(([v, k]) => v === apiVersion && k === def.kind), `${apiVersion} ${def.kind} is served but not round-tripped here`);
      assert.ok(messageOfKind(apiVersion, def.kind), `${apiVersion} ${def.kind} has no message`);
      if (!UNLISTED.has(def.kind)) assert.ok(messageOfKind(apiVersion, `${def.kind}List`), `${apiVersion} ${def.kind}List has no message`);
    }
  });

  for (const [apiVersion, kind] of ALL_KINDS) {
    it(`${apiVersion} ${kind}: JSON → protobuf → JSON is the identity`, () => {
      const schema = messageOfKind(apiVersion, kind);
      assert.ok(schema, `no message for ${apiVersion} ${kind}`);
      const objects = objectOf(schema).map((fields) => ({ kind, ...(apiVersion ? { apiVersion } : {}), ...fields }));
      fc.assert(
        fc.property(objects, (obj) => {
          assert.deepEqual(decodeEnveloped(encodeEnveloped(obj)), obj);
        }),
        { numRuns: RUNS_PER_KIND },
      );
    });
  }

  it('an IntOrString carries every int32, the ends included, and refuses one past them', () => {
    // fast-check once drew -2^31 for a Deployment's maxUnavailable, which the encoder refused.
    const deployment = (maxUnavailable: number) => ({
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { creationTimestamp: '1970-01-01T00:00:00Z' },
      spec: { template: { metadata: { creationTimestamp: '1970-01-01T00:00:00Z' }, spec: {} }, strategy: { rollingUpdate: { maxUnavailable } } },
      status: {},
    });
    for (const edge of [-(2 ** 31), 2 ** 31 - 1]) assert.deepEqual(decodeEnveloped(encodeEnveloped(deployment(edge))), deployment(edge));
    for (const past of [-(2 ** 31) - 1, 2 ** 31]) assert.throws(() => encodeEnveloped(deployment(past)), /neither a 32-bit integer nor a string/);
  });
});

function decodesOrRefuses(body: Uint8Array): void {
  try {
    decodeEnveloped(body);
  } catch (err) {
    if (!(err instanceof WireFormatError)) throw err;
  }
}

describe('hostile protobuf bodies', () => {
  it('random bytes inside a Pod envelope decode or fail with a WireFormatError', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (raw) => decodesOrRefuses(writeEnvelope('v1', 'Pod', raw))), { numRuns: 2000 });
  });

  it('a real body with bytes changed or cut decodes or fails with a WireFormatError', () => {
    const body = encodeEnveloped({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'web', labels: { app: 'web' }, creationTimestamp: '2024-05-01T10:00:00Z' },
      spec: { containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } }] },
    });
    const mutated = fc.tuple(fc.array(fc.tuple(fc.nat(body.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }), fc.nat(body.length)).map(([changes, cut]) => {
      const copy = Buffer.from(body);
      for (const [at, value] of changes) copy[at] = value;
      return copy.subarray(0, cut);
    });
    fc.assert(fc.property(mutated, decodesOrRefuses), { numRuns: 2000 });
  });

  it('RawExtensions nested a thousand deep are refused, not a stack overflow', () => {
    // A ResourceClaim whose status.devices[0].data (a RawExtension) holds another enveloped ResourceClaim.
    let inner = encodeEnveloped({ apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'leaf' } });
    for (let i = 0; i < 1000; i++) {
      const claim = Buffer.concat([
        Buffer.from([0x1a]), lengthPrefixed(Buffer.concat([Buffer.from([0x22]), lengthPrefixed(Buffer.concat([Buffer.from([0x2a]), lengthPrefixed(Buffer.concat([Buffer.from([0x0a]), lengthPrefixed(inner)]))]))])),
      ]);
      inner = writeEnvelope('resource.k8s.io/v1', 'ResourceClaim', claim);
    }
    assert.throws(() => decodeEnveloped(inner), (err: unknown) => err instanceof WireFormatError && /nested more than/.test(err.message));
  });
});

function lengthPrefixed(bytes: Buffer): Buffer {
  const length: number[] = [];
  let n = bytes.length;
  while (n >= 0x80) {
    length.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  length.push(n);
  return Buffer.concat([Buffer.from(length), bytes]);
}
