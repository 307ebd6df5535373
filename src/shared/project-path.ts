// Files shipped beside the code (proto/, test fixtures) by their path from the
// package root, whether this runs from src/ or from the compiled dist/src/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's files live at <package root>/<relativePath> while this module
 * runs from src/shared (ts-node, tests) or dist/src/shared (compiled), so walk up
 * from here until the path turns up instead of counting `..`.
 */
export function projectProtoPath(relativePath: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, relativePath);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find ${relativePath} above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}
