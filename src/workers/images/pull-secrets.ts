// Registry credentials for a PullImage from the pod's imagePullSecrets, as upstream's
// credentialprovider/secrets.MakeDockerKeyring and BasicDockerKeyring.Lookup: every
// kubernetes.io/dockerconfigjson (".dockerconfigjson", {"auths": {...}}) and
// kubernetes.io/dockercfg (".dockercfg", the bare map) Secret goes into one keyring,
// keyed by registry host plus optional path (scheme and a /v1/ or /v2/ prefix
// dropped); an image matches a key when the host labels match the key's globs, the
// ports are equal and the image's path starts with the key's path, most specific key
// first. Images of the default registry also use index.docker.io credentials. A
// pull secret that does not exist is skipped, as upstream only warns about it.
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import type { PodApiData } from '../../shared/shard-protocol.js';
import type { Pod } from '../../shared/types.js';
import type { AuthConfig } from '../../generated/cri/runtime/v1/AuthConfig.js';

export const SECRET_TYPE_DOCKER_CONFIG_JSON = 'kubernetes.io/dockerconfigjson';
export const SECRET_TYPE_DOCKERCFG = 'kubernetes.io/dockercfg';
const DOCKER_CONFIG_JSON_KEY = '.dockerconfigjson';
const DOCKERCFG_KEY = '.dockercfg';
/** Upstream's defaultRegistryHost: the key "https://index.docker.io/v1/" is stored under it. */
const DEFAULT_REGISTRY_HOST = 'index.docker.io';
/** The docker reference library's default domain and the legacy one it rewrites. */
const DEFAULT_DOMAIN = 'docker.io';
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
const OFFICIAL_REPOSITORY_PREFIX = 'library/';

/** One registry entry of a docker config, as DockerConfigEntry. */
interface DockerConfigEntry {
  username?: string;
  password?: string;
  email?: string;
  auth?: string;
}

/** Credentials by keyring key (host plus optional path), as BasicDockerKeyring. */
type Keyring = Map<string, AuthConfig[]>;

/** The credentials to try for the image, most specific first (upstream tries each in turn). */
export function pullAuthsFor(image: string, pod: Pod, apiData: PodApiData | undefined): AuthConfig[] {
  if (!apiData) return [];
  const keyring = makeKeyring(pod, apiData);
  return lookup(keyring, normalizedRepository(image));
}

/** The first (most specific) credentials for the image, or undefined to pull anonymously. */
export function pullAuthFor(image: string, pod: Pod, apiData: PodApiData | undefined): AuthConfig | undefined {
  return pullAuthsFor(image, pod, apiData)[0];
}

function makeKeyring(pod: Pod, apiData: PodApiData): Keyring {
  const keyring: Keyring = new Map();
  for (const reference of pod.spec?.imagePullSecrets ?? []) {
    const name = reference.name ?? '';
    const secret = Object.hasOwn(apiData.secrets, name) ? apiData.secrets[name] : null;
    if (!secret) continue;
    const data = secret.data ?? {};
    try {
      if (secret.type === SECRET_TYPE_DOCKER_CONFIG_JSON && data[DOCKER_CONFIG_JSON_KEY]) {
        const config = JSON.parse(decode(data[DOCKER_CONFIG_JSON_KEY])) as { auths?: Record<string, DockerConfigEntry> };
        addToKeyring(keyring, config.auths ?? {});
      } else if (secret.type === SECRET_TYPE_DOCKERCFG && data[DOCKERCFG_KEY]) {
        addToKeyring(keyring, JSON.parse(decode(data[DOCKERCFG_KEY])) as Record<string, DockerConfigEntry>);
      }
    } catch (err) {
      // Upstream's MakeDockerKeyring fails the pull on a secret it cannot parse.
      const secretRef = `${pod.metadata?.namespace ?? ''}/${name}`;
      // The image manager makes it the container's ErrImagePull.
      throw new ShardletError(ErrorCodes.IMAGE_PULL_FAILED, `invalid image pull secret ${secretRef}: ${(err as Error).message}`, {
        secret: name,
      });
    }
  }
  return keyring;
}

function decode(base64: string): string {
  return Buffer.from(base64, 'base64').toString('utf8');
}

/** As BasicDockerKeyring.Add: the key is host plus path, without scheme or a /v1/ or /v2/ prefix. */
function addToKeyring(keyring: Keyring, config: Record<string, DockerConfigEntry>): void {
  for (const [location, entry] of Object.entries(config)) {
    const withoutScheme = location.replace(/^https?:\/\//, '');
    const slash = withoutScheme.indexOf('/');
    const host = slash === -1 ? withoutScheme : withoutScheme.slice(0, slash);
    let path = slash === -1 ? '' : withoutScheme.slice(slash);
    if (path.startsWith('/v1/') || path.startsWith('/v2/')) path = path.slice(3);
    const key = path !== '' && path !== '/' ? host + path : host;
    const credentials = keyring.get(key) ?? [];
    credentials.push(authConfigOf(entry));
    keyring.set(key, credentials);
  }
}

/** As DockerConfigEntry.UnmarshalJSON: a non-empty "auth" (base64 user:password) overrides the fields. */
function authConfigOf(entry: DockerConfigEntry): AuthConfig {
  if (entry.auth) {
    const decoded = decode(entry.auth);
    const colon = decoded.indexOf(':');
    if (colon === -1) throw new Error('unable to parse auth field, must be formatted as base64(username:password)');
    return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  return { username: entry.username ?? '', password: entry.password ?? '' };
}

/** As BasicDockerKeyring.Lookup: matching keys in reverse-sorted order, else the default registry's. */
function lookup(keyring: Keyring, repository: string): AuthConfig[] {
  const keys = [...keyring.keys()].sort().reverse();
  const matched = keys.filter((key) => urlsMatch(key, repository)).flatMap((key) => keyring.get(key) ?? []);
  if (matched.length > 0) return matched;
  if (isDefaultRegistryMatch(repository)) return keyring.get(DEFAULT_REGISTRY_HOST) ?? [];
  return [];
}

/** As isDefaultRegistryMatch: no registry host, or docker.io. */
function isDefaultRegistryMatch(repository: string): boolean {
  const slash = repository.indexOf('/');
  if (slash === 0 || repository === '') return false;
  if (slash === -1) return true;
  const first = repository.slice(0, slash);
  return first === DEFAULT_DOMAIN || !/[.:]/.test(first);
}

interface SchemelessUrl {
  hostLabels: string[];
  port: string;
  path: string;
}

function parseSchemeless(value: string): SchemelessUrl {
  const slash = value.indexOf('/');
  const hostPort = slash === -1 ? value : value.slice(0, slash);
  const path = slash === -1 ? '' : value.slice(slash);
  const portMatch = /^(.*):(\d*)$/.exec(hostPort);
  const host = portMatch ? portMatch[1] : hostPort;
  return { hostLabels: host.split('.'), port: portMatch ? portMatch[2] : '', path };
}

/** As URLsMatchStr: equal ports, the same number of host labels each matching its glob, path prefix. */
export function urlsMatch(globUrl: string, targetUrl: string): boolean {
  const glob = parseSchemeless(globUrl);
  const target = parseSchemeless(targetUrl);
  if (glob.port !== target.port || glob.hostLabels.length !== target.hostLabels.length) return false;
  if (!glob.hostLabels.every((label, index) => globMatches(label, target.hostLabels[index]))) return false;
  return target.path.startsWith(glob.path);
}

/** filepath.Match for one host label: '*', '?' and [classes]. */
function globMatches(pattern: string, value: string): boolean {
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '[') {
      const end = pattern.indexOf(']', index + 1);
      if (end === -1) return false;
      source += `[${pattern.slice(index + 1, end).replace(/\\/g, '\\\\')}]`;
      index = end;
    } else source += char.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`).test(value);
}

/**
 * The image's repository as the keyring sees it (upstream's parsers.ParseImageName):
 * tag and digest dropped, the default domain docker.io and its library/ prefix added.
 */
export function normalizedRepository(image: string): string {
  let name = image;
  const at = name.indexOf('@');
  if (at !== -1) name = name.slice(0, at);
  const colon = name.lastIndexOf(':');
  if (colon > name.lastIndexOf('/')) name = name.slice(0, colon);
  const slash = name.indexOf('/');
  const first = slash === -1 ? '' : name.slice(0, slash);
  const hasDomain = slash !== -1 && (/[.:]/.test(first) || first === 'localhost' || first.toLowerCase() !== first);
  let domain = hasDomain ? first : DEFAULT_DOMAIN;
  let remainder = hasDomain ? name.slice(slash + 1) : name;
  if (domain === LEGACY_DEFAULT_DOMAIN) domain = DEFAULT_DOMAIN;
  if (domain === DEFAULT_DOMAIN && !remainder.includes('/')) remainder = OFFICIAL_REPOSITORY_PREFIX + remainder;
  return `${domain}/${remainder}`;
}
