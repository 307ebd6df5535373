// Storage references of the rbac.authorization.k8s.io/v1 resources.
import type { ResourceRef } from '../store.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
export const RBAC_API_VERSION = `${RBAC_GROUP}/v1`;

const rbacRef = (plural: string): ResourceRef => ({ key: `${plural}.${RBAC_GROUP}`, group: RBAC_GROUP, plural });

export const ROLES = rbacRef('roles');
export const CLUSTER_ROLES = rbacRef('clusterroles');
export const ROLE_BINDINGS = rbacRef('rolebindings');
export const CLUSTER_ROLE_BINDINGS = rbacRef('clusterrolebindings');

export interface RoleRef {
  apiGroup?: string;
  kind?: string;
  name?: string;
}

export interface Subject {
  kind?: string;
  apiGroup?: string;
  name?: string;
  namespace?: string;
}
