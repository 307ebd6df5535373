// The Accept negotiation of the z-pages (/statusz, /flagz), as upstream's
// apiserver/pkg/server/{statusz,flagz} do it through NegotiateOutputMediaType with
// their endpoint restrictions: no Accept header, text/plain (without a kind), text/*
// or */* is the plain text page; a structured page needs the media type with all of
// g=config.k8s.io, v=<a served version> and as=<the page's kind>; anything else, a
// bare application/json included, is 406. Clauses are tried by q, then in order.
// Upstream also serves application/cbor; shardlet does not (it is skipped, as an
// unsupported type is).

export type ZpageFormat = 'json' | 'yaml';

export type ZpageChoice = { kind: 'text' } | { kind: 'structured'; format: ZpageFormat; version: string } | { kind: 'not-acceptable' };

export const ZPAGE_GROUP = 'config.k8s.io';
/** Served versions; v1alpha1 answers with a deprecation Warning, as upstream 1.36. */
export const ZPAGE_VERSIONS = ['v1beta1', 'v1alpha1'] as const;
export const DEPRECATED_ZPAGE_VERSIONS: ReadonlySet<string> = new Set(['v1alpha1']);

const FORMAT_BY_MEDIA_TYPE: ReadonlyMap<string, ZpageFormat> = new Map([
  ['application/json', 'json'],
  ['application/yaml', 'yaml'],
]);

interface AcceptClause {
  mediaType: string;
  params: Map<string, string>;
  q: number;
  order: number;
}

function parseAccept(header: string): AcceptClause[] {
  return header
    .split(',')
    .map((part, order) => {
      const [type = '', ...rawParams] = part.split(';').map((piece) => piece.trim());
      const params = new Map<string, string>();
      for (const raw of rawParams) {
        const equals = raw.indexOf('=');
        if (equals > 0) params.set(raw.slice(0, equals).trim().toLowerCase(), raw.slice(equals + 1).trim().replace(/^"|"$/g, ''));
      }
      const q = params.has('q') ? Number(params.get('q')) : 1;
      params.delete('q');
      return { mediaType: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0, order };
    })
    .filter((clause) => clause.mediaType !== '' && clause.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order);
}

function choose(clause: AcceptClause, kind: string): ZpageChoice | undefined {
  const { mediaType, params } = clause;
  if (mediaType === '*/*' || mediaType === 'text/*' || mediaType === 'text/plain') return params.has('as') ? undefined : { kind: 'text' };
  const format = FORMAT_BY_MEDIA_TYPE.get(mediaType);
  const version = params.get('v');
  if (!format || params.get('g') !== ZPAGE_GROUP || params.get('as') !== kind || !version) return undefined;
  return (ZPAGE_VERSIONS as readonly string[]).includes(version) ? { kind: 'structured', format, version } : undefined;
}

/** What to answer a request with this Accept header for the page of `kind` (Statusz, Flagz). */
export function negotiateZpage(accept: string | undefined, kind: string): ZpageChoice {
  if (accept === undefined || accept.trim() === '') return { kind: 'text' };
  for (const clause of parseAccept(accept)) {
    const choice = choose(clause, kind);
    if (choice) return choice;
  }
  return { kind: 'not-acceptable' };
}

/** The media types a page accepts, for the 406 message, as upstream lists them. */
export function acceptedMediaTypes(kind: string): string[] {
  const structured = ZPAGE_VERSIONS.flatMap((version) => [...FORMAT_BY_MEDIA_TYPE.keys()].map((type) => `${type};g=${ZPAGE_GROUP};v=${version};as=${kind}`));
  return ['text/plain', ...structured];
}
