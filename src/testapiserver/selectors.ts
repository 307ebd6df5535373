// Label and field selectors with apimachinery's syntax: labels support =, ==, !=,
// in, notin, exists (`key`) and does-not-exist (`!key`); fields support =, ==, !=
// on any dotted path (upstream limits the paths per resource; we accept all).
import { badRequest } from './api-error.js';
import type { KubeObject } from './types.js';

type Operator = 'eq' | 'neq' | 'in' | 'notin' | 'exists' | 'notexists';

export interface Requirement {
  key: string;
  op: Operator;
  values: string[];
}

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

function parseSetRequirement(term: string): Requirement | undefined {
  const match = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(term);
  if (!match) return undefined;
  const values = match[3].split(',').map((v) => v.trim()).filter((v) => v.length > 0);
  return { key: match[1], op: match[2] as 'in' | 'notin', values };
}

function parseTerm(term: string, allowSets: boolean): Requirement {
  const set = allowSets ? parseSetRequirement(term) : undefined;
  if (set) return set;
  const eq = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
  if (eq) return { key: eq[1], op: eq[2] === '!=' ? 'neq' : 'eq', values: [eq[3].trim()] };
  if (allowSets && /^![^\s=!]+$/.test(term)) return { key: term.slice(1), op: 'notexists', values: [] };
  if (allowSets && /^[^\s=!()]+$/.test(term)) return { key: term, op: 'exists', values: [] };
  throw badRequest(`unable to parse requirement: ${term}`);
}

export function parseLabelSelector(text: string | null | undefined): Requirement[] {
  return text ? splitTopLevel(text).map((t) => parseTerm(t, true)) : [];
}

export function parseFieldSelector(text: string | null | undefined): Requirement[] {
  return text ? splitTopLevel(text).map((t) => parseTerm(t, false)) : [];
}

function matches(req: Requirement, value: string | undefined): boolean {
  switch (req.op) {
    case 'eq':
      return (value ?? '') === req.values[0];
    case 'neq':
      return (value ?? '') !== req.values[0];
    case 'in':
      return value !== undefined && req.values.includes(value);
    case 'notin':
      return value === undefined || !req.values.includes(value);
    case 'exists':
      return value !== undefined;
    case 'notexists':
      return value === undefined;
  }
}

export function matchesLabels(reqs: Requirement[], labels: Record<string, string> | undefined): boolean {
  return reqs.every((r) => matches(r, labels?.[r.key]));
}

function fieldValue(obj: unknown, path: string): string | undefined {
  let cursor: unknown = obj;
  for (const part of path.split('.')) {
    if (cursor === null || typeof cursor !== 'object') return undefined;
    cursor = (cursor as Record<string, unknown>)[part];
  }
  if (cursor === undefined || cursor === null) return undefined;
  return typeof cursor === 'object' ? JSON.stringify(cursor) : String(cursor);
}

export function matchesFields(reqs: Requirement[], obj: unknown): boolean {
  return reqs.every((r) => matches(r, fieldValue(obj, r.key)));
}

/** A compiled list/watch filter: namespace, label selector and field selector. */
export interface ObjectFilter {
  namespace?: string;
  labels: Requirement[];
  fields: Requirement[];
}

export function matchesFilter(filter: ObjectFilter, obj: KubeObject): boolean {
  if (filter.namespace && obj.metadata.namespace !== filter.namespace) return false;
  return matchesLabels(filter.labels, obj.metadata.labels) && matchesFields(filter.fields, obj);
}

