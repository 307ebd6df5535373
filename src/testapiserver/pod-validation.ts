// Pod validation where kube-apiserver refuses a pod write with 422 (pkg/apis/core/
// validation: ValidatePodCreate, ValidatePodUpdate, ValidatePodStatusUpdate), the
// part a kubelet or a test can run into: names and containers on create; on
// update, a spec that changes beyond what may change (images, a shorter
// activeDeadlineSeconds, added tolerations, a negative grace period set to 1,
// removed scheduling gates) and metadata that may never change; on a status
// write, a terminal phase left, a terminated container of a pod that does not
// restart it brought back, statuses for containers the pod does not have and a
// changed QoS class.
import {
  duplicate, forbidden, invalidValue, notFoundValue, notSupported, required, throwIfInvalid, type FieldError,
} from './field-errors.js';
import type { Admit } from './admission.js';
import type { KubeObject } from './types.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL_MAX = 63;
const DNS1123_SUBDOMAIN_MAX = 253;
const LABEL_MESSAGE = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MESSAGE = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const TERMINAL_PHASES = new Set(['Succeeded', 'Failed']);
const UPDATABLE_SPEC_FIELDS = [
  '`spec.containers[*].image`', '`spec.initContainers[*].image`', '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)', '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];
const IMMUTABLE_METADATA = ['name', 'namespace', 'uid', 'creationTimestamp'];

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const listOf = (value: unknown): Obj[] => (Array.isArray(value) ? value.filter((v) => v && typeof v === 'object') : []);

function nameErrors(field: string, name: unknown, subdomain: boolean): FieldError[] {
  if (typeof name !== 'string' || name === '') return [required(field)];
  const [pattern, max, message] = subdomain ? [DNS1123_SUBDOMAIN, DNS1123_SUBDOMAIN_MAX, SUBDOMAIN_MESSAGE] : [DNS1123_LABEL, DNS1123_LABEL_MAX, LABEL_MESSAGE];
  const errors: FieldError[] = [];
  if (name.length > max) errors.push(invalidValue(field, name, `must be no more than ${max} characters`));
  if (!pattern.test(name)) errors.push(invalidValue(field, name, message));
  return errors;
}

function containerErrors(spec: Obj): FieldError[] {
  const errors: FieldError[] = [];
  const containers = listOf(spec.containers);
  if (containers.length === 0) errors.push(required('spec.containers'));
  const volumes = new Set(listOf(spec.volumes).map((v) => v.name));
  const seen = new Set<string>();
  for (const [list, path] of [[listOf(spec.initContainers), 'spec.initContainers'], [containers, 'spec.containers']] as const) {
    list.forEach((container, i) => {
      const at = `${path}[${i}]`;
      errors.push(...nameErrors(`${at}.name`, container.name, false));
      if (typeof container.name === 'string' && seen.has(container.name)) errors.push(duplicate(`${at}.name`, container.name));
      seen.add(container.name);
      if (typeof container.image !== 'string' || container.image === '') errors.push(required(`${at}.image`));
      listOf(container.volumeMounts).forEach((mount, j) => {
        if (!volumes.has(mount.name)) errors.push(notFoundValue(`${at}.volumeMounts[${j}].name`, mount.name));
      });
    });
  }
  return errors;
}

/** ValidatePodCreate, the checks above. */
export function validatePodCreate(pod: KubeObject): void {
  const spec = (pod.spec ?? {}) as Obj;
  const errors = nameErrors('metadata.name', pod.metadata.name, true);
  errors.push(...containerErrors(spec));
  const volumeNames = new Set<string>();
  listOf(spec.volumes).forEach((volume, i) => {
    errors.push(...nameErrors(`spec.volumes[${i}].name`, volume.name, false));
    if (volumeNames.has(volume.name)) errors.push(duplicate(`spec.volumes[${i}].name`, volume.name));
    volumeNames.add(volume.name);
  });
  if (!RESTART_POLICIES.includes(spec.restartPolicy)) errors.push(notSupported('spec.restartPolicy', spec.restartPolicy ?? '', RESTART_POLICIES));
  throwIfInvalid('Pod', '', pod.metadata.name, errors);
}

function metadataErrors(next: KubeObject, old: KubeObject): FieldError[] {
  return IMMUTABLE_METADATA.filter((f) => next.metadata[f] !== undefined && !same(next.metadata[f], old.metadata[f])).map((f) => invalidValue(`metadata.${f}`, next.metadata[f], 'field is immutable'));
}

/** The new spec with every allowed change undone, to compare with the old one (ValidatePodUpdate's mungedPodSpec). */
function withoutAllowedChanges(spec: Obj, old: Obj): Obj {
  const munged: Obj = structuredClone(spec);
  for (const field of ['containers', 'initContainers'] as const) {
    const oldList = listOf(old[field]);
    munged[field] = listOf(munged[field]).map((c, i) => (oldList[i] ? { ...c, image: oldList[i].image } : c));
    if (old[field] === undefined && munged[field].length === 0) delete munged[field];
  }
  if (old.activeDeadlineSeconds !== undefined || spec.activeDeadlineSeconds !== undefined) munged.activeDeadlineSeconds = old.activeDeadlineSeconds;
  if (munged.activeDeadlineSeconds === undefined) delete munged.activeDeadlineSeconds;
  const oldTolerations = listOf(old.tolerations);
  if (oldTolerations.every((t) => listOf(spec.tolerations).some((n) => same(n, t)))) munged.tolerations = old.tolerations;
  if (munged.tolerations === undefined) delete munged.tolerations;
  if ((old.terminationGracePeriodSeconds ?? 0) < 0 && spec.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = old.terminationGracePeriodSeconds;
  const oldGates = listOf(old.schedulingGates);
  if (listOf(spec.schedulingGates).every((g) => oldGates.some((o) => same(o, g)))) munged.schedulingGates = old.schedulingGates;
  if (munged.schedulingGates === undefined) delete munged.schedulingGates;
  return munged;
}

/** Which spec fields differ, as a short diff under the message (upstream prints cmp.Diff). */
function specDiff(old: Obj, next: Obj): string {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])].filter((k) => !same(old[k], next[k])).sort();
  return keys.map((k) => `  spec.${k}: ${JSON.stringify(old[k] ?? null)} -> ${JSON.stringify(next[k] ?? null)}`).join('\n');
}

/** ValidatePodUpdate: only images, activeDeadlineSeconds, added tolerations and the rest above may change. */
export function validatePodUpdate(next: KubeObject, old: KubeObject): void {
  const spec = (next.spec ?? {}) as Obj;
  const oldSpec = (old.spec ?? {}) as Obj;
  const errors = metadataErrors(next, old);
  errors.push(...containerErrors(spec));
  for (const field of ['containers', 'initContainers']) {
    if (listOf(spec[field]).length !== listOf(oldSpec[field]).length) errors.push(forbidden(`spec.${field}`, 'pod updates may not add or remove containers'));
  }
  const oldDeadline = oldSpec.activeDeadlineSeconds;
  const deadline = spec.activeDeadlineSeconds;
  if (oldDeadline !== undefined && deadline === undefined) errors.push(invalidValue('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  else if (oldDeadline !== undefined && deadline > oldDeadline) errors.push(invalidValue('spec.activeDeadlineSeconds', deadline, 'must be less than or equal to previous value'));
  const munged = withoutAllowedChanges(spec, oldSpec);
  if (!same(munged, oldSpec)) {
    errors.push(forbidden('spec', `pod updates may not change fields other than ${UPDATABLE_SPEC_FIELDS.join(',')}\n${specDiff(oldSpec, munged)}`));
  }
  throwIfInvalid('Pod', '', old.metadata.name, errors);
}

function restartableInit(spec: Obj, name: string): boolean {
  return listOf(spec.initContainers).some((c) => c.name === name && c.restartPolicy === 'Always');
}

/** ValidateContainerStateTransition / ValidateInitContainerStateTransition. */
function stateTransitionErrors(next: Obj[], old: Obj[], path: string, spec: Obj, init: boolean): FieldError[] {
  const policy = spec.restartPolicy;
  if (policy === 'Always') return [];
  const errors: FieldError[] = [];
  old.forEach((previous, i) => {
    const terminated = previous.state?.terminated;
    if (!terminated) return;
    if (terminated.exitCode !== 0 && policy === 'OnFailure') return;
    if (init && restartableInit(spec, previous.name)) return;
    if (next.some((s) => s.name === previous.name && !s.state?.terminated)) errors.push(forbidden(`${path}[${i}].state`, 'may not be transitioned to non-terminated state'));
  });
  return errors;
}

/** Statuses must name containers of the pod's spec. */
function unknownContainerErrors(statuses: Obj[], containers: Obj[], path: string): FieldError[] {
  const names = new Set(containers.map((c) => c.name));
  return statuses.flatMap((s, i) => (names.has(s.name) ? [] : [notFoundValue(`${path}[${i}].name`, s.name)]));
}

/** ValidatePodStatusUpdate; `next` is the pod with the new status (the spec is the stored one). */
export function validatePodStatusUpdate(next: KubeObject, old: KubeObject): void {
  const spec = (old.spec ?? {}) as Obj;
  const status = (next.status ?? {}) as Obj;
  const oldStatus = (old.status ?? {}) as Obj;
  const errors = metadataErrors(next, old);
  if (TERMINAL_PHASES.has(oldStatus.phase) && status.phase !== oldStatus.phase) {
    errors.push(forbidden('status.phase', `cannot transition from a terminal phase "${oldStatus.phase}" to another phase "${status.phase ?? ''}"`));
  }
  const groups: Array<[string, string, boolean]> = [
    ['containerStatuses', 'containers', false],
    ['initContainerStatuses', 'initContainers', true],
    ['ephemeralContainerStatuses', 'ephemeralContainers', false],
  ];
  for (const [statusField, specField, init] of groups) {
    const path = `status.${statusField}`;
    errors.push(...unknownContainerErrors(listOf(status[statusField]), listOf(spec[specField]), path));
    const transitionSpec = statusField === 'ephemeralContainerStatuses' ? { ...spec, restartPolicy: 'Never' } : spec;
    errors.push(...stateTransitionErrors(listOf(status[statusField]), listOf(oldStatus[statusField]), path, transitionSpec, init));
  }
  if (status.qosClass && oldStatus.qosClass && status.qosClass !== oldStatus.qosClass) errors.push(invalidValue('status.qosClass', status.qosClass, 'field is immutable'));
  throwIfInvalid('Pod', '', old.metadata.name, errors);
}

/** Pod validation as an admission step: creates, updates and status writes of pods. */
export const validatePods: Admit = (a) => {
  if (a.group !== '' || a.resource !== 'pods' || !a.object) return;
  if (a.operation === 'CREATE' && a.subresource === '') validatePodCreate(a.object);
  else if (a.operation === 'UPDATE' && a.oldObject && a.subresource === '') validatePodUpdate(a.object, a.oldObject);
  else if (a.operation === 'UPDATE' && a.oldObject && a.subresource === 'status') validatePodStatusUpdate(a.object, a.oldObject);
};
