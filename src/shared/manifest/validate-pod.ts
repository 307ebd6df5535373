// Structural validation of a decoded Pod, the part of upstream's
// validation.ValidatePodCreate that tells an operator why a manifest is refused.
// Errors read like upstream's field errors: `spec.containers[0].image: Required value`.
import { dns1123LabelError, dns1123SubdomainError } from './names.js';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const MAX_PORT = 65_535;

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
  if (metadata.uid !== undefined && typeof metadata.uid !== 'string') errors.push('metadata.uid: must be a string');
  for (const field of ['labels', 'annotations']) validateStringMap(metadata[field], `metadata.${field}`, errors);
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
    errors.push(`spec.terminationGracePeriodSeconds: Invalid value: ${JSON.stringify(grace)}: must be an integer >= 0`);
  }
  if (spec.hostNetwork !== undefined && typeof spec.hostNetwork !== 'boolean') errors.push('spec.hostNetwork: must be true or false');
  if (spec.nodeSelector !== undefined) validateStringMap(spec.nodeSelector, 'spec.nodeSelector', errors);
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
    if (names.has(name)) errors.push(`${path}: Duplicate value: ${JSON.stringify(name)}`);
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
    if (seenNames.has(name)) errors.push(`${path}.name: Duplicate value: ${JSON.stringify(name)}`);
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
  validateMounts(container.volumeMounts, `${path}.volumeMounts`, volumeNames, errors);
}

function validatePorts(ports: unknown, path: string, errors: string[]): void {
  if (ports === undefined) return;
  if (!Array.isArray(ports)) return void errors.push(`${path}: must be a list`);
  ports.forEach((port, index) => {
    const portPath = `${path}[${index}]`;
    if (!isObject(port)) return void errors.push(`${portPath}: must be an object`);
    const number = port.containerPort;
    if (!Number.isSafeInteger(number) || (number as number) < 1 || (number as number) > MAX_PORT) {
      errors.push(`${portPath}.containerPort: Invalid value: ${JSON.stringify(number ?? null)}: must be between 1 and ${MAX_PORT}, inclusive`);
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
      errors.push(`${mountPath}.name: Not found: ${JSON.stringify(mount.name ?? '')}`);
    }
    if (typeof mount.mountPath !== 'string' || mount.mountPath === '') errors.push(`${mountPath}.mountPath: Required value`);
  });
}

function validateStringMap(value: unknown, path: string, errors: string[]): void {
  if (value === undefined) return;
  if (!isObject(value) || !Object.values(value).every((item) => typeof item === 'string')) {
    errors.push(`${path}: must be a map of strings`);
  }
}

function checkEnum(value: unknown, path: string, allowed: string[], errors: string[]): void {
  if (value !== undefined && !allowed.includes(value as string)) {
    errors.push(`${path}: Unsupported value: ${JSON.stringify(value)}: supported values: ${allowed.map((v) => `"${v}"`).join(', ')}`);
  }
}

function pushIf(errors: string[], path: string, value: string, reason: string | undefined): void {
  if (reason) errors.push(`${path}: Invalid value: ${JSON.stringify(value)}: ${reason}`);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
