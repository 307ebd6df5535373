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
  /**
   * Groups of tagged references that name one image in the simulated registries
   * (one manifest pushed under several tags or repositories): a pull of any of
   * them yields the same image ID, which then carries every tag pulled.
   */
  sameImages?: string[][];
}

/** What a pull of a reference yields. */
export interface ImageContent {
  /** The image ID (config digest). */
  id: string;
  /** The reference's repository with the manifest digest, e.g. docker.io/library/busybox@sha256:…; a repo digest of the image. */
  repoDigest: string;
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

/** What names one image's content: a tagged reference standing for its image, or a digest nobody tagged. */
function contentKeyOf(ref: ImageReference): string {
  return `${ref.host}/${ref.path}:${ref.tag ?? ref.digest}`;
}

function imageIdOfKey(contentKey: string): string {
  return `sha256:${sha256Hex(`image-config:${contentKey}`)}`;
}

function manifestDigestOfKey(contentKey: string): string {
  return `sha256:${sha256Hex(`manifest:${contentKey}`)}`;
}

/** The image ID (config digest) a pull of this reference yields when no other reference names the same image. */
export function imageIdOf(ref: ImageReference): string {
  return imageIdOfKey(contentKeyOf(ref));
}

/** The repo digest (manifest digest) of this reference when no other reference names the same image. */
export function repoDigestOf(ref: ImageReference): string {
  return `${ref.host}/${ref.path}@${ref.digest ?? manifestDigestOfKey(contentKeyOf(ref))}`;
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
  /** Canonical tagged name → the content key of its image (the first of its sameImages group). */
  private readonly contentKeyByTag = new Map<string, string>();
  /** Manifest digest → content key, for every digest the catalog handed out, so a pull by digest finds its image. */
  private readonly contentKeyByDigest = new Map<string, string>();

  constructor(private readonly options: CatalogOptions) {
    for (const group of options.sameImages ?? []) {
      const refs = group.map(parseImageReference);
      for (const ref of refs) this.contentKeyByTag.set(ref.canonical, contentKeyOf(refs[0]));
      if (refs.length > 0) this.contentOf(refs[0]);
    }
  }

  /**
   * The image a reference names: its ID, and its repository's digest of it. Tags of
   * one image (sameImages) and a digest handed out for a tag yield that image's ID,
   * as a registry serves one manifest under all of them.
   */
  contentOf(ref: ImageReference): ImageContent {
    const repository = `${ref.host}/${ref.path}`;
    if (ref.digest) {
      const key = this.contentKeyByDigest.get(ref.digest) ?? contentKeyOf(ref);
      return { id: imageIdOfKey(key), repoDigest: `${repository}@${ref.digest}` };
    }
    const key = this.contentKeyByTag.get(ref.canonical) ?? contentKeyOf(ref);
    const digest = manifestDigestOfKey(key);
    this.contentKeyByDigest.set(digest, key);
    return { id: imageIdOfKey(key), repoDigest: `${repository}@${digest}` };
  }

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
