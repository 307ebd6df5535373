// Name syntax checks from apimachinery's util/validation (IsDNS1123Label,
// IsDNS1123Subdomain, IsQualifiedName, IsValidLabelValue). Each returns the
// reason a value is invalid, or undefined when it is valid, so callers can put
// the field path in front.

const DNS1123_LABEL_MAX_CHARS = 63;
const DNS1123_SUBDOMAIN_MAX_CHARS = 253;
const QUALIFIED_NAME_MAX_CHARS = 63;
const LABEL_VALUE_MAX_CHARS = 63;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
/** Distinct bad characters a name error quotes before it says "and more". */
const MAX_SHOWN_CHARACTERS = 5;

export function dns1123LabelError(value: string): string | undefined {
  return joined(dns1123LabelErrors(value));
}

export function dns1123SubdomainError(value: string): string | undefined {
  return joined(dns1123SubdomainErrors(value));
}

/**
 * Every rule `value` breaks as a DNS-1123 label, as upstream's IsDNS1123Label
 * reports the length and the syntax apart; the syntax rule is split further so
 * the operator sees each fault at once rather than one fix at a time.
 */
export function dns1123LabelErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > DNS1123_LABEL_MAX_CHARS) errors.push(`must be no more than ${DNS1123_LABEL_MAX_CHARS} characters`);
  if (!DNS1123_LABEL.test(value)) {
    errors.push(`a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (${syntaxFaults(value, /[^-a-z0-9]/g).join(', ')})`);
  }
  return errors;
}

/** Every rule `value` breaks as a DNS-1123 subdomain (upstream's IsDNS1123Subdomain), each part named. */
export function dns1123SubdomainErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX_CHARS) errors.push(`must be no more than ${DNS1123_SUBDOMAIN_MAX_CHARS} characters`);
  if (!DNS1123_SUBDOMAIN.test(value)) {
    const faults = syntaxFaults(value, /[^-.a-z0-9]/g);
    const parts = value.split('.');
    if (parts.length > 1 && parts.some((part) => part === '' || part.startsWith('-') || part.endsWith('-'))) {
      faults.push("a '.'-separated part is empty or starts or ends with '-'");
    }
    errors.push(`a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (${faults.join(', ')})`);
  }
  return errors;
}

/** The syntax faults of a name: characters outside `disallowed`'s complement (a few, quoted), a bad first or last character. */
function syntaxFaults(value: string, disallowed: RegExp): string[] {
  const faults: string[] = [];
  if (value === '') return ['empty'];
  const bad = [...new Set(value.match(disallowed) ?? [])];
  if (bad.length > 0) {
    const shown = bad.slice(0, MAX_SHOWN_CHARACTERS).map((char) => JSON.stringify(char)).join(' ');
    faults.push(`has ${shown}${bad.length > MAX_SHOWN_CHARACTERS ? ' and more' : ''}`);
  }
  if (!/^[a-z0-9]/.test(value)) faults.push(`starts with ${JSON.stringify(value[0])}`);
  if (!/[a-z0-9]$/.test(value)) faults.push(`ends with ${JSON.stringify(value.at(-1))}`);
  return faults;
}

function joined(errors: string[]): string | undefined {
  return errors.length === 0 ? undefined : errors.join('; ');
}

/** A label or taint key: an optional DNS subdomain prefix and "/", then a name. */
export function qualifiedNameError(value: string): string | undefined {
  const parts = value.split('/');
  if (parts.length > 2) return "a qualified name must have at most one '/'";
  const name = parts.at(-1)!;
  if (parts.length === 2) {
    if (parts[0] === '') return 'prefix part must be non-empty';
    const prefixError = dns1123SubdomainError(parts[0]!);
    if (prefixError) return `prefix part ${prefixError}`;
  }
  if (name === '') return 'name part must be non-empty';
  if (name.length > QUALIFIED_NAME_MAX_CHARS) return `name part must be no more than ${QUALIFIED_NAME_MAX_CHARS} characters`;
  if (!QUALIFIED_NAME_PART.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

export function labelValueError(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > LABEL_VALUE_MAX_CHARS) return `must be no more than ${LABEL_VALUE_MAX_CHARS} characters`;
  if (!QUALIFIED_NAME_PART.test(value)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}
