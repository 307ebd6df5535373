// The sysctl admission, as upstream's TestNewAllowlist, TestAllowlist and
// TestSafeSysctlAllowlist tables, and a property over hostile names: whatever a
// manifest names, admission answers (never throws) and admits only what the
// allowlist holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { REASON_SYSCTL_FORBIDDEN, safeSysctlAllowlist, SysctlAllowlist, sysctlPatternProblem } from '../../../src/shared/admission/sysctl-allowlist.js';
import { normalizeSysctlName } from '../../../src/shared/admission/sysctl-names.js';
import type { Pod } from '../../../src/shared/types.js';

const KERNEL = '6.1.0-18-amd64';

function podWith(sysctls: Array<{ name: string; value: string }>, host: { hostNetwork?: boolean; hostIPC?: boolean } = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'default', uid: 'u1' },
    spec: { containers: [{ name: 'c', image: 'busybox' }], securityContext: { sysctls }, ...host },
  };
}

test('allowedUnsafeSysctls patterns: names and prefixes of namespaced sysctls only', () => {
  const cases: Array<[string[], boolean]> = [
    [['kernel.msg*', 'kernel.sem'], true],
    [['kernel/msg*', 'kernel/sem'], true],
    [['net.ipv4.ip_forward', 'net.ipv6.conf.all.forwarding', 'fs.mqueue.*'], true],
    [[' kernel.msg*'], false],
    [['kernel.msg* '], false],
    [['net.-'], false],
    [['net.*.foo'], false],
    [['net.*/foo'], false],
    [['foo'], false],
    [['foo*'], false],
    [['*'], false],
    [['kernel.*'], false],
    [['vm.overcommit_memory'], false],
    [['kernel.hostname'], false],
    [['NET.IPV4.IP_FORWARD'], false],
    [[`net.${'a'.repeat(250)}`], false],
  ];
  for (const [patterns, ok] of cases) {
    const problems = patterns.map(sysctlPatternProblem).filter((problem) => problem !== undefined);
    assert.equal(problems.length === 0, ok, `${patterns.join(',')}: ${problems.join('; ')}`);
    if (ok) assert.doesNotThrow(() => SysctlAllowlist.forNode(patterns, KERNEL));
    else assert.throws(() => SysctlAllowlist.forNode(patterns, KERNEL));
  }
  assert.equal(sysctlPatternProblem('foo'), 'the sysctls "foo" are not known to be namespaced');
  assert.match(sysctlPatternProblem('net.-')!, /^sysctl "net\.-" must have at most 253 characters and match regex /);
});

test('sysctls: the safe ones, the allowed unsafe ones, and the host namespaces', () => {
  const allowlist = SysctlAllowlist.forNode(['kernel.msg*', 'kernel.sem', 'net.b.*'], KERNEL);
  const valid: Array<[string, { hostNetwork?: boolean; hostIPC?: boolean }?]> = [
    ['kernel.shm_rmid_forced'],
    ['kernel/shm_rmid_forced'],
    ['net.ipv4.ip_local_port_range'],
    ['net/ipv4/ip_local_port_range'],
    ['kernel.msgmax'],
    ['kernel.sem'],
    ['kernel/sem'],
    ['net.b.c'],
  ];
  const invalid: Array<[string, { hostNetwork?: boolean; hostIPC?: boolean }, RegExp]> = [
    ['kernel.shm_rmid_forced', { hostIPC: true }, /^forbidden sysctl: "kernel\.shm_rmid_forced" not allowed with host IPC enabled$/],
    ['net.ipv4.ip_local_port_range', { hostNetwork: true }, /"net\.ipv4\.ip_local_port_range" not allowed with host Net enabled/],
    ['foo', {}, /^forbidden sysctl: "foo" not allowlisted$/],
    ['net.a.b.c', {}, /not allowlisted/],
    ['net.ipv4.ip_local_port_range.a.b.c', {}, /not allowlisted/],
    ['kernel.msgmax', { hostIPC: true }, /host IPC/],
    ['kernel.sem', { hostIPC: true }, /host IPC/],
    ['net.b.c', { hostNetwork: true }, /host Net/],
    // What an attacker wants: the node's forwarding, its memory policy, its panic behaviour.
    ['net.ipv4.ip_forward', {}, /not allowlisted/],
    ['vm.overcommit_memory', {}, /not allowlisted/],
    ['kernel.panic', {}, /not allowlisted/],
    ['kernel.core_pattern', {}, /not allowlisted/],
  ];
  for (const [name, host] of valid) {
    assert.deepEqual(allowlist.admit(podWith([{ name, value: '1' }], host)), { admit: true }, name);
  }
  for (const [name, host, message] of invalid) {
    const verdict = allowlist.admit(podWith([{ name, value: '1' }], host));
    assert.equal(verdict.admit, false, name);
    if (!verdict.admit) {
      assert.equal(verdict.reason, REASON_SYSCTL_FORBIDDEN);
      assert.match(verdict.message, message);
    }
  }
  assert.deepEqual(allowlist.admit(podWith([])), { admit: true });
  const noSecurityContext: Pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }] } };
  assert.deepEqual(allowlist.admit(noSecurityContext), { admit: true });
  // One forbidden sysctl among safe ones refuses the pod.
  const mixed = allowlist.admit(podWith([{ name: 'kernel.shm_rmid_forced', value: '1' }, { name: 'kernel.panic', value: '1' }]));
  assert.equal(mixed.admit, false);
});

test('the safe list follows the kernel: the newer sysctls only where the kernel namespaces them', () => {
  const always = [
    'kernel.shm_rmid_forced',
    'net.ipv4.ip_local_port_range',
    'net.ipv4.tcp_syncookies',
    'net.ipv4.ping_group_range',
    'net.ipv4.ip_unprivileged_port_start',
    'net.ipv4.tcp_keepalive_time',
    'net.ipv4.tcp_fin_timeout',
    'net.ipv4.tcp_keepalive_intvl',
    'net.ipv4.tcp_keepalive_probes',
  ];
  assert.deepEqual(safeSysctlAllowlist('garbage'), always);
  assert.deepEqual(safeSysctlAllowlist('3.15.0'), always);
  assert.deepEqual(safeSysctlAllowlist('3.16.0'), [...always, 'net.ipv4.ip_local_reserved_ports']);
  assert.deepEqual(safeSysctlAllowlist('4.14.200'), [...always, 'net.ipv4.ip_local_reserved_ports']);
  const newest = [...always, 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];
  assert.deepEqual(safeSysctlAllowlist('4.15.0'), newest);
  assert.deepEqual(safeSysctlAllowlist('6.18.44-fc-v782'), newest);
  const oldKernel = SysctlAllowlist.forNode([], '4.4.0');
  assert.equal(oldKernel.admit(podWith([{ name: 'net.ipv4.tcp_rmem', value: '4096 87380 6291456' }])).admit, false);
});

test('normalizeSysctlName swaps dots and slashes only when a slash comes first', () => {
  assert.equal(normalizeSysctlName('net/ipv4/conf/eno2.100/rp_filter'), 'net.ipv4.conf.eno2/100.rp_filter');
  assert.equal(normalizeSysctlName('net.ipv4.conf.eno2/100.rp_filter'), 'net.ipv4.conf.eno2/100.rp_filter');
  assert.equal(normalizeSysctlName('kernel'), 'kernel');
  assert.equal(normalizeSysctlName(''), '');
});

test('any sysctl name a manifest carries is answered, and admitted only when the allowlist holds it', () => {
  const safe = new Set(safeSysctlAllowlist(KERNEL));
  const allowlist = SysctlAllowlist.forNode(['net.core.somaxconn'], KERNEL);
  const name = fc.oneof(
    fc.string(),
    fc.constantFrom(...safe, 'net.core.somaxconn', 'kernel.panic', 'net/ipv4/ip_forward', 'kernel/shm_rmid_forced'),
    fc
      .tuple(fc.array(fc.constantFrom('net', 'ipv4', 'kernel', 'shm_rmid_forced', 'core', 'somaxconn', '..', ''), { maxLength: 5 }), fc.constantFrom('.', '/'))
      .map(([parts, separator]) => parts.join(separator)),
  );
  fc.assert(
    fc.property(name, fc.boolean(), fc.boolean(), (sysctl, hostNetwork, hostIPC) => {
      const verdict = allowlist.admit(podWith([{ name: sysctl, value: '1' }], { hostNetwork, hostIPC }));
      const normalized = normalizeSysctlName(sysctl);
      const listed = safe.has(normalized) || normalized === 'net.core.somaxconn';
      const sharesHost = (normalized.startsWith('net.') && hostNetwork) || (normalized.startsWith('kernel.') && hostIPC);
      assert.equal(verdict.admit, listed && !sharesHost, `${sysctl} hostNetwork=${hostNetwork} hostIPC=${hostIPC}`);
    }),
    { numRuns: 2000 },
  );
});
