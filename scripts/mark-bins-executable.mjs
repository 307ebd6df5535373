// tsc writes the bin entries without the executable bit; npx and a node's PATH need it.
import { chmodSync, readFileSync } from 'node:fs';

const { bin } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
for (const path of Object.values(bin)) chmodSync(new URL(`../${path}`, import.meta.url), 0o755);
