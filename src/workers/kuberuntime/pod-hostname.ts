// A pod's hostname and domain, as upstream's Kubelet.GeneratePodHostNameAndDomain
// (spec.hostname or the pod name, cut to 63 characters; spec.subdomain gives
// <subdomain>.<namespace>.svc.<clusterDomain>) and util.GetNodenameForKernel
// (setHostnameAsFQDN puts the full name in the kernel's nodename field).
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import type { Pod } from '../../shared/types.js';

/** The kernel's hostname field holds 64 bytes with the terminating NUL. */
const HOSTNAME_MAX_LENGTH = 63;
const FQDN_MAX_LENGTH = 64;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export interface PodHostname {
  hostname: string;
  /** Empty unless the pod has a subdomain. */
  domain: string;
}

export function podHostnameAndDomain(pod: Pod, clusterDomain: string): PodHostname {
  const podName = pod.metadata?.name ?? '';
  let hostname = podName;
  const specHostname = pod.spec?.hostname ?? '';
  if (specHostname !== '') {
    requireDnsLabel(pod, 'Hostname', specHostname);
    hostname = specHostname;
  }
  hostname = truncateHostname(pod, hostname);
  let domain = '';
  const subdomain = pod.spec?.subdomain ?? '';
  if (subdomain !== '') {
    requireDnsLabel(pod, 'Subdomain', subdomain);
    domain = `${subdomain}.${pod.metadata?.namespace ?? ''}.svc.${clusterDomain}`;
  }
  return { hostname, domain };
}

/** The hostname the sandbox's UTS namespace gets: the FQDN when setHostnameAsFQDN asks for it. */
export function kernelHostname(pod: Pod, names: PodHostname): string {
  if (names.domain === '' || pod.spec?.setHostnameAsFQDN !== true) return names.hostname;
  const fqdn = `${names.hostname}.${names.domain}`;
  if (fqdn.length > FQDN_MAX_LENGTH) {
    throw hostnameError(
      pod,
      `failed to construct FQDN from pod hostname and cluster domain, FQDN ${fqdn} is too long ` +
        `(${FQDN_MAX_LENGTH} characters is the max, ${fqdn.length} characters requested)`,
    );
  }
  return fqdn;
}

function truncateHostname(pod: Pod, hostname: string): string {
  if (hostname.length <= HOSTNAME_MAX_LENGTH) return hostname;
  // A hostname must not end with '-' or '.'.
  const truncated = hostname.slice(0, HOSTNAME_MAX_LENGTH).replace(/[-.]+$/, '');
  if (truncated === '') throw hostnameError(pod, `hostname for pod was invalid: ${JSON.stringify(hostname)}`);
  return truncated;
}

function requireDnsLabel(pod: Pod, field: string, value: string): void {
  if (value.length <= HOSTNAME_MAX_LENGTH && DNS1123_LABEL.test(value)) return;
  throw hostnameError(pod, `pod ${field} ${JSON.stringify(value)} is not a valid DNS label`);
}

function hostnameError(pod: Pod, message: string): ShardletError {
  const ref = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
  return new ShardletError(ErrorCodes.CREATE_CONTAINER_CONFIG, `pod ${ref}: ${message}`, { pod: ref });
}
