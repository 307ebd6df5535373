// The user an image runs as, as upstream's getImageUser reads it from ImageStatus:
// the runtime reports the image config's User as `uid` when it is numeric and as
// `username` otherwise (never both); an image the runtime does not know, or one
// that names no user, runs as root.
import type { ImageLean } from '../../shared/cri/codec/reply-types.js';

/** Exactly one of uid and username is set. */
export type ImageUser = { uid: number; username?: undefined } | { uid?: undefined; username: string };

/** Root, which an image runs as when it names no user. */
export const ROOT_IMAGE_USER: ImageUser = { uid: 0 };

/** As getImageUser, from the image ImageStatus returned (null when it has none). */
export function imageUserOf(image: ImageLean | null): ImageUser {
  if (image?.uid) return { uid: image.uid.value };
  if (image?.username) return { username: image.username };
  return ROOT_IMAGE_USER;
}
