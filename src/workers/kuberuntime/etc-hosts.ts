// The pod's /etc/hosts, as upstream's makeHostsMount and ensureHostsFile: a managed
// file with localhost entries and the pod's IPs and hostname for pods with their own
// network, a copy of the node's /etc/hosts for host-network pods; hostAliases
// appended to both. Written at a container start when its content is not what this
// shard last wrote there (the first start, a new pod IP after a new sandbox, a
// changed node file): upstream rewrites it at every container start, which also
// undoes a container's own edits to the file; here identical rewrites are skipped.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { V1HostAlias } from '@kubernetes/client-node';
import { podPathsMade } from '../volumes/pod-paths-made.js';

export const ETC_HOSTS_PATH = '/etc/hosts';
const MANAGED_HOSTS_HEADER = '# Kubernetes-managed hosts file.\n';
const MANAGED_HOSTS_HEADER_WITH_HOST_NETWORK = '# Kubernetes-managed hosts file (host network).\n';
const HOSTS_FILE_MODE = 0o644;
/** The pod's directory, when the hosts file is the first thing made in it. */
const POD_DIR_MODE = 0o750;

export interface HostsFileArgs {
  podUid: string;
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

/** Writes the hosts file (unless it holds that content already) and resolves with its path. */
export async function ensureHostsFile(args: HostsFileArgs): Promise<string> {
  const content = args.hostNetwork
    ? await nodeHostsFileContent(args.nodeHostsPath ?? ETC_HOSTS_PATH, args.hostAliases)
    : managedHostsFileContent(args.podIPs, args.hostname, args.domain, args.hostAliases);
  await podPathsMade.file(args.podUid, args.path, content, HOSTS_FILE_MODE, { path: dirname(args.path), mode: POD_DIR_MODE });
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

async function nodeHostsFileContent(nodeHostsPath: string, hostAliases: V1HostAlias[]): Promise<string> {
  return MANAGED_HOSTS_HEADER_WITH_HOST_NETWORK + (await readFile(nodeHostsPath, 'utf8')) + hostAliasEntries(hostAliases);
}

function hostAliasEntries(hostAliases: V1HostAlias[]): string {
  if (hostAliases.length === 0) return '';
  let content = '\n# Entries added by HostAliases.\n';
  for (const alias of hostAliases) content += `${alias.ip}\t${(alias.hostnames ?? []).join('\t')}\n`;
  return content;
}
