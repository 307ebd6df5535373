// The pod's /etc/hosts, as upstream's makeHostsMount and ensureHostsFile: a managed
// file with localhost entries and the pod's IPs and hostname for pods with their own
// network, a copy of the node's /etc/hosts for host-network pods; hostAliases
// appended to both. Rewritten at every container start, so a new pod IP shows up.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { V1HostAlias } from '@kubernetes/client-node';

export const ETC_HOSTS_PATH = '/etc/hosts';
const MANAGED_HOSTS_HEADER = '# Kubernetes-managed hosts file.\n';
const MANAGED_HOSTS_HEADER_WITH_HOST_NETWORK = '# Kubernetes-managed hosts file (host network).\n';
const HOSTS_FILE_MODE = 0o644;

export interface HostsFileArgs {
  /** Host path of the file to write (<rootDir>/pods/<uid>/etc-hosts). */
  path: string;
  podIPs: string[];
  hostname: string;
  domain: string;
  hostAliases: V1HostAlias[];
  hostNetwork: boolean;
  /** The node's hosts file, read for host-network pods. */
  nodeHostsPath?: string;
}

/** Writes the hosts file and returns its path. */
export function ensureHostsFile(args: HostsFileArgs): string {
  const content = args.hostNetwork
    ? nodeHostsFileContent(args.nodeHostsPath ?? ETC_HOSTS_PATH, args.hostAliases)
    : managedHostsFileContent(args.podIPs, args.hostname, args.domain, args.hostAliases);
  mkdirSync(dirname(args.path), { recursive: true, mode: 0o750 });
  writeFileSync(args.path, content, { mode: HOSTS_FILE_MODE });
  return args.path;
}

export function managedHostsFileContent(
  podIPs: string[],
  hostname: string,
  domain: string,
  hostAliases: V1HostAlias[],
): string {
  let content = MANAGED_HOSTS_HEADER;
  content += '127.0.0.1\tlocalhost\n';
  content += '::1\tlocalhost ip6-localhost ip6-loopback\n';
  content += 'fe00::0\tip6-localnet\n';
  content += 'fe00::0\tip6-mcastprefix\n';
  content += 'fe00::1\tip6-allnodes\n';
  content += 'fe00::2\tip6-allrouters\n';
  for (const ip of podIPs) {
    content += domain !== '' ? `${ip}\t${hostname}.${domain}\t${hostname}\n` : `${ip}\t${hostname}\n`;
  }
  return content + hostAliasEntries(hostAliases);
}

function nodeHostsFileContent(nodeHostsPath: string, hostAliases: V1HostAlias[]): string {
  return MANAGED_HOSTS_HEADER_WITH_HOST_NETWORK + readFileSync(nodeHostsPath, 'utf8') + hostAliasEntries(hostAliases);
}

function hostAliasEntries(hostAliases: V1HostAlias[]): string {
  if (hostAliases.length === 0) return '';
  let content = '\n# Entries added by HostAliases.\n';
  for (const alias of hostAliases) content += `${alias.ip}\t${(alias.hostnames ?? []).join('\t')}\n`;
  return content;
}
