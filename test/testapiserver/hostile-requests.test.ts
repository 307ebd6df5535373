// Requests are hostile input: whatever URL, protobuf body or object a client
// sends, authorization, admission and validation answer with a Status error
// (ApiError) or let it through; they never crash the server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ApiError } from '../../src/testapiserver/api-error.js';
import { requestAttributesOf } from '../../src/testapiserver/authz/attributes.js';
import { nodeAndRbacAuthorizer } from '../../src/testapiserver/authz/authorizer.js';
import { seedBootstrapPolicy } from '../../src/testapiserver/authz/bootstrap-policy.js';
import { NodeRestriction } from '../../src/testapiserver/authz/node-restriction.js';
import { decodeProtobufRequest } from '../../src/testapiserver/protobuf/request-body.js';
import { RbacRegistry } from '../../src/testapiserver/authz/rbac-registry.js';
import { validatePods } from '../../src/testapiserver/pod-validation.js';
import { Store } from '../../src/testapiserver/store.js';
import type { KubeObject } from '../../src/testapiserver/types.js';

const VERBS = new Set(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', '']);
const NODE = { user: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };

/** Runs `step`; anything it throws must be an ApiError. */
function onlyApiErrors(step: () => void): void {
  try {
    step();
  } catch (err) {
    assert.ok(err instanceof ApiError, `threw ${String(err)}`);
  }
}

describe('hostile requests', () => {
  const store = new Store();
  seedBootstrapPolicy(store);
  const authorizer = nodeAndRbacAuthorizer(store);

  it('any method, path and query: attributes are derived and authorized without a throw', () => {
    const segment = fc.oneof(fc.constantFrom('api', 'apis', 'v1', 'namespaces', 'default', 'pods', 'secrets', 'status', '..', '%zz', ''), fc.string());
    fc.assert(
      fc.property(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'), fc.array(segment, { maxLength: 8 }), fc.string(), (method, parts, query) => {
        const url = new URL('https://apiserver.invalid');
        url.pathname = `/${parts.map(encodeURIComponent).join('/')}`;
        url.search = query;
        const attributes = requestAttributesOf(method, url, NODE);
        assert.ok(!attributes.resourceRequest || VERBS.has(attributes.verb), attributes.verb);
        assert.ok(['allow', 'noOpinion'].includes(authorizer.authorize(attributes).decision));
      }),
    );
  });

  it('any bytes in the protobuf envelope decode or answer 400', () => {
    const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => onlyApiErrors(() => decodeProtobufRequest(Buffer.concat([magic, bytes]), { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding' }))));
  });

  it('any object through NodeRestriction, RBAC admission and pod validation: admitted or a Status error', () => {
    const restriction = new NodeRestriction(store);
    const registry = new RbacRegistry(() => authorizer);
    const object = fc.anything().map((value) => ({ metadata: { name: 'x' }, ...(value && typeof value === 'object' ? value : {}) }) as KubeObject);
    fc.assert(
      fc.property(
        fc.constantFrom('CREATE', 'UPDATE', 'DELETE' as const),
        fc.constantFrom(['', 'pods'], ['', 'nodes'], ['', 'serviceaccounts'], ['coordination.k8s.io', 'leases'], ['rbac.authorization.k8s.io', 'rolebindings'], ['rbac.authorization.k8s.io', 'clusterroles']),
        fc.constantFrom('', 'status', 'eviction', 'token'),
        object,
        object,
        (operation, [group, resource], subresource, next, old) => {
          const attributes = { operation, user: NODE, group, resource, subresource, namespace: 'default', name: 'x', object: next, oldObject: old };
          for (const admit of [restriction.admit, registry.admit, validatePods]) onlyApiErrors(() => admit(attributes));
        },
      ),
    );
  });
});
