// /statusz and /flagz on the kubelet API, each behind its feature gate
// (ComponentStatusz, ComponentFlagz: beta and on by default in 1.36), with the
// z-pages' content negotiation (zpage-negotiation.ts). Authorization is the server's:
// nodes/statusz and nodes/configz respectively, then nodes/proxy
// (request-attributes.ts, as upstream's GetRequestAttributes).
import type { ServerResponse } from 'node:http';
import { stringify } from 'yaml';
import { commandLineFlags, flagzObject, flagzText } from './flagz.js';
import type { KubeletRoutes } from './kubelet-routes.js';
import { statuszObject, statuszText, ZPAGE_DELIMITERS, type StatuszSource } from './statusz.js';
import { acceptedMediaTypes, DEPRECATED_ZPAGE_VERSIONS, negotiateZpage, type ZpageChoice } from './zpage-negotiation.js';

export const STATUSZ_PATH = '/statusz';
export const FLAGZ_PATH = '/flagz';

export interface ZpagesSource {
  featureGates: Readonly<Record<string, boolean>>;
  /** What /statusz shows, its paths read when a request comes (every route is registered by then). */
  statusz(): StatuszSource;
  /** The kubelet's command line, without node and the script. */
  argv: readonly string[];
  /** Picks the text page's delimiter; tests fix it. */
  random?: () => number;
  /** The clock /statusz's uptime is read from; tests fix it. */
  now?: () => number;
}

/** Upstream's defaults at 1.36: both beta and on. */
const GATE_DEFAULTS = { ComponentStatusz: true, ComponentFlagz: true } as const;

function gateOn(gates: Readonly<Record<string, boolean>>, name: keyof typeof GATE_DEFAULTS): boolean {
  return gates[name] ?? GATE_DEFAULTS[name];
}

/** As upstream's ErrorNegotiated for a failed negotiation: a Status with reason NotAcceptable. */
function notAcceptable(res: ServerResponse, kind: string): void {
  const message = `only the following media types are accepted: ${acceptedMediaTypes(kind).join(', ')}`;
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'NotAcceptable', code: 406 };
  res.writeHead(406, { 'content-type': 'application/json' });
  res.end(`${JSON.stringify(status)}\n`);
}

/** Writes the page the negotiation chose: text, or the object in JSON or YAML with a Warning for a deprecated version. */
function answer(res: ServerResponse, choice: ZpageChoice, kind: string, text: () => string, object: (version: string) => object): void {
  if (choice.kind === 'not-acceptable') return notAcceptable(res, kind);
  if (choice.kind === 'text') {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(text());
    return;
  }
  const headers: Record<string, string> = {
    'content-type': `application/${choice.format};g=config.k8s.io;v=${choice.version};as=${kind}`,
  };
  if (DEPRECATED_ZPAGE_VERSIONS.has(choice.version)) {
    headers.warning = `299 - "This version of the ${kind.toLowerCase()} endpoint is deprecated. Please use a newer version."`;
  }
  const body = object(choice.version);
  res.writeHead(200, headers);
  res.end(choice.format === 'json' ? `${JSON.stringify(body)}\n` : stringify(body));
}

export function addZpageRoutes(routes: KubeletRoutes, source: ZpagesSource): void {
  const random = source.random ?? Math.random;
  const delimiter = () => ZPAGE_DELIMITERS[Math.floor(random() * ZPAGE_DELIMITERS.length)]!;
  if (gateOn(source.featureGates, 'ComponentStatusz')) {
    routes.add({
      path: STATUSZ_PATH,
      methods: ['GET'],
      request: (req, res) => {
        const status = source.statusz();
        const now = (source.now ?? Date.now)();
        answer(res, negotiateZpage(req.headers.accept, 'Statusz'), 'Statusz', () => statuszText(status, delimiter(), now), (version) => statuszObject(status, version, now));
      },
    });
  }
  if (gateOn(source.featureGates, 'ComponentFlagz')) {
    const flags = commandLineFlags(source.argv);
    routes.add({
      path: FLAGZ_PATH,
      methods: ['GET'],
      request: (req, res) =>
        answer(res, negotiateZpage(req.headers.accept, 'Flagz'), 'Flagz', () => flagzText('kubelet', flags, delimiter()), (version) => flagzObject('kubelet', flags, version)),
    });
  }
}
