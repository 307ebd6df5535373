// Field errors and the 422 Invalid Status they make, as apimachinery's
// util/validation/field (Error, ErrorBody) and api/errors.NewInvalid build them:
// the message is `<Kind>[.<group>] "<name>" is invalid: <field>: <body>`, several
// errors in brackets separated by ", ", and each error is a cause.
import { ApiError } from './api-error.js';

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueForbidden'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueNotFound';

export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** What field.Error.ErrorBody() returns: the error without its field path. */
  body: string;
}

/** A value as the field errors print it: strings quoted, numbers and booleans bare. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return JSON.stringify(value) ?? 'null';
}

const withDetail = (head: string, detail: string): string => (detail ? `${head}: ${detail}` : head);

export function required(field: string, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field, body: withDetail('Required value', detail) };
}

export function forbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, body: withDetail('Forbidden', detail) };
}

export function invalidValue(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, body: withDetail(`Invalid value: ${shown(value)}`, detail) };
}

export function notSupported(field: string, value: unknown, supported: string[]): FieldError {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  return { type: 'FieldValueNotSupported', field, body: withDetail(`Unsupported value: ${shown(value)}`, supported.length ? `supported values: ${list}` : '') };
}

export function duplicate(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, body: `Duplicate value: ${shown(value)}` };
}

export function notFoundValue(field: string, value: unknown): FieldError {
  return { type: 'FieldValueNotFound', field, body: `Not found: ${shown(value)}` };
}

/** `Pod`, `RoleBinding.rbac.authorization.k8s.io`: schema.GroupKind.String(). */
export function qualifiedKind(kind: string, group: string): string {
  return group ? `${kind}.${group}` : kind;
}

/** 422 Invalid for these errors (errors.NewInvalid); the list must not be empty. */
export function invalidObject(kind: string, group: string, name: string, errors: FieldError[]): ApiError {
  const messages = [...new Set(errors.map((e) => `${e.field}: ${e.body}`))];
  const aggregate = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${qualifiedKind(kind, group)} "${name}" is invalid: ${aggregate}`, {
    name,
    group: group || undefined,
    kind,
    causes: errors.map((e) => ({ reason: e.type, message: e.body, field: e.field })),
  });
}

/** Throws 422 when there are errors. */
export function throwIfInvalid(kind: string, group: string, name: string, errors: FieldError[]): void {
  if (errors.length > 0) throw invalidObject(kind, group, name, errors);
}
