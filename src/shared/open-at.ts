// openat(2) for Node, which has none: /proc/self/fd/<fd>/<name> makes the kernel
// resolve the magic link to the open directory itself (not to the name it was opened
// by) and look <name> up in it, with O_NOFOLLOW applying to <name>. mkdir, lstat,
// readdir through the same path act relative to the directory alike. Both the shards'
// subPath opener and the main thread's volume usage walk go through a volume this way,
// never resolving a name in it twice.
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** A directory step: a symlink fails (ENOTDIR), and so does anything that is not a directory, before it is opened. */
export const DIRECTORY_NOFOLLOW_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** The path that makes open/mkdir/lstat act relative to an open directory (openat/mkdirat/fstatat). */
export function atPath(directory: FileHandle, name: string): string {
  return `/proc/self/fd/${directory.fd}/${name}`;
}
