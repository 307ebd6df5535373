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

export function dns1123LabelError(value: string): string | undefined {
  if (value.length > DNS1123_LABEL_MAX_CHARS) return `must be no more than ${DNS1123_LABEL_MAX_CHARS} characters`;
  if (!DNS1123_LABEL.test(value)) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
  }
  return undefined;
}

export function dns1123SubdomainError(value: string): string | undefined {
  if (value.length > DNS1123_SUBDOMAIN_MAX_CHARS) return `must be no more than ${DNS1123_SUBDOMAIN_MAX_CHARS} characters`;
  if (!DNS1123_SUBDOMAIN.test(value)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
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
