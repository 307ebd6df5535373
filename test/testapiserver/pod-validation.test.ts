// Pod validation where kube-apiserver answers 422, case by case: the create,
// update and status-write checks and their Invalid bodies.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/testapiserver/api-error.js';
import { defaultPod } from '../../src/testapiserver/defaults.js';
import { validatePodCreate, validatePodStatusUpdate, validatePodUpdate } from '../../src/testapiserver/pod-validation.js';
import type { KubeObject } from '../../src/testapiserver/types.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function pod(change: (p: Obj) => void = () => {}): KubeObject {
  const p: Obj = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'u1' },
    spec: { restartPolicy: 'Never', nodeName: 'n1', containers: [{ name: 'main', image: 'busybox:1.36' }], initContainers: [{ name: 'init', image: 'busybox:1.36' }] },
    status: { phase: 'Running', qosClass: 'BestEffort' },
  };
  defaultPod(p as KubeObject);
  change(p);
  return p as KubeObject;
}

/** The 422 message, or 'valid'. */
function outcome(check: () => void): string {
  try {
    check();
    return 'valid';
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    assert.equal(err.code, 422);
    assert.equal(err.toStatus().reason, 'Invalid');
    return err.message;
  }
}

const terminated = (exitCode: number) => ({ terminated: { exitCode, reason: exitCode ? 'Error' : 'Completed' } });

describe('pod validation', () => {
  const creates: Array<[string, (p: Obj) => void, string]> = [
    ['a pod with one container', () => {}, 'valid'],
    ['a pod without containers', (p) => (p.spec.containers = []), 'Pod "web" is invalid: spec.containers: Required value'],
    ['a container without an image', (p) => delete p.spec.containers[0].image, 'Pod "web" is invalid: spec.containers[0].image: Required value'],
    ['two containers of one name', (p) => p.spec.containers.push({ name: 'init', image: 'x' }), 'Pod "web" is invalid: spec.containers[1].name: Duplicate value: "init"'],
    ['a mount of a volume that does not exist', (p) => (p.spec.containers[0].volumeMounts = [{ name: 'data', mountPath: '/data' }]), 'Pod "web" is invalid: spec.containers[0].volumeMounts[0].name: Not found: "data"'],
    ['an unknown restart policy', (p) => (p.spec.restartPolicy = 'Sometimes'), 'Pod "web" is invalid: spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'],
    ['an upper-case name', (p) => (p.metadata.name = 'Web'),
      "Pod \"Web\" is invalid: metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"],
  ];
  for (const [what, change, expected] of creates) it(`create: ${what}`, () => assert.equal(outcome(() => validatePodCreate(pod(change))), expected));

  it('create: several errors at once are listed in brackets, each a cause', () => {
    try {
      validatePodCreate(pod((p) => {
        p.spec.containers = [{ name: 'main' }];
        p.spec.restartPolicy = 'x';
      }));
      assert.fail('accepted');
    } catch (err) {
      const status = (err as ApiError).toStatus();
      assert.match(status.message ?? '', /^Pod "web" is invalid: \[spec\.containers\[0\]\.image: Required value, spec\.restartPolicy: Unsupported value: "x"/);
      assert.deepEqual(status.details?.causes?.map((c) => [c.reason, c.field]), [['FieldValueRequired', 'spec.containers[0].image'], ['FieldValueNotSupported', 'spec.restartPolicy']]);
    }
  });

  const updates: Array<[string, (p: Obj) => void, string | RegExp]> = [
    ['a new image', (p) => (p.spec.containers[0].image = 'busybox:1.37'), 'valid'],
    ['a shorter activeDeadlineSeconds', (p) => (p.spec.activeDeadlineSeconds = 30), 'valid'],
    ['an added toleration', (p) => (p.spec.tolerations = [{ key: 'k', operator: 'Exists' }]), 'valid'],
    ['a changed command', (p) => (p.spec.containers[0].command = ['sh']),
      /^Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than `spec\.containers\[\*\]\.image`,`spec\.initContainers\[\*\]\.image`,`spec\.activeDeadlineSeconds`,`spec\.tolerations` \(only additions to existing tolerations\),`spec\.terminationGracePeriodSeconds` \(allow it to be set to 1 if it was previously negative\)\n {2}spec\.containers: /],
    ['another node', (p) => (p.spec.nodeName = 'n2'), /spec: Forbidden: pod updates may not change fields other than .*\n {2}spec\.nodeName: "n1" -> "n2"$/s],
    ['an added container', (p) => p.spec.containers.push({ name: 'side', image: 'x' }), /spec\.containers: Forbidden: pod updates may not add or remove containers/],
    ['a changed UID', (p) => (p.metadata.uid = 'u2'), /metadata\.uid: Invalid value: "u2": field is immutable/],
  ];
  for (const [what, change, expected] of updates) {
    it(`update: ${what}`, () => {
      const result = outcome(() => validatePodUpdate(pod(change), pod()));
      if (typeof expected === 'string') assert.equal(result, expected);
      else assert.match(result, expected);
    });
  }

  it('update: activeDeadlineSeconds may only shrink', () => {
    const old = pod((p) => (p.spec.activeDeadlineSeconds = 30));
    assert.match(outcome(() => validatePodUpdate(pod((p) => (p.spec.activeDeadlineSeconds = 60)), old)), /spec\.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value/);
  });

  const statuses: Array<[string, (p: Obj) => void, (p: Obj) => void, string]> = [
    ['Running to Succeeded', () => {}, (p) => (p.status.phase = 'Succeeded'), 'valid'],
    ['Succeeded back to Running', (p) => (p.status.phase = 'Succeeded'), (p) => (p.status.phase = 'Running'),
      'Pod "web" is invalid: status.phase: Forbidden: cannot transition from a terminal phase "Succeeded" to another phase "Running"'],
    ['Failed to Pending', (p) => (p.status.phase = 'Failed'), (p) => (p.status.phase = 'Pending'),
      'Pod "web" is invalid: status.phase: Forbidden: cannot transition from a terminal phase "Failed" to another phase "Pending"'],
    ['a status for a container the pod lacks', () => {}, (p) => (p.status.containerStatuses = [{ name: 'ghost', ready: false, restartCount: 0, image: 'x', imageID: '', state: {} }]),
      'Pod "web" is invalid: status.containerStatuses[0].name: Not found: "ghost"'],
    ['an init container status named after a regular container', () => {}, (p) => (p.status.initContainerStatuses = [{ name: 'main', state: {} }]),
      'Pod "web" is invalid: status.initContainerStatuses[0].name: Not found: "main"'],
    ['a terminated container running again (restartPolicy Never)', (p) => (p.status.containerStatuses = [{ name: 'main', state: terminated(0) }]), (p) => (p.status.containerStatuses = [{ name: 'main', state: { running: {} } }]),
      'Pod "web" is invalid: status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state'],
    ['a failed container running again under OnFailure', (p) => {
      p.spec.restartPolicy = 'OnFailure';
      p.status.containerStatuses = [{ name: 'main', state: terminated(1) }];
    }, (p) => (p.status.containerStatuses = [{ name: 'main', state: { running: {} } }]), 'valid'],
    ['a finished init container running again', (p) => (p.status.initContainerStatuses = [{ name: 'init', state: terminated(0) }]), (p) => (p.status.initContainerStatuses = [{ name: 'init', state: { running: {} } }]),
      'Pod "web" is invalid: status.initContainerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state'],
    ['another QoS class', () => {}, (p) => (p.status.qosClass = 'Guaranteed'), 'Pod "web" is invalid: status.qosClass: Invalid value: "Guaranteed": field is immutable'],
  ];
  for (const [what, before, after, expected] of statuses) {
    it(`status: ${what}`, () => {
      const old = pod(before);
      const next = structuredClone(old) as Obj;
      after(next);
      assert.equal(outcome(() => validatePodStatusUpdate(next as KubeObject, old)), expected);
    });
  }
});
