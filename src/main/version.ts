// shardlet's version, from package.json: what --version prints and the node reports as kubeletVersion.
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

/** The Kubernetes minor shardlet implements; kubeadm's version-skew checks read it from kubeletVersion. */
export const KUBERNETES_VERSION = '1.34.0';

/** kubeletVersion and --version: a semver kubeadm accepts, e.g. "v1.34.0-shardlet.0.1.0". */
export function kubeletVersion(): string {
  return `v${KUBERNETES_VERSION}-shardlet.${packageVersion()}`;
}
