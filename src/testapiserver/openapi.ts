// A minimal OpenAPI v3 document per group/version: only the PATCH operations
// with their group-version-kind and the `fieldValidation` query parameter. That
// is what kubectl's validation (QueryParamVerifierV3) looks for before it leaves
// validation to the server; without it kubectl falls back to client-side
// validation, which needs the full v2 schema, and refuses to apply.
import { createHash } from 'node:crypto';
import { apiVersionOf, RESOURCES, type ResourceDef } from './resources.js';

function groupVersionPath(def: ResourceDef): string {
  return def.group ? `apis/${def.group}/${def.version}` : `api/${def.version}`;
}

function itemPath(def: ResourceDef): string {
  const prefix = `/${groupVersionPath(def)}`;
  return def.namespaced ? `${prefix}/namespaces/{namespace}/${def.plural}/{name}` : `${prefix}/${def.plural}/{name}`;
}

function patchOperation(def: ResourceDef): object {
  return {
    operationId: `patch${def.kind}`,
    'x-kubernetes-action': 'patch',
    'x-kubernetes-group-version-kind': { group: def.group, version: def.version, kind: def.kind },
    parameters: [
      { name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } },
      { name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
      { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
    ],
    // The media types kube-apiserver writes a built-in kind in (schemas are not served here).
    responses: { '200': { description: 'OK', content: { 'application/json': {}, 'application/vnd.kubernetes.protobuf': {}, 'application/yaml': {} } } },
  };
}

export function openApiV3Document(gvPath: string): object | undefined {
  const defs = RESOURCES.filter((def) => groupVersionPath(def) === gvPath);
  if (defs.length === 0) return undefined;
  const paths = Object.fromEntries(defs.map((def) => [itemPath(def), { patch: patchOperation(def) }]));
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: apiVersionOf(defs[0]) }, paths, components: { schemas: {} } };
}

export function openApiV3Root(): object {
  const gvPaths = [...new Set(RESOURCES.map(groupVersionPath))];
  const paths = Object.fromEntries(
    gvPaths.map((gv) => {
      const hash = createHash('sha512').update(JSON.stringify(openApiV3Document(gv))).digest('hex').slice(0, 64).toUpperCase();
      return [gv, { serverRelativeURL: `/openapi/v3/${gv}?hash=${hash}` }];
    }),
  );
  return { paths };
}
