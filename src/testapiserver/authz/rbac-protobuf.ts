// kubectl's typed clients send `auth can-i` reviews and `create role|rolebinding|
// clusterrole|clusterrolebinding` as Kubernetes protobuf and do not fall back on
// 415. This decodes those bodies to their JSON form, with the field numbers of
// k8s.io/api/rbac/v1 and authorization/v1 generated.proto and meta/v1's
// ObjectMeta and LabelSelector; a CSR goes to csr-protobuf.ts.
import { ApiError, badRequest } from '../api-error.js';
import { decodeProtobufCsr, fieldsOf, message, text, texts, unwrapProtobuf, type Fields } from '../csr-protobuf.js';
import { RBAC_API_VERSION } from './rbac-resources.js';

const AUTHORIZATION_API_VERSION = 'authorization.k8s.io/v1';

function messages(fields: Fields, field: number): Fields[] {
  return (fields.get(field) ?? []).filter((v): v is Uint8Array => v instanceof Uint8Array).map((v) => fieldsOf(v));
}

/** A protobuf map<string, string>: repeated entries of key 1, value 2. */
function stringMap(fields: Fields, field: number): Record<string, string> | undefined {
  const entries = messages(fields, field);
  return entries.length ? Object.fromEntries(entries.map((e) => [text(e, 1) ?? '', text(e, 2) ?? ''])) : undefined;
}

function objectMeta(fields: Fields): Record<string, unknown> {
  const meta = message(fields, 1);
  return {
    name: text(meta, 1) ?? '',
    ...(text(meta, 2) ? { generateName: text(meta, 2) } : {}),
    ...(text(meta, 3) ? { namespace: text(meta, 3) } : {}),
    ...(text(meta, 6) ? { resourceVersion: text(meta, 6) } : {}),
    ...(stringMap(meta, 11) ? { labels: stringMap(meta, 11) } : {}),
    ...(stringMap(meta, 12) ? { annotations: stringMap(meta, 12) } : {}),
  };
}

function policyRule(fields: Fields): Record<string, unknown> {
  const lists: Array<[string, number]> = [['verbs', 1], ['apiGroups', 2], ['resources', 3], ['resourceNames', 4], ['nonResourceURLs', 5]];
  return Object.fromEntries(lists.filter(([, n]) => fields.has(n)).map(([key, n]) => [key, texts(fields, n)]));
}

function labelSelector(fields: Fields): Record<string, unknown> {
  const expressions = messages(fields, 2).map((e) => ({ key: text(e, 1) ?? '', operator: text(e, 2) ?? '', values: texts(e, 3) }));
  return { ...(stringMap(fields, 1) ? { matchLabels: stringMap(fields, 1) } : {}), ...(expressions.length ? { matchExpressions: expressions } : {}) };
}

function role(kind: 'Role' | 'ClusterRole', fields: Fields): Record<string, unknown> {
  const aggregation = fields.has(3) ? { aggregationRule: { clusterRoleSelectors: messages(message(fields, 3), 1).map(labelSelector) } } : {};
  return { apiVersion: RBAC_API_VERSION, kind, metadata: objectMeta(fields), rules: messages(fields, 2).map(policyRule), ...aggregation };
}

function binding(kind: 'RoleBinding' | 'ClusterRoleBinding', fields: Fields): Record<string, unknown> {
  const subjects = messages(fields, 2).map((s) => ({
    kind: text(s, 1) ?? '', apiGroup: text(s, 2) ?? '', name: text(s, 3) ?? '', ...(text(s, 4) ? { namespace: text(s, 4) } : {}),
  }));
  const ref = message(fields, 3);
  return { apiVersion: RBAC_API_VERSION, kind, metadata: objectMeta(fields), subjects, roleRef: { apiGroup: text(ref, 1) ?? '', kind: text(ref, 2) ?? '', name: text(ref, 3) ?? '' } };
}

function resourceAttributes(fields: Fields): Record<string, unknown> {
  const names = ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'];
  const attributes: Record<string, unknown> = Object.fromEntries(names.map((key, i) => [key, text(fields, i + 1) ?? '']));
  if (fields.has(8)) {
    const selector = message(fields, 8);
    const requirements = messages(selector, 2).map((r) => ({ key: text(r, 1) ?? '', operator: text(r, 2) ?? '', values: texts(r, 3) }));
    attributes.fieldSelector = { ...(text(selector, 1) ? { rawSelector: text(selector, 1) } : {}), ...(requirements.length ? { requirements } : {}) };
  }
  return attributes;
}

function selfSubjectAccessReview(fields: Fields): Record<string, unknown> {
  const spec = message(fields, 2);
  return {
    apiVersion: AUTHORIZATION_API_VERSION,
    kind: 'SelfSubjectAccessReview',
    metadata: objectMeta(fields),
    spec: {
      ...(spec.has(1) ? { resourceAttributes: resourceAttributes(message(spec, 1)) } : {}),
      ...(spec.has(2) ? { nonResourceAttributes: { path: text(message(spec, 2), 1) ?? '', verb: text(message(spec, 2), 2) ?? '' } } : {}),
    },
  };
}

function selfSubjectRulesReview(fields: Fields): Record<string, unknown> {
  return { apiVersion: AUTHORIZATION_API_VERSION, kind: 'SelfSubjectRulesReview', metadata: objectMeta(fields), spec: { namespace: text(message(fields, 2), 1) ?? '' } };
}

const DECODERS: Record<string, (fields: Fields) => Record<string, unknown>> = {
  Role: (f) => role('Role', f),
  ClusterRole: (f) => role('ClusterRole', f),
  RoleBinding: (f) => binding('RoleBinding', f),
  ClusterRoleBinding: (f) => binding('ClusterRoleBinding', f),
  SelfSubjectAccessReview: selfSubjectAccessReview,
  SelfSubjectRulesReview: selfSubjectRulesReview,
};

/** The JSON form of a protobuf body kubectl sends; 400 for kinds this server does not decode, or bytes that are no message. */
export function decodeProtobufBody(body: Buffer): Record<string, unknown> {
  try {
    const { kind, raw } = unwrapProtobuf(body);
    const decode = kind ? DECODERS[kind] : undefined;
    if (!decode || !raw) return decodeProtobufCsr(body);
    return decode(fieldsOf(raw));
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw badRequest(`the protobuf body could not be decoded: ${(err as Error).message}`);
  }
}
