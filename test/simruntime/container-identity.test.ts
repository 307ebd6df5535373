// Who a simulated container's processes run as, and what busybox's id prints for it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type * as cri from '../../src/shared/cri/types.js';
import { formatId, formatWhoami, identityOf, securityContextFailure } from '../../src/simruntime/container-identity.js';

function securityContext(fields: Partial<cri.LinuxContainerSecurityContext__Output>): cri.LinuxContainerSecurityContext__Output {
  return { run_as_user: null, run_as_username: '', run_as_group: null, supplemental_groups: [], ...fields } as cri.LinuxContainerSecurityContext__Output;
}

describe('container identity', () => {
  const table: Array<{ name: string; context: Partial<cri.LinuxContainerSecurityContext__Output>; args: string[]; stdout: string }> = [
    { name: 'root by default', context: {}, args: [], stdout: 'uid=0(root) gid=0(root) groups=0(root)\n' },
    { name: 'RunAsUser without an account', context: { run_as_user: { value: 1001 } }, args: ['-u'], stdout: '1001\n' },
    { name: 'its group is 0 then', context: { run_as_user: { value: 1001 } }, args: ['-g'], stdout: '0\n' },
    { name: 'RunAsUser of an account takes its group', context: { run_as_user: { value: 65534 } }, args: ['-gn'], stdout: 'nogroup\n' },
    { name: 'RunAsUsername', context: { run_as_username: 'nobody' }, args: ['-nu'], stdout: 'nobody\n' },
    { name: 'RunAsGroup', context: { run_as_user: { value: 1001 }, run_as_group: { value: 1002 } }, args: ['-g'], stdout: '1002\n' },
    { name: 'SupplementalGroups after the primary group', context: { supplemental_groups: [1234, 5678, 0] }, args: ['-G'], stdout: '0 1234 5678\n' },
    { name: 'the long form', context: { run_as_user: { value: 1001 }, supplemental_groups: [1234] }, args: [], stdout: 'uid=1001 gid=0(root) groups=0(root),1234\n' },
  ];
  for (const { name, context, args, stdout } of table) {
    it(`id ${args.join(' ')}: ${name}`, () => {
      const result = formatId(args, identityOf(securityContext(context)));
      assert.deepEqual(result, { stdout, stderr: '', exitCode: 0 });
    });
  }

  it('fails id -un and whoami for a uid the image has no name for, as busybox (seen on containerd)', () => {
    const identity = identityOf(securityContext({ run_as_user: { value: 1001 } }));
    assert.deepEqual(formatId(['-un'], identity), { stdout: '1001\n', stderr: 'id: unknown ID 1001\n', exitCode: 1 });
    assert.deepEqual(formatWhoami(identity), { stdout: '', stderr: 'whoami: unknown uid 1001\n', exitCode: 1 });
  });

  it('refuses RunAsGroup without a user and a user the image does not have', () => {
    assert.match(String(securityContextFailure(securityContext({ run_as_group: { value: 5 } }))?.message), /specified without user/);
    assert.match(String(securityContextFailure(securityContext({ run_as_username: 'www-data' }))?.message), /no users found/);
    assert.equal(securityContextFailure(securityContext({ run_as_username: 'nobody', run_as_group: { value: 5 } })), undefined);
  });
});
