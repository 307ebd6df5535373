// The static reply decoders against proto-loader's codec of the same proto: for any
// reply a runtime can send, every field a caller reads has the value, name and
// default the generic decode gave it, and the fields no caller reads are not there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type protobuf from 'protobufjs';
import { loadCriServices } from '../../../../src/shared/cri/load-proto.js';
import { STATIC_METHODS } from '../../../../src/shared/cri/unary-methods.js';
import { criType, messageArbitrary, reflectiveDecode } from './proto-arbitraries.js';

const NUM_RUNS = 200;

/** Which fields of a message a decoder keeps: `true` for a value, a mask for a message, [mask] for a list of messages. */
type Mask = { [field: string]: true | Mask | [Mask] };

const POD_SANDBOX_METADATA: Mask = { name: true, uid: true, namespace: true, attempt: true };
const CONTAINER_METADATA: Mask = { name: true, attempt: true };

/** Each decoder: the reply type, and the fields CriClient's callers read (src/shared/cri/codec/reply-types.ts). */
const REPLIES: Array<[keyof typeof STATIC_METHODS, string, Mask]> = [
  ['version', 'VersionResponse', { version: true, runtime_name: true, runtime_version: true, runtime_api_version: true }],
  ['runPodSandbox', 'RunPodSandboxResponse', { pod_sandbox_id: true }],
  ['stopPodSandbox', 'StopPodSandboxResponse', {}],
  ['removePodSandbox', 'RemovePodSandboxResponse', {}],
  [
    'podSandboxStatus',
    'PodSandboxStatusResponse',
    {
      status: {
        id: true,
        metadata: POD_SANDBOX_METADATA,
        state: true,
        created_at: true,
        network: { ip: true, additional_ips: [{ ip: true }] },
        linux: { namespaces: { options: { network: true } } },
      },
    },
  ],
  ['listPodSandbox', 'ListPodSandboxResponse', { items: [{ id: true, metadata: POD_SANDBOX_METADATA, state: true, created_at: true, labels: true }] }],
  ['createContainer', 'CreateContainerResponse', { container_id: true }],
  ['startContainer', 'StartContainerResponse', {}],
  ['stopContainer', 'StopContainerResponse', {}],
  ['removeContainer', 'RemoveContainerResponse', {}],
  [
    'listContainers',
    'ListContainersResponse',
    {
      containers: [
        {
          id: true,
          pod_sandbox_id: true,
          metadata: CONTAINER_METADATA,
          image: { image: true },
          image_ref: true,
          state: true,
          created_at: true,
          labels: true,
          annotations: true,
        },
      ],
    },
  ],
  [
    'containerStatus',
    'ContainerStatusResponse',
    {
      status: {
        id: true,
        metadata: CONTAINER_METADATA,
        state: true,
        created_at: true,
        started_at: true,
        finished_at: true,
        exit_code: true,
        image: { image: true },
        image_ref: true,
        reason: true,
        message: true,
        labels: true,
        annotations: true,
        log_path: true,
        user: { linux: { uid: true, gid: true, supplemental_groups: true } },
      },
    },
  ],
  ['execSync', 'ExecSyncResponse', { stdout: true, stderr: true, exit_code: true }],
  ['imageStatus', 'ImageStatusResponse', { image: { id: true, size: true, uid: { value: true }, username: true } }],
  ['pullImage', 'PullImageResponse', { image_ref: true }],
];

/** The masked part of a generic decode; a null message stays null. */
function project(value: unknown, mask: Mask | [Mask] | true): unknown {
  if (mask === true || value === null) return value;
  if (Array.isArray(mask)) return (value as unknown[]).map((item) => project(item, mask[0]));
  const source = value as Record<string, unknown>;
  return Object.fromEntries(Object.keys(mask).map((field) => [field, project(source[field], mask[field])]));
}

function genericSerialize(key: keyof typeof STATIC_METHODS): (reply: object) => Buffer {
  const { service, name } = STATIC_METHODS[key];
  const services = loadCriServices();
  const definitions = (service === 'RuntimeService' ? services.runtime : services.image) as unknown as Record<string, { responseSerialize(reply: object): Buffer }>;
  return definitions[name].responseSerialize;
}

/** A runtime newer than our proto adds fields we do not know: a varint and a length-delimited one at numbers past the proto's. */
function withUnknownFields(bytes: Buffer): Buffer {
  return Buffer.concat([bytes, Buffer.from([0xa0, 0x06, 0x2a]), Buffer.from([0xaa, 0x06, 0x03, 0x61, 0x62, 0x63])]);
}

for (const [key, typeName, mask] of REPLIES) {
  test(`${typeName}: what callers read decodes as proto-loader decoded it, and nothing else is built`, () => {
    const type: protobuf.Type = criType(typeName);
    const deserialize = STATIC_METHODS[key].deserialize as (bytes: Buffer) => unknown;
    const serialize = genericSerialize(key);
    fc.assert(
      fc.property(messageArbitrary(type), fc.boolean(), (reply, unknownFields) => {
        const bytes = unknownFields ? withUnknownFields(serialize(reply)) : serialize(reply);
        assert.deepEqual(deserialize(bytes), project(reflectiveDecode(type, bytes), mask));
      }),
      { numRuns: NUM_RUNS },
    );
  });
}

test('int64 and uint64 become the same numbers as with proto-loader, over their whole range and beyond 2^53', () => {
  const type = criType('ContainerStatusResponse');
  const serialize = genericSerialize('containerStatus');
  const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String);
  fc.assert(
    fc.property(int64, int64, int64, (created, started, finished) => {
      const bytes = serialize({ status: { created_at: created, started_at: started, finished_at: finished } });
      const status = STATIC_METHODS.containerStatus.deserialize(bytes).status!;
      const expected = reflectiveDecode(type, bytes).status as Record<string, number>;
      assert.deepEqual([status.created_at, status.started_at, status.finished_at], [expected.created_at, expected.started_at, expected.finished_at]);
    }),
    { numRuns: 1000 },
  );
  const imageType = criType('ImageStatusResponse');
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String), (size) => {
      const bytes = genericSerialize('imageStatus')({ image: { id: 'i', size } });
      assert.equal(STATIC_METHODS.imageStatus.deserialize(bytes).image!.size, (reflectiveDecode(imageType, bytes).image as { size: number }).size);
    }),
    { numRuns: 1000 },
  );
});

test('a reply cut short fails to decode instead of yielding a partial message', () => {
  const bytes = genericSerialize('containerStatus')({ status: { id: 'abc', labels: { a: 'b' }, created_at: 1_700_000_000_000_000_000 } });
  for (let length = 1; length < bytes.length; length++) {
    assert.throws(() => STATIC_METHODS.containerStatus.deserialize(bytes.subarray(0, length)), RangeError, `cut at ${length}`);
  }
});

test('an absent image is null, and an absent list is empty, as with proto-loader', () => {
  assert.deepEqual(STATIC_METHODS.imageStatus.deserialize(Buffer.alloc(0)), { image: null });
  assert.deepEqual(STATIC_METHODS.listContainers.deserialize(Buffer.alloc(0)), { containers: [] });
  assert.deepEqual(STATIC_METHODS.podSandboxStatus.deserialize(Buffer.alloc(0)), { status: null });
});
