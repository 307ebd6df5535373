// The simulated registries: which image references exist, what they are called
// once normalised, their IDs and sizes. Nothing is fetched; everything is derived
// from the name so that the same name always yields the same ID, across runs.
import { createHash } from 'node:crypto';
import { notFound, unknown, type SimError } from './sim-error.js';

export const DEFAULT_REGISTRY = 'docker.io';
export const DEFAULT_TAG = 'latest';
/** Image names containing this never exist, so ErrImagePull can be produced on purpose. */
export const MISSING_IMAGE_MARKER = 'doesnotexist';
/** Image names containing this run as a numeric non-root user, as distroless's `:nonroot` images do. */
export const NONROOT_IMAGE_MARKER = 'nonroot';
export const NONROOT_IMAGE_USER = '65532:65532';
/** Image names containing this name their user only by name, which runAsNonRoot cannot verify. */
export const NAMED_USER_IMAGE_MARKER = 'named-user';
export const NAMED_IMAGE_USER = 'app';

export interface ImageReference {
  /** Registry host, e.g. docker.io, 127.0.0.1:5000. */
  host: string;
  /** Repository path inside the registry, e.g. library/busybox. */
  path: string;
  tag?: string;
  digest?: string;
  /** The fully qualified name a runtime reports, e.g. docker.io/library/busybox:latest. */
  canonical: string;
}

export interface CatalogOptions {
  /** When set, only these registry hosts resolve; others fail as an unknown host would. */
  knownRegistries?: string[];
  /** Size of every image not listed in imageSizesBytes. */
  defaultImageSizeBytes: number;
  /** Sizes by image name as written or canonical. */
  imageSizesBytes: Record<string, number>;
}

/** Docker-style normalisation: "busybox" → docker.io/library/busybox:latest. */
export function parseImageReference(name: string): ImageReference {
  let rest = name.trim();
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  const slash = rest.indexOf('/');
  const first = slash >= 0 ? rest.slice(0, slash) : '';
  const hasHost = slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost');
  const host = hasHost ? first : DEFAULT_REGISTRY;
  let path = hasHost ? rest.slice(slash + 1) : rest;
  let tag: string | undefined;
  const colon = path.lastIndexOf(':');
  if (colon > path.lastIndexOf('/')) {
    tag = path.slice(colon + 1);
    path = path.slice(0, colon);
  }
  if (host === DEFAULT_REGISTRY && !path.includes('/')) path = `library/${path}`;
  if (!tag && !digest) tag = DEFAULT_TAG;
  const canonical = `${host}/${path}${tag ? `:${tag}` : ''}${digest ? `@${digest}` : ''}`;
  return { host, path, tag, digest, canonical };
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The image ID (config digest) a pull of this reference yields. */
export function imageIdOf(ref: ImageReference): string {
  return `sha256:${sha256Hex(`image-config:${ref.host}/${ref.path}:${ref.tag ?? ref.digest}`)}`;
}

/** The repo digest (manifest digest) of this reference. */
export function repoDigestOf(ref: ImageReference): string {
  const digest = ref.digest ?? `sha256:${sha256Hex(`manifest:${ref.host}/${ref.path}:${ref.tag}`)}`;
  return `${ref.host}/${ref.path}@${digest}`;
}

/**
 * The User of the image's config: a name, a uid, either with `:group`. Every other
 * image has none and so runs as root, as busybox, alpine and nginx do.
 */
export function imageUserOf(ref: ImageReference): string {
  if (ref.canonical.includes(NAMED_USER_IMAGE_MARKER)) return NAMED_IMAGE_USER;
  if (ref.canonical.includes(NONROOT_IMAGE_MARKER)) return NONROOT_IMAGE_USER;
  return '';
}

/**
 * The user as ImageStatus reports it, as containerd's getUserFromImage: the part
 * before any `:group`, as `uid` when it is a number, else as `username`; neither
 * when the image names no user.
 */
export function imageStatusUser(user: string): { uid: { value: number } | null; username: string } {
  const name = user.split(':')[0] ?? '';
  if (name === '') return { uid: null, username: '' };
  return /^[+-]?\d+$/.test(name) ? { uid: { value: Number(name) }, username: '' } : { uid: null, username: name };
}

export class ImageCatalog {
  constructor(private readonly options: CatalogOptions) {}

  /** Why a pull of `ref` fails, worded as containerd words it; undefined when it exists. */
  pullFailure(ref: ImageReference): SimError | undefined {
    const prefix = `failed to pull and unpack image "${ref.canonical}": failed to resolve reference "${ref.canonical}"`;
    if (!this.hostResolves(ref.host)) {
      return unknown(
        `${prefix}: failed to do request: Head "https://${ref.host}/v2/${ref.path}/manifests/${ref.tag ?? ref.digest}": ` +
          `dial tcp: lookup ${ref.host}: no such host`,
      );
    }
    if (ref.canonical.includes(MISSING_IMAGE_MARKER)) return notFound(`${prefix}: ${ref.canonical}: not found`);
    return undefined;
  }

  sizeOf(name: string, ref: ImageReference): number {
    return this.options.imageSizesBytes[name] ?? this.options.imageSizesBytes[ref.canonical] ?? this.options.defaultImageSizeBytes;
  }

  /**
   * Hosts under the reserved .invalid TLD (RFC 2606) and hosts naming
   * themselves unknown never resolve; with knownRegistries set, only those do.
   */
  private hostResolves(host: string): boolean {
    if (this.options.knownRegistries) return this.options.knownRegistries.includes(host);
    const hostname = host.replace(/:\d+$/, '');
    return !hostname.endsWith('.invalid') && !hostname.includes('unknown') && !hostname.includes(MISSING_IMAGE_MARKER);
  }
}
