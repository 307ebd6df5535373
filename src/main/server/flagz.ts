// /flagz (KEP 4828): the command-line flags the kubelet was started with, as
// upstream's apiserver/pkg/server/flagz serves them: a plain text page of sorted
// name<delimiter>value lines under the z-pages' warning, and the structured Flagz
// object of config.k8s.io/v1beta1 (or the deprecated v1alpha1). Upstream lists every
// flag of its flag sets with its value, defaults included; shardlet lists the flags
// given on its command line (the last value of a repeated flag), as given.
import { ZPAGE_WARNING } from './statusz.js';

export interface FlagzObject {
  kind: 'Flagz';
  apiVersion: string;
  metadata: { name: string };
  flags: Record<string, string>;
}

/**
 * The flags of a kubelet command line, by name: "--name=value", "--name value" and a
 * bare "--name" (a boolean, "true"). The kubelet takes no positional arguments, so a
 * word after a flag without "=" is its value.
 */
export function commandLineFlags(argv: readonly string[]): Record<string, string> {
  const flags: Record<string, string> = {};
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (!arg.startsWith('-') || arg === '-' || arg === '--') continue;
    const body = arg.replace(/^--?/, '');
    const equals = body.indexOf('=');
    if (equals >= 0) {
      flags[body.slice(0, equals)] = body.slice(equals + 1);
    } else if (index + 1 < argv.length && !argv[index + 1]!.startsWith('-')) {
      flags[body] = argv[++index]!;
    } else {
      flags[body] = 'true';
    }
  }
  return flags;
}

export function flagzObject(componentName: string, flags: Readonly<Record<string, string>>, version: string): FlagzObject {
  return { kind: 'Flagz', apiVersion: `config.k8s.io/${version}`, metadata: { name: componentName }, flags: { ...flags } };
}

/** The plain text page, as upstream's flagzTextSerializer writes it. */
export function flagzText(componentName: string, flags: Readonly<Record<string, string>>, delimiter: string): string {
  const lines = Object.keys(flags)
    .sort()
    .map((name) => `${name}${delimiter}${flags[name]}\n`);
  return `\n${componentName} flagz\n${ZPAGE_WARNING}\n${lines.join('')}`;
}
