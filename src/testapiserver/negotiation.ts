// The response's media type from the Accept header, as kube-apiserver's
// negotiation.NegotiateMediaTypeOptions chooses it: the clauses in goautoneg's
// order (q, then concrete before wildcard), each matched against the served
// types in order (JSON, YAML, protobuf), and the first whose parameters the
// endpoint allows wins; with none, JSON. `as=Table;g=meta.k8s.io;v=v1` asks for
// kubectl's table, which only JSON and YAML carry (AllowsMediaTypeTransform);
// `as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2` asks /api and /apis for
// aggregated discovery (DiscoveryEndpointRestrictions), served here as JSON;
// `stream=watch` is allowed on watches, where YAML has no stream form.

export type OutputFormat = 'json' | 'yaml' | 'protobuf';

export const JSON_MEDIA_TYPE = 'application/json';
export const YAML_MEDIA_TYPE = 'application/yaml';
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

const SERVED: Array<{ type: string; subType: string; format: OutputFormat }> = [
  { type: 'application', subType: 'json', format: 'json' },
  { type: 'application', subType: 'yaml', format: 'yaml' },
  { type: 'application', subType: 'vnd.kubernetes.protobuf', format: 'protobuf' },
];

/** What a client may ask the server to turn its answer into (the `as` parameter). */
export type Conversion = 'Table' | 'APIGroupDiscoveryList';

export interface OutputChoice {
  format: OutputFormat;
  /** Set when the client asked for a Table or aggregated discovery instead of the plain answer. */
  as?: Conversion;
}

export interface Endpoint {
  /** Resource lists and gets may answer as a Table; /api and /apis as aggregated discovery. */
  conversions: Conversion[];
  /** A watch: only formats with a stream form (JSON, protobuf). */
  watch?: boolean;
}

/** The group and version each conversion is asked for by, and the formats this server writes it in. */
const CONVERSIONS: Record<Conversion, { group: string; version: string; formats: OutputFormat[] }> = {
  Table: { group: 'meta.k8s.io', version: 'v1', formats: ['json', 'yaml'] },
  APIGroupDiscoveryList: { group: 'apidiscovery.k8s.io', version: 'v2', formats: ['json'] },
};

interface AcceptClause {
  type: string;
  subType: string;
  q: number;
  params: Map<string, string>;
}

/** One clause as Go's mime.ParseMediaType reads it; undefined for one it refuses. */
function parseClause(text: string): AcceptClause | undefined {
  const [mediaType, ...rawParams] = text.split(';');
  const [type, subType, extra] = mediaType.trim().toLowerCase().split('/');
  if (!type || !subType || extra !== undefined) return undefined;
  const params = new Map<string, string>();
  let q = 1;
  for (const raw of rawParams) {
    const eq = raw.indexOf('=');
    if (eq < 0) return undefined;
    const key = raw.slice(0, eq).trim().toLowerCase();
    const value = raw.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (key === 'q') q = Number.parseFloat(value) || 0;
    else params.set(key, value);
  }
  return { type, subType, q, params };
}

/** goautoneg's Less, applied by an insertion sort as Go's sort does for short slices. */
function before(a: AcceptClause, b: AcceptClause): boolean {
  if (a.q > b.q) return true;
  if (a.type !== '*' && b.type === '*') return true;
  return a.subType !== '*' && b.subType === '*';
}

export function parseAccept(header: string): AcceptClause[] {
  const clauses = header.split(',').map(parseClause).filter((c): c is AcceptClause => c !== undefined);
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && before(clauses[j], clauses[j - 1]); j--) [clauses[j], clauses[j - 1]] = [clauses[j - 1], clauses[j]];
  }
  return clauses;
}

/** The options a clause asks for, or undefined when the endpoint cannot honour them (acceptMediaTypeOptions). */
function optionsOf(clause: AcceptClause, format: OutputFormat, endpoint: Endpoint): OutputChoice | undefined {
  const stream = clause.params.get('stream');
  if (stream && (stream !== 'watch' || format === 'yaml')) return undefined;
  if (endpoint.watch && format === 'yaml') return undefined;
  const as = clause.params.get('as');
  const group = clause.params.get('g');
  const version = clause.params.get('v');
  if (as === undefined && group === undefined && version === undefined) return { format };
  const conversion = endpoint.conversions.find((c) => c === as);
  if (!conversion) return undefined;
  const { group: wantedGroup, version: wantedVersion, formats } = CONVERSIONS[conversion];
  return group === wantedGroup && version === wantedVersion && formats.includes(format) ? { format, as: conversion } : undefined;
}

/** What to answer in, for this Accept header at this endpoint. */
export function negotiateOutput(accept: string | undefined, endpoint: Endpoint): OutputChoice {
  if (!accept) return { format: 'json' };
  for (const clause of parseAccept(accept)) {
    for (const served of SERVED) {
      const matches = (clause.type === served.type && (clause.subType === served.subType || clause.subType === '*')) || (clause.type === '*' && clause.subType === '*');
      if (!matches) continue;
      const choice = optionsOf(clause, served.format, endpoint);
      if (choice) return choice;
    }
  }
  return { format: 'json' };
}
