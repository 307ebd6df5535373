// The v1 API defaults the API server's decoder applies to a Pod
// (pkg/apis/core/v1/defaults.go: SetDefaults_Pod, SetDefaults_PodSpec,
// SetDefaults_Container, SetDefaults_Probe, ...). Upstream's file and URL sources
// decode manifests through that same decoder, so a static pod gets them before its
// UID is hashed; we apply the subset that matters to running a pod.
import type { Container, Pod } from '../types.js';

export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
export const DEFAULT_TERMINATION_MESSAGE_PATH = '/dev/termination-log';
const DEFAULT_VOLUME_MODE = 0o644;

type Json = Record<string, unknown>;

/** Mutates `pod` in place, filling unset fields only. */
export function setPodApiDefaults(pod: Pod): void {
  const spec = (pod.spec ??= { containers: [] });
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  spec.securityContext ??= {};
  spec.schedulerName ??= DEFAULT_SCHEDULER_NAME;
  spec.enableServiceLinks ??= true;
  for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
    setContainerDefaults(container, spec.hostNetwork === true);
  }
  for (const volume of (spec.volumes ?? []) as unknown as Json[]) setVolumeDefaults(volume);
}

/** As upstream's image pull policy default: Always for ":latest" or no tag, else IfNotPresent. */
export function defaultImagePullPolicy(image: string): 'Always' | 'IfNotPresent' {
  if (image.includes('@')) return 'IfNotPresent';
  const lastComponent = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastComponent.lastIndexOf(':');
  const tag = colon < 0 ? '' : lastComponent.slice(colon + 1);
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function setContainerDefaults(container: Container, hostNetwork: boolean): void {
  container.imagePullPolicy ??= defaultImagePullPolicy(container.image ?? '');
  container.terminationMessagePath ??= DEFAULT_TERMINATION_MESSAGE_PATH;
  container.terminationMessagePolicy ??= 'File';
  for (const port of container.ports ?? []) {
    port.protocol ??= 'TCP';
    // SetDefaults_Pod: on the host network a container port is also the host port.
    if (hostNetwork && !port.hostPort) port.hostPort = port.containerPort;
  }
  for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
    if (probe) setProbeDefaults(probe as Json);
  }
  for (const env of (container.env ?? []) as unknown as Json[]) {
    const fieldRef = (env.valueFrom as Json | undefined)?.fieldRef as Json | undefined;
    if (fieldRef) fieldRef.apiVersion ??= 'v1';
  }
  defaultRequestsToLimits(container);
}

function setProbeDefaults(probe: Json): void {
  probe.timeoutSeconds ??= 1;
  probe.periodSeconds ??= 10;
  probe.successThreshold ??= 1;
  probe.failureThreshold ??= 3;
  const httpGet = probe.httpGet as Json | undefined;
  if (httpGet) {
    if (!httpGet.path) httpGet.path = '/';
    httpGet.scheme ??= 'HTTP';
  }
}

/** SetDefaults_Pod: a resource with a limit and no request is requested at its limit. */
function defaultRequestsToLimits(container: Container): void {
  const limits = container.resources?.limits;
  if (!limits || Object.keys(limits).length === 0) return;
  const requests = (container.resources!.requests ??= {});
  for (const [resource, quantity] of Object.entries(limits)) requests[resource] ??= quantity;
}

function setVolumeDefaults(volume: Json): void {
  const hostPath = volume.hostPath as Json | undefined;
  if (hostPath) hostPath.type ??= '';
  for (const kind of ['secret', 'configMap', 'projected', 'downwardAPI']) {
    const source = volume[kind] as Json | undefined;
    if (source) source.defaultMode ??= DEFAULT_VOLUME_MODE;
  }
}
