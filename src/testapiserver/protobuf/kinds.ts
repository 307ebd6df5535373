// Which message an (apiVersion, kind) pair is, as kube-apiserver's scheme knows
// it: k8s.io.api.<package>.<version>.<Kind> for the API groups, and meta/v1 for
// the kinds every group version shares (Status, WatchEvent, DeleteOptions, the
// discovery documents). Only kinds the scheme registers count: a Container is a
// message but not a kind.
import { kubeSchema, type MessageSchema } from './schema.js';

const META_PACKAGE = 'k8s.io.apimachinery.pkg.apis.meta';

/** API group → the proto package prefix go-to-protobuf gave it. */
const GROUP_PACKAGES: Record<string, string> = {
  '': 'k8s.io.api.core',
  apps: 'k8s.io.api.apps',
  'rbac.authorization.k8s.io': 'k8s.io.api.rbac',
  'authorization.k8s.io': 'k8s.io.api.authorization',
  'authentication.k8s.io': 'k8s.io.api.authentication',
  'coordination.k8s.io': 'k8s.io.api.coordination',
  'certificates.k8s.io': 'k8s.io.api.certificates',
  'events.k8s.io': 'k8s.io.api.events',
  policy: 'k8s.io.api.policy',
  'resource.k8s.io': 'k8s.io.api.resource',
  'meta.k8s.io': META_PACKAGE,
};

/** Kinds registered in every group version (metav1.AddToGroupVersion) or unversioned in v1. */
const META_KINDS = new Set([
  'Status', 'WatchEvent', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions', 'GetOptions', 'ListOptions',
  'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList',
]);

const OBJECT_META_TYPES = new Set([`${META_PACKAGE}.v1.ObjectMeta`, `${META_PACKAGE}.v1.ListMeta`]);

export interface GroupVersion {
  group: string;
  version: string;
}

/** "apps/v1" → apps, v1; "v1" → the core group. */
export function splitApiVersion(apiVersion: string): GroupVersion {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** A message the scheme registers as a kind: it has object or list metadata. */
function isKind(schema: MessageSchema): boolean {
  const metadata = schema.fields.find((f) => f.name === 'metadata');
  return !!metadata && 'message' in metadata.value && OBJECT_META_TYPES.has(metadata.value.message.fullName);
}

/** The message of a kind in a group version, or undefined when the scheme has no such kind. */
export function messageOfKind(apiVersion: string, kind: string): MessageSchema | undefined {
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(kind)) return undefined;
  const { group, version } = splitApiVersion(apiVersion);
  const prefix = GROUP_PACKAGES[group];
  if (META_KINDS.has(kind)) return kubeSchema().find(`${META_PACKAGE}.v1.${kind}`);
  if (!prefix || !/^v\d+(?:(?:alpha|beta)\d+)?$/.test(version)) return undefined;
  const schema = kubeSchema().find(`${prefix}.${version}.${kind}`);
  return schema && isKind(schema) ? schema : undefined;
}

/** The Go package of the internal type a group's objects convert to ("core", "apps"), as conversion errors name it. */
export function internalPackageOf(group: string): string {
  if (group === '' || group === 'events.k8s.io') return 'core';
  const prefix = GROUP_PACKAGES[group];
  return prefix ? prefix.slice(prefix.lastIndexOf('.') + 1) : group;
}
