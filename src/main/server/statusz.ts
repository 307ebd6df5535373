// /statusz (KEP 4827): the kubelet's start time, uptime, versions and debugging
// paths, as upstream's apiserver/pkg/server/statusz serves it: a plain text page
// meant for people (a delimiter picked at random per response, so nobody scrapes
// it) and the structured Statusz object of config.k8s.io/v1beta1 (or the
// deprecated v1alpha1). shardlet runs on Node.js: "Go version" holds Node's.

/** The z-pages' header warning, word for word as upstream's. */
export const ZPAGE_WARNING = 'Warning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.';
/** Upstream's delimiters, one chosen at random per text response. */
export const ZPAGE_DELIMITERS = [':', ': ', '=', ' '] as const;
/** Upstream's nonDebuggingEndpoints: API discovery paths, never listed. */
const NON_DEBUGGING_PATHS: ReadonlySet<string> = new Set(['/apis', '/api', '/openid', '/openapi', '/.well-known']);

export interface StatuszSource {
  componentName: string;
  startTimeMs: number;
  binaryVersion: string;
  /** "<major>.<minor>"; omitted when empty. */
  emulationVersion: string;
  runtimeVersion: string;
  /** Every path the server serves; listed by their first segment. */
  paths: readonly string[];
}

export interface StatuszObject {
  kind: 'Statusz';
  apiVersion: string;
  metadata: { name: string };
  startTime: string;
  uptimeSeconds: number;
  goVersion: string;
  binaryVersion: string;
  emulationVersion?: string;
  paths: string[];
}

/** As upstream's aggregatePaths: each path's first segment, once, sorted, discovery paths left out. */
export function aggregatePaths(paths: readonly string[]): string[] {
  const roots = new Set<string>();
  for (const path of paths) {
    const first = path.split('/')[1];
    if (!first) continue;
    const root = `/${first}`;
    if (!NON_DEBUGGING_PATHS.has(root)) roots.add(root);
  }
  return [...roots].sort();
}

export function statuszObject(source: StatuszSource, version: string, nowMs: number): StatuszObject {
  const object: StatuszObject = {
    kind: 'Statusz',
    apiVersion: `config.k8s.io/${version}`,
    metadata: { name: source.componentName },
    startTime: new Date(Math.floor(source.startTimeMs / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
    uptimeSeconds: Math.max(0, Math.floor((nowMs - source.startTimeMs) / 1000)),
    goVersion: source.runtimeVersion,
    binaryVersion: source.binaryVersion,
    paths: aggregatePaths(source.paths),
  };
  if (source.emulationVersion) object.emulationVersion = source.emulationVersion;
  return object;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Go's time.UnixDate layout ("Mon Jan _2 15:04:05 MST 2006"), in UTC. */
export function unixDate(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${time} UTC ${d.getUTCFullYear()}`;
}

/** As upstream's uptime: "%d hr %02d min %02d sec". */
export function uptimeText(seconds: number): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(seconds / 3600)} hr ${two(Math.floor(seconds / 60) % 60)} min ${two(seconds % 60)} sec`;
}

/** The plain text page, laid out as upstream's statuszTextSerializer writes it. */
export function statuszText(source: StatuszSource, delimiter: string, nowMs: number): string {
  const object = statuszObject(source, 'v1beta1', nowMs);
  const emulation = object.emulationVersion ? `Emulation version${delimiter} ${object.emulationVersion}` : '';
  const paths = object.paths.length > 0 ? `Paths${delimiter} ${object.paths.join(' ')}` : '';
  return [
    `\n${source.componentName} statusz\n${ZPAGE_WARNING}\n`,
    `\nStarted${delimiter} ${unixDate(source.startTimeMs)}`,
    `\nUp${delimiter} ${uptimeText(object.uptimeSeconds)}`,
    `\nGo version${delimiter} ${object.goVersion}`,
    `\nBinary version${delimiter} ${object.binaryVersion}`,
    `\n${emulation}\n${paths}\n`,
  ].join('');
}
