// Structural validation of a decoded Pod, the part of upstream's
// validation.ValidatePodCreate that tells an operator why a manifest is refused.
// Errors read like upstream's field errors: `spec.containers[0].image: Required value`.
import { descendingPathError } from '../safe-path.js';
import { quote } from './bounded-decode.js';
import { dns1123LabelError, dns1123SubdomainError } from './names.js';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const MAX_PORT = 65_535;
/**
 * A manifest's own metadata.uid: letters, digits and '-' (a UUID, the generated hex
 * hash). Upstream takes any string; here it names the pod's directory, log directory
 * and cgroup, and the orphan cgroup clean-up reads it back from the cgroup's name.
 */
const STATIC_POD_UID = /^[A-Za-z0-9-]+$/;
const STATIC_POD_UID_MAX_CHARS = 128;
const SECCOMP_PROFILE_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];
/** Volume sources whose fields the API defaults fill in (pod-defaults.ts), so they must be objects. */
const VOLUME_SOURCES_DEFAULTED = ['hostPath', 'secret', 'configMap', 'projected', 'downwardAPI'];

type Json = Record<string, unknown>;

/** Returns every problem found, each as "path: reason"; empty when the pod is valid. */
export function validatePod(pod: unknown): string[] {
  const errors: string[] = [];
  if (!isObject(pod)) return ['must be an object'];
  validateMetadata(pod.metadata, errors);
  if (!isObject(pod.spec)) {
    errors.push('spec: Required value');
    return errors;
  }
  validateSpec(pod.spec, errors);
  return errors;
}

function validateMetadata(metadata: unknown, errors: string[]): void {
  if (!isObject(metadata)) {
    errors.push('metadata: Required value');
    return;
  }
  if (typeof metadata.name !== 'string' || metadata.name === '') {
    errors.push('metadata.name: Required value: name is needed for the pod');
  } else {
    pushIf(errors, 'metadata.name', metadata.name, dns1123SubdomainError(metadata.name));
  }
  if (metadata.namespace !== undefined) {
    if (typeof metadata.namespace !== 'string') errors.push('metadata.namespace: must be a string');
    else if (metadata.namespace !== '') pushIf(errors, 'metadata.namespace', metadata.namespace, dns1123LabelError(metadata.namespace));
  }
  if (metadata.uid !== undefined) validateUid(metadata.uid, errors);
  for (const field of ['labels', 'annotations']) validateStringMap(metadata[field], `metadata.${field}`, errors);
}

function validateUid(uid: unknown, errors: string[]): void {
  if (typeof uid !== 'string') return void errors.push('metadata.uid: must be a string');
  // An empty UID is generated from the manifest, as upstream's applyDefaults.
  if (uid === '') return;
  if (uid.length > STATIC_POD_UID_MAX_CHARS) errors.push(`metadata.uid: Invalid value: ${quote(uid)}: must be no more than ${STATIC_POD_UID_MAX_CHARS} characters`);
  else if (!STATIC_POD_UID.test(uid)) errors.push(`metadata.uid: Invalid value: ${quote(uid)}: must consist of letters, digits and '-'`);
}

function validateSpec(spec: Json, errors: string[]): void {
  const volumeNames = validateVolumes(spec.volumes, errors);
  if (!Array.isArray(spec.containers) || spec.containers.length === 0) errors.push('spec.containers: Required value');
  const seenNames = new Set<string>();
  for (const field of ['initContainers', 'containers']) {
    const containers = spec[field];
    if (containers === undefined) continue;
    if (!Array.isArray(containers)) {
      errors.push(`spec.${field}: must be a list`);
      continue;
    }
    containers.forEach((container, index) => validateContainer(container, `spec.${field}[${index}]`, seenNames, volumeNames, errors));
  }
  checkEnum(spec.restartPolicy, 'spec.restartPolicy', RESTART_POLICIES, errors);
  checkEnum(spec.dnsPolicy, 'spec.dnsPolicy', DNS_POLICIES, errors);
  const grace = spec.terminationGracePeriodSeconds;
  if (grace !== undefined && (!Number.isSafeInteger(grace) || (grace as number) < 0)) {
    errors.push(`spec.terminationGracePeriodSeconds: Invalid value: ${quote(grace)}: must be an integer >= 0`);
  }
  if (spec.hostNetwork !== undefined && typeof spec.hostNetwork !== 'boolean') errors.push('spec.hostNetwork: must be true or false');
  if (spec.nodeSelector !== undefined) validateStringMap(spec.nodeSelector, 'spec.nodeSelector', errors);
  if (checkObject(spec.securityContext, 'spec.securityContext', errors)) validateSeccompProfile((spec.securityContext as Json).seccompProfile, 'spec.securityContext.seccompProfile', errors);
  checkListOfObjects(spec.tolerations, 'spec.tolerations', errors);
}

function validateVolumes(volumes: unknown, errors: string[]): Set<string> {
  const names = new Set<string>();
  if (volumes === undefined) return names;
  if (!Array.isArray(volumes)) {
    errors.push('spec.volumes: must be a list');
    return names;
  }
  volumes.forEach((volume, index) => {
    const path = `spec.volumes[${index}].name`;
    const name = isObject(volume) ? volume.name : undefined;
    if (typeof name !== 'string' || name === '') return void errors.push(`${path}: Required value`);
    pushIf(errors, path, name, dns1123LabelError(name));
    for (const kind of VOLUME_SOURCES_DEFAULTED) checkObject((volume as Json)[kind], `spec.volumes[${index}].${kind}`, errors);
    if (names.has(name)) errors.push(`${path}: Duplicate value: ${quote(name)}`);
    names.add(name);
  });
  return names;
}

function validateContainer(container: unknown, path: string, seenNames: Set<string>, volumeNames: Set<string>, errors: string[]): void {
  if (!isObject(container)) return void errors.push(`${path}: must be an object`);
  const { name, image } = container;
  if (typeof name !== 'string' || name === '') {
    errors.push(`${path}.name: Required value`);
  } else {
    pushIf(errors, `${path}.name`, name, dns1123LabelError(name));
    if (seenNames.has(name)) errors.push(`${path}.name: Duplicate value: ${quote(name)}`);
    seenNames.add(name);
  }
  if (typeof image !== 'string' || image.trim() === '') errors.push(`${path}.image: Required value`);
  checkEnum(container.imagePullPolicy, `${path}.imagePullPolicy`, PULL_POLICIES, errors);
  for (const field of ['command', 'args']) {
    const value = container[field];
    if (value !== undefined && !(Array.isArray(value) && value.every((item) => typeof item === 'string'))) {
      errors.push(`${path}.${field}: must be a list of strings`);
    }
  }
  validatePorts(container.ports, `${path}.ports`, errors);
  validateEnv(container.env, `${path}.env`, errors);
  validateResources(container.resources, `${path}.resources`, errors);
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    if (checkObject(container[probe], `${path}.${probe}`, errors)) checkObject((container[probe] as Json).httpGet, `${path}.${probe}.httpGet`, errors);
  }
  validateMounts(container.volumeMounts, `${path}.volumeMounts`, volumeNames, errors);
  if (checkObject(container.securityContext, `${path}.securityContext`, errors)) {
    validateSeccompProfile((container.securityContext as Json).seccompProfile, `${path}.securityContext.seccompProfile`, errors);
  }
}

/** As upstream's validateSeccompProfileField: a known type; localhostProfile, a descending path, for Localhost only. */
function validateSeccompProfile(profile: unknown, path: string, errors: string[]): void {
  if (!checkObject(profile, path, errors)) return;
  const { type, localhostProfile } = profile as Json;
  if (type === undefined || type === '') errors.push(`${path}.type: Required value: type is required when seccompProfile is set`);
  else checkEnum(type, `${path}.type`, SECCOMP_PROFILE_TYPES, errors);
  if (type !== 'Localhost') {
    if (localhostProfile !== undefined && localhostProfile !== null) errors.push(`${path}.localhostProfile: Invalid value: ${quote(localhostProfile)}: can only be set when seccomp type is Localhost`);
    return;
  }
  if (localhostProfile === undefined || localhostProfile === null) return void errors.push(`${path}.localhostProfile: Required value: must be set when seccomp type is Localhost`);
  const reason = descendingPathError(localhostProfile);
  if (reason) errors.push(`${path}.localhostProfile: Invalid value: ${quote(localhostProfile)}: ${reason}`);
}

function validatePorts(ports: unknown, path: string, errors: string[]): void {
  if (ports === undefined) return;
  if (!Array.isArray(ports)) return void errors.push(`${path}: must be a list`);
  ports.forEach((port, index) => {
    const portPath = `${path}[${index}]`;
    if (!isObject(port)) return void errors.push(`${portPath}: must be an object`);
    const number = port.containerPort;
    if (!Number.isSafeInteger(number) || (number as number) < 1 || (number as number) > MAX_PORT) {
      errors.push(`${portPath}.containerPort: Invalid value: ${quote(number ?? null)}: must be between 1 and ${MAX_PORT}, inclusive`);
    }
    checkEnum(port.protocol, `${portPath}.protocol`, PROTOCOLS, errors);
  });
}

function validateMounts(mounts: unknown, path: string, volumeNames: Set<string>, errors: string[]): void {
  if (mounts === undefined) return;
  if (!Array.isArray(mounts)) return void errors.push(`${path}: must be a list`);
  mounts.forEach((mount, index) => {
    const mountPath = `${path}[${index}]`;
    if (!isObject(mount)) return void errors.push(`${mountPath}: must be an object`);
    if (typeof mount.name !== 'string' || !volumeNames.has(mount.name)) {
      errors.push(`${mountPath}.name: Not found: ${quote(mount.name ?? '')}`);
    }
    if (typeof mount.mountPath !== 'string' || mount.mountPath === '') errors.push(`${mountPath}.mountPath: Required value`);
  });
}

/** The env fields the API defaults reach into must have their API types. */
function validateEnv(env: unknown, path: string, errors: string[]): void {
  if (!checkListOfObjects(env, path, errors)) return;
  (env as Json[]).forEach((item, index) => {
    const itemPath = `${path}[${index}]`;
    if (typeof item.name !== 'string' || item.name === '') errors.push(`${itemPath}.name: Required value`);
    if (checkObject(item.valueFrom, `${itemPath}.valueFrom`, errors)) checkObject((item.valueFrom as Json).fieldRef, `${itemPath}.valueFrom.fieldRef`, errors);
  });
}

/** Requests and limits are maps of quantities (a number such as `cpu: 1` counts). */
function validateResources(resources: unknown, path: string, errors: string[]): void {
  if (!checkObject(resources, path, errors)) return;
  for (const field of ['limits', 'requests']) {
    const quantities = (resources as Json)[field];
    if (quantities === undefined) continue;
    if (!isObject(quantities) || !Object.values(quantities).every((item) => typeof item === 'string' || typeof item === 'number')) {
      errors.push(`${path}.${field}: must be a map of quantities`);
    }
  }
}

/** True when `value` is an object; an absent value is fine and returns false. */
function checkObject(value: unknown, path: string, errors: string[]): boolean {
  if (value === undefined || value === null) return false;
  if (isObject(value)) return true;
  errors.push(`${path}: must be an object`);
  return false;
}

/** True when `value` is a list whose items are all objects; an absent value is fine and returns false. */
function checkListOfObjects(value: unknown, path: string, errors: string[]): boolean {
  if (value === undefined || value === null) return false;
  if (!Array.isArray(value)) {
    errors.push(`${path}: must be a list`);
    return false;
  }
  const index = value.findIndex((item) => !isObject(item));
  if (index >= 0) errors.push(`${path}[${index}]: must be an object`);
  return index < 0;
}

function validateStringMap(value: unknown, path: string, errors: string[]): void {
  if (value === undefined) return;
  if (!isObject(value) || !Object.values(value).every((item) => typeof item === 'string')) {
    errors.push(`${path}: must be a map of strings`);
  }
}

function checkEnum(value: unknown, path: string, allowed: string[], errors: string[]): void {
  if (value !== undefined && !allowed.includes(value as string)) {
    errors.push(`${path}: Unsupported value: ${quote(value)}: supported values: ${allowed.map((v) => `"${v}"`).join(', ')}`);
  }
}

function pushIf(errors: string[], path: string, value: string, reason: string | undefined): void {
  if (reason) errors.push(`${path}: Invalid value: ${quote(value)}: ${reason}`);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
