// A pod's resolver configuration, as upstream's pkg/kubelet/network/dns
// Configurer.GetPodDNS: ClusterFirst pods get the cluster DNS servers and the
// <ns>.svc.<domain> search path, Default pods the node's resolv.conf, None pods only
// their spec.dnsConfig; dnsConfig is merged on top; limits are applied last.
import { readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import type { ShardSettings } from '../../shared/shard-protocol.js';
import type { Pod } from '../../shared/types.js';

/** Options every ClusterFirst pod gets (upstream's defaultDNSOptions). */
export const DEFAULT_DNS_OPTIONS = ['ndots:5'];
/** validation.MaxDNSNameservers, MaxDNSSearchPaths, MaxDNSSearchListChars. */
export const MAX_DNS_NAMESERVERS = 3;
export const MAX_DNS_SEARCH_PATHS = 32;
export const MAX_DNS_SEARCH_LIST_CHARS = 2048;
/** A search domain longer than a DNS-1123 subdomain makes some resolvers abort. */
const MAX_DNS_SEARCH_DOMAIN_CHARS = 253;
/** Upstream reads at most this much of resolv.conf. */
const MAX_RESOLV_CONF_BYTES = 10 * 1024 * 1024;

/** Also the shape of the CRI DNSConfig. */
export interface ResolverConfig {
  servers: string[];
  searches: string[];
  options: string[];
}

type PodDNSType = 'cluster' | 'host' | 'none';

/** The DNS config for the pod's sandbox. */
export function getPodDNS(pod: Pod, settings: ShardSettings): ResolverConfig {
  let config = hostDNSConfig(settings.resolvConf);
  let dnsType = podDNSType(pod);
  if (dnsType === 'cluster' && settings.clusterDNS.length === 0) {
    // No clusterDNS configured: upstream records an event and falls back to Default.
    dnsType = 'host';
  }
  if (dnsType === 'none') {
    config = { servers: [], searches: [], options: [] };
  } else if (dnsType === 'cluster') {
    config = {
      servers: [...settings.clusterDNS],
      searches: clusterFirstSearches(config.searches, pod, settings.clusterDomain),
      options: [...DEFAULT_DNS_OPTIONS],
    };
  } else if (settings.resolvConf === '') {
    // --resolv-conf="" disables host DNS: point at the local resolver, as upstream does.
    config.servers = settings.hostIP && isIPv6(settings.hostIP) ? ['::1'] : ['127.0.0.1'];
    config.searches = ['.'];
  }
  const podConfig = pod.spec?.dnsConfig;
  if (podConfig) {
    config = {
      servers: omitDuplicates([...config.servers, ...(podConfig.nameservers ?? [])]),
      searches: omitDuplicates([...config.searches, ...(podConfig.searches ?? [])]),
      options: mergeDNSOptions(config.options, podConfig.options ?? []),
    };
  }
  return fitLimits(config);
}

/** As getPodDNSType; an unset policy is the API default, ClusterFirst. */
function podDNSType(pod: Pod): PodDNSType {
  const policy = pod.spec?.dnsPolicy ?? 'ClusterFirst';
  switch (policy) {
    case 'None':
      return 'none';
    case 'ClusterFirstWithHostNet':
      return 'cluster';
    case 'ClusterFirst':
      return pod.spec?.hostNetwork ? 'host' : 'cluster';
    case 'Default':
      return 'host';
  }
  throw new ShardletError(ErrorCodes.CREATE_CONTAINER_CONFIG, `invalid DNSPolicy=${policy}`, { dnsPolicy: policy });
}

function clusterFirstSearches(hostSearches: string[], pod: Pod, clusterDomain: string): string[] {
  if (clusterDomain === '') return hostSearches;
  const namespace = pod.metadata?.namespace ?? '';
  const clusterSearches = [`${namespace}.svc.${clusterDomain}`, `svc.${clusterDomain}`, clusterDomain];
  return omitDuplicates([...clusterSearches, ...hostSearches]);
}

/** The node's resolver settings from the --resolv-conf file; empty when that is "". */
export function hostDNSConfig(resolvConfPath: string): ResolverConfig {
  if (resolvConfPath === '') return { servers: [], searches: [], options: [] };
  let text: string;
  try {
    text = readFileSync(resolvConfPath, 'utf8').slice(0, MAX_RESOLV_CONF_BYTES);
  } catch (err) {
    throw new ShardletError(
      ErrorCodes.CREATE_CONTAINER_CONFIG,
      `could not read resolv.conf file ${resolvConfPath}: ${(err as Error).message}`,
      { resolvConf: resolvConfPath },
    );
  }
  return parseResolvConf(text);
}

/** As parseResolvConf: nameservers accumulate, the last search line wins, options merge by name. */
export function parseResolvConf(text: string): ResolverConfig {
  const config: ResolverConfig = { servers: [], searches: [], options: [] };
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
    const fields = trimmed.split(/\s+/).filter((field) => field !== '');
    if (fields.length === 0) continue;
    const [keyword, ...rest] = fields;
    if (keyword === 'nameserver' && rest.length > 0) {
      config.servers.push(rest[0]);
    } else if (keyword === 'search') {
      // The same domain with and without its trailing dot counts once.
      config.searches = rest.filter((domain) => domain !== '.').map((domain) => domain.replace(/\.$/, ''));
    } else if (keyword === 'options') {
      config.options = mergeOptionStrings(config.options, rest);
    }
  }
  return config;
}

/** Later "name[:value]" options replace earlier ones of the same name, keeping the first position. */
function mergeOptionStrings(existing: string[], added: string[]): string[] {
  const byName = new Map<string, string>();
  for (const option of [...existing, ...added]) byName.set(option.split(':')[0], option);
  return [...byName.values()];
}

/** As mergeDNSOptions: the pod's dnsConfig.options override the base options by name. */
function mergeDNSOptions(existing: string[], podOptions: { name?: string; value?: string }[]): string[] {
  const valueByName = new Map<string, string>();
  for (const option of existing) {
    const colon = option.indexOf(':');
    if (colon === -1) valueByName.set(option, '');
    else valueByName.set(option.slice(0, colon), option.slice(colon + 1));
  }
  for (const option of podOptions) valueByName.set(option.name ?? '', option.value ?? '');
  return [...valueByName].map(([name, value]) => (value === '' ? name : `${name}:${value}`));
}

function omitDuplicates(values: string[]): string[] {
  return [...new Set(values)];
}

/** As formDNSConfigFitsLimits: at most 3 servers; search paths cut by count and length. */
function fitLimits(config: ResolverConfig): ResolverConfig {
  const servers = config.servers.slice(0, MAX_DNS_NAMESERVERS);
  let searches = config.searches
    .slice(0, MAX_DNS_SEARCH_PATHS)
    .filter((domain) => domain.length <= MAX_DNS_SEARCH_DOMAIN_CHARS);
  while (searches.length > 0 && searches.join(' ').length > MAX_DNS_SEARCH_LIST_CHARS) {
    searches = searches.slice(0, -1);
  }
  return { servers, searches, options: config.options };
}

