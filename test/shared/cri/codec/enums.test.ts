// The codecs' enum tables against the proto: a name's index must be its number.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import protobuf from 'protobufjs';
import * as enums from '../../../../src/shared/cri/codec/enums.js';
import { criType } from './proto-arbitraries.js';

const TABLES: Array<[readonly string[], string]> = [
  [enums.NAMESPACE_MODES, 'NamespaceMode'],
  [enums.PROTOCOLS, 'Protocol'],
  [enums.MOUNT_PROPAGATIONS, 'MountPropagation'],
  [enums.SECURITY_PROFILE_TYPES, 'SecurityProfile.ProfileType'],
  [enums.SUPPLEMENTAL_GROUPS_POLICIES, 'SupplementalGroupsPolicy'],
  [enums.POD_SANDBOX_STATES, 'PodSandboxState'],
  [enums.CONTAINER_STATES, 'ContainerState'],
];

test('every enum table lists the proto’s names in the order of their numbers', () => {
  const root = criType('PodSandboxConfig').root;
  for (const [names, enumName] of TABLES) {
    const values = root.lookupEnum(`runtime.v1.${enumName}`).values;
    assert.deepEqual(Object.fromEntries(names.map((name, number) => [name, number])), { ...values }, enumName);
  }
  assert.ok(root.lookup('runtime.v1.SecurityProfile.ProfileType') instanceof protobuf.Enum);
});

test('a number the table does not know stays a number, as protobufjs leaves it', () => {
  assert.equal(enums.enumName(enums.CONTAINER_STATES, 1), 'CONTAINER_RUNNING');
  assert.equal(enums.enumName(enums.CONTAINER_STATES, 9), 9);
});
