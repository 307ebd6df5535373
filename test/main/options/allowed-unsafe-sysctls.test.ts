// allowedUnsafeSysctls: read from the file or --allowed-unsafe-sysctls, acted on (so
// not named in the start-up warning), and a pattern upstream's NewAllowlist refuses
// stops the start naming the field or the flag.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCodes, ShardletError } from '../../../src/shared/errors.js';
import { parseFlags } from '../../../src/main/options/flags.js';
import { mergeFlags, parseKubeletConfig } from '../../../src/main/options/kubelet-config.js';

const env = { hostname: () => 'node-a' };
const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

test('allowedUnsafeSysctls from the file and the flag, acted on', () => {
  const file = parseKubeletConfig(`${HEADER}allowedUnsafeSysctls: ["kernel.msg*", "net.core.somaxconn"]\n`, 'k.yaml');
  const fromFile = mergeFlags(file, parseFlags([]), env);
  assert.deepEqual(fromFile.allowedUnsafeSysctls, ['kernel.msg*', 'net.core.somaxconn']);
  assert.deepEqual(fromFile.startupNotices.notActedOn, []);
  const fromFlag = mergeFlags(undefined, parseFlags(['--allowed-unsafe-sysctls=net.ipv4.ip_forward,net.ipv6.conf.all.forwarding']), env);
  assert.deepEqual(fromFlag.allowedUnsafeSysctls, ['net.ipv4.ip_forward', 'net.ipv6.conf.all.forwarding']);
  assert.deepEqual(fromFlag.startupNotices.notActedOn, []);
  assert.deepEqual(mergeFlags(undefined, parseFlags([]), env).allowedUnsafeSysctls, []);
});

test('a sysctl that is not known to be namespaced stops the start, naming the field or the flag', () => {
  const file = parseKubeletConfig(`${HEADER}allowedUnsafeSysctls: ["net.core.somaxconn", "kernel.*"]\n`, 'k.yaml');
  assert.throws(
    () => mergeFlags(file, parseFlags([]), env),
    (err: unknown) =>
      err instanceof ShardletError &&
      err.code === ErrorCodes.CONFIG_INVALID &&
      err.message === 'k.yaml: field "allowedUnsafeSysctls[1]": the sysctls "kernel." are not known to be namespaced',
  );
  assert.throws(
    () => mergeFlags(undefined, parseFlags(['--allowed-unsafe-sysctls=vm.overcommit_memory']), env),
    (err: unknown) => err instanceof ShardletError && err.code === ErrorCodes.FLAG_INVALID && /--allowed-unsafe-sysctls: the sysctls "vm\.overcommit_memory"/.test(err.message),
  );
  assert.throws(
    () => mergeFlags(undefined, parseFlags(['--allowed-unsafe-sysctls=net.*.foo']), env),
    (err: unknown) => err instanceof ShardletError && /must have at most 253 characters and match regex/.test(err.message),
  );
});
