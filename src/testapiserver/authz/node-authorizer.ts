// kube-apiserver's Node authorizer (plugin/pkg/auth/authorizer/node,
// NodeAuthorizer.Authorize, 1.34 with AuthorizeNodeWithSelectors): a user
// system:node:<name> in system:nodes may read the Secrets, ConfigMaps, PVCs, PVs,
// ResourceClaims and service accounts that pods bound to its node name, one by
// name (get, or a list/watch pinned to a `metadata.name`), its own Node, its
// pods (get one, list/watch with `spec.nodeName=<name>`), its Lease in
// kube-node-lease; creates, pod writes and the rest are left to NodeRestriction
// and the static node rules. Anyone else: no opinion.
import type { ClientIdentity } from '../tls.js';
import { exactMatch, type AuthorizationAttributes } from './attributes.js';
import { NODE_RULES, SYSTEM_NODES } from './bootstrap-policy.js';
import type { NodeGraph, VertexType } from './node-graph.js';
import { rulesAllow } from './policy-rule.js';
import type { Decision, RulesAnswer } from './rbac-authorizer.js';

const NODE_USER_PREFIX = 'system:node:';
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

const allow: Decision = { decision: 'allow', reason: '' };
const noOpinion = (reason = ''): Decision => ({ decision: 'noOpinion', reason });

/** The node a user is, if it is one (nodeidentifier.NodeIdentity): '' for a node user without a name. */
export function nodeIdentity(user: ClientIdentity): string | undefined {
  if (!user.user.startsWith(NODE_USER_PREFIX) || !user.groups.includes(SYSTEM_NODES)) return undefined;
  return user.user.slice(NODE_USER_PREFIX.length);
}

export class NodeAuthorizer {
  constructor(private readonly graph: NodeGraph) {}

  /** Nodes' permissions cannot be listed (RulesFor): the answer is incomplete. */
  rulesFor(user: ClientIdentity): RulesAnswer | undefined {
    if (nodeIdentity(user) === undefined) return undefined;
    return { rules: [], incomplete: true, errors: ['node authorizer does not support user rule resolution'] };
  }

  authorize(attributes: AuthorizationAttributes): Decision {
    const node = nodeIdentity(attributes.user);
    if (node === undefined) return noOpinion();
    if (node === '') return noOpinion(`unknown node for user "${attributes.user.user}"`);
    if (attributes.resourceRequest) {
      const decided = this.subdivided(node, attributes);
      if (decided) return decided;
    }
    return rulesAllow(attributes, NODE_RULES) ? allow : noOpinion();
  }

  /** The resources whose access depends on the node; undefined for the rest. */
  private subdivided(node: string, attributes: AuthorizationAttributes): Decision | undefined {
    const { apiGroup, resource } = attributes;
    if (apiGroup === '') {
      switch (resource) {
        case 'secrets': return this.readNamespacedObject(node, 'secret', attributes);
        case 'configmaps': return this.readNamespacedObject(node, 'configmap', attributes);
        case 'persistentvolumeclaims':
          return attributes.subresource === 'status' ? this.statusUpdate(node, 'pvc', attributes) : this.get(node, 'pvc', attributes);
        case 'persistentvolumes': return this.get(node, 'pv', attributes);
        case 'serviceaccounts': return this.serviceAccount(node, attributes);
        case 'nodes': return this.nodeObject(node, attributes);
        case 'pods': return this.pod(node, attributes);
        default: return undefined;
      }
    }
    if (apiGroup === 'resource.k8s.io' && resource === 'resourceclaims') return this.get(node, 'resourceclaim', attributes);
    if (apiGroup === 'resource.k8s.io' && resource === 'resourceslices') return this.resourceSlice(node, attributes);
    if (apiGroup === 'coordination.k8s.io' && resource === 'leases') return this.lease(node, attributes);
    return undefined;
  }

  private related(node: string, type: VertexType, attributes: AuthorizationAttributes): Decision {
    if (!attributes.name) return noOpinion('No Object name found');
    if (this.graph.hasPath(type, attributes.namespace, attributes.name, node)) return allow;
    return noOpinion(`no relationship found between node '${node}' and this object`);
  }

  private get(node: string, type: VertexType, attributes: AuthorizationAttributes): Decision {
    if (attributes.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (attributes.subresource) return noOpinion('cannot get subresource');
    return this.related(node, type, attributes);
  }

  private readNamespacedObject(node: string, type: VertexType, attributes: AuthorizationAttributes): Decision {
    if (!['get', 'list', 'watch'].includes(attributes.verb)) return noOpinion('can only read resources of this type');
    if (attributes.subresource) return noOpinion('cannot read subresource');
    if (!attributes.namespace) return noOpinion('can only read namespaced object of this type');
    return this.related(node, type, attributes);
  }

  private statusUpdate(node: string, type: VertexType, attributes: AuthorizationAttributes): Decision {
    if (attributes.verb !== 'update' && attributes.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    return this.related(node, type, attributes);
  }

  /** Get a related service account (the credential providers' token), or create its token. */
  private serviceAccount(node: string, attributes: AuthorizationAttributes): Decision {
    if (attributes.verb === 'get' && !attributes.subresource) return this.readNamespacedObject(node, 'serviceAccount', attributes);
    if (attributes.verb !== 'create' || !attributes.name) return noOpinion('can only create tokens for individual service accounts');
    if (attributes.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.related(node, 'serviceAccount', attributes);
  }

  private lease(node: string, attributes: AuthorizationAttributes): Decision {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attributes.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
    if (attributes.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    // The name of a create is in the body: NodeRestriction checks it.
    if (attributes.verb !== 'create' && attributes.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
    return allow;
  }

  private nodeObject(node: string, attributes: AuthorizationAttributes): Decision {
    const { verb, subresource, name } = attributes;
    if (subresource === '' && ['create', 'update', 'patch'].includes(verb)) return allow;
    if (subresource === '' && ['get', 'list', 'watch'].includes(verb)) {
      if (name === node) return allow;
      return noOpinion(name === '' ? `node '${node}' cannot read all nodes, only its own Node object` : `node '${node}' cannot read '${name}', only its own Node object`);
    }
    if (subresource === 'status' && (verb === 'update' || verb === 'patch')) return allow;
    return noOpinion();
  }

  private pod(node: string, attributes: AuthorizationAttributes): Decision {
    const { verb, subresource } = attributes;
    if (subresource === '') {
      if (verb === 'get') return this.get(node, 'pod', attributes);
      if (verb === 'list' || verb === 'watch') {
        if (exactMatch(attributes.fieldSelector, 'spec.nodeName') === node) return allow;
        if (attributes.name) return this.related(node, 'pod', attributes);
        return noOpinion('can only list/watch pods with spec.nodeName field selector');
      }
      if (verb === 'create' || verb === 'delete') return allow;
    }
    if (subresource === 'status' && (verb === 'update' || verb === 'patch')) return allow;
    if (subresource === 'eviction' && verb === 'create') return allow;
    return noOpinion();
  }

  private resourceSlice(node: string, attributes: AuthorizationAttributes): Decision {
    if (attributes.subresource) return noOpinion('cannot authorize ResourceSlice subresources');
    switch (attributes.verb) {
      case 'create': return allow;
      case 'get':
      case 'update':
      case 'patch':
      case 'delete':
        return noOpinion(`no relationship found between node '${node}' and this object`);
      case 'watch':
      case 'list':
      case 'deletecollection':
        if (exactMatch(attributes.fieldSelector, 'nodeName') === node) return allow;
        return noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
      default:
        return noOpinion('only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection');
    }
  }
}
