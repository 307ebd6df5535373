// AppArmor admission, as upstream's appArmorAdmitHandler and validator: a new pod
// that asks for a profile is refused where AppArmor cannot be enforced, and a
// Localhost profile must name one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admitAppArmor, REASON_APPARMOR } from '../../../src/shared/admission/apparmor.js';
import { isAppArmorRequired } from '../../../src/shared/apparmor.js';
import type { Pod } from '../../../src/shared/types.js';

const HOST_OFF = 'AppArmor is not enabled on the host';

function pod(overrides: { spec?: Partial<NonNullable<Pod['spec']>>; annotations?: Record<string, string>; phase?: string } = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'default', uid: 'u1', annotations: overrides.annotations },
    spec: { containers: [{ name: 'app', image: 'busybox' }], ...overrides.spec },
    status: overrides.phase ? { phase: overrides.phase } : undefined,
  };
}

const RUNTIME_DEFAULT = { appArmorProfile: { type: 'RuntimeDefault' } };

test('whether a pod needs AppArmor: any profile but Unconfined, by field or annotation, in any container', () => {
  const cases: Array<[string, Pod, boolean]> = [
    ['nothing asked for', pod(), false],
    ['pod Unconfined', pod({ spec: { securityContext: { appArmorProfile: { type: 'Unconfined' } } } }), false],
    ['pod RuntimeDefault', pod({ spec: { securityContext: RUNTIME_DEFAULT } }), true],
    ['container RuntimeDefault', pod({ spec: { containers: [{ name: 'app', securityContext: RUNTIME_DEFAULT }] } }), true],
    ['init container Localhost', pod({ spec: { initContainers: [{ name: 'i', securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'x' } } }] } }), true],
    ['ephemeral container', pod({ spec: { ephemeralContainers: [{ name: 'dbg', securityContext: RUNTIME_DEFAULT }] } }), true],
    ['annotation unconfined', pod({ annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' } }), false],
    ['annotation runtime/default', pod({ annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'runtime/default' } }), true],
  ];
  for (const [desc, subject, required] of cases) assert.equal(isAppArmorRequired(subject), required, desc);
});

test('a pod that needs AppArmor is refused where the host cannot enforce it, with reason AppArmor', () => {
  const confined = pod({ spec: { securityContext: RUNTIME_DEFAULT } });
  assert.deepEqual(admitAppArmor(confined, HOST_OFF), {
    admit: false,
    reason: REASON_APPARMOR,
    message: 'Cannot enforce AppArmor: AppArmor is not enabled on the host',
  });
  assert.deepEqual(admitAppArmor(confined, undefined), { admit: true });
  assert.deepEqual(admitAppArmor(pod(), HOST_OFF), { admit: true }, 'a pod that asks for nothing runs anywhere');
  assert.deepEqual(admitAppArmor(pod({ spec: { securityContext: { appArmorProfile: { type: 'Unconfined' } } } }), HOST_OFF), { admit: true });
  assert.deepEqual(admitAppArmor({ ...confined, status: { phase: 'Running' } }, HOST_OFF), { admit: true }, 'a running pod is not checked again');
  assert.equal(admitAppArmor({ ...confined, status: { phase: 'Pending' } }, HOST_OFF).admit, false);
});

test('a Localhost profile without a name is refused even where AppArmor works', () => {
  for (const localhostProfile of [undefined, '', '  ']) {
    const subject = pod({ spec: { containers: [{ name: 'app', securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile } } }] } });
    const verdict = admitAppArmor(subject, undefined);
    assert.equal(verdict.admit, false, JSON.stringify(localhostProfile));
    if (!verdict.admit) assert.match(verdict.message, /^Cannot enforce AppArmor: invalid empty AppArmor profile name/);
  }
  const annotated = pod({ annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'localhost/' } });
  assert.equal(admitAppArmor(annotated, undefined).admit, false, 'nor through the annotation');
});
