// /configz: the resolved KubeletConfiguration as upstream serves it,
// {"kubeletconfig": {...}} in the v1beta1 field names, durations written as Go
// prints them ("1m0s"). Fields hold durations in milliseconds on our side; the
// config schema says which ones are durations.
import { formatGoDuration } from '../options/duration.js';
import { KUBELET_CONFIGURATION_FIELDS, isPlainObject, type FieldSchema, type FieldType } from '../options/kubelet-config-fields.js';

export function configzDocument(resolvedConfig: Readonly<Record<string, unknown>>): { kubeletconfig: Record<string, unknown> } {
  const { apiVersion: _apiVersion, kind: _kind, ...fields } = resolvedConfig;
  // Upstream marshals the versioned struct with an empty TypeMeta: no kind or apiVersion.
  return { kubeletconfig: inUpstreamForm(fields, KUBELET_CONFIGURATION_FIELDS) };
}

function inUpstreamForm(fields: Readonly<Record<string, unknown>>, schema: FieldSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) out[name] = valueInUpstreamForm(value, schema[name]);
  return out;
}

function valueInUpstreamForm(value: unknown, type: FieldType | undefined): unknown {
  if (type === 'duration' && typeof value === 'number') return formatGoDuration(value);
  if (type !== undefined && typeof type === 'object' && 'object' in type && isPlainObject(value)) return inUpstreamForm(value, type.object);
  if (type !== undefined && typeof type === 'object' && 'listOf' in type && Array.isArray(value)) {
    return value.map((item) => (isPlainObject(item) ? inUpstreamForm(item, type.listOf) : item));
  }
  return value;
}
