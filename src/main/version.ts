// shardlet's version, from package.json: what --version prints and the node reports as kubeletVersion.
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

/**
 * The Kubernetes release shardlet implements; kubeadm's version-skew checks read it
 * from kubeletVersion. 1.36.5 is the latest 1.36 patch upstream had published (October 2026).
 */
export const KUBERNETES_VERSION = '1.36.5';

/** kubeletVersion and --version: a semver kubeadm accepts, e.g. "v1.36.5-shardlet.0.1.0". */
export function kubeletVersion(): string {
  return `v${KUBERNETES_VERSION}-shardlet.${packageVersion()}`;
}
