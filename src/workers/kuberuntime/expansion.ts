// $(VAR) references in env values, command, args and subPathExpr, with the rules of
// upstream's third_party/forked/golang/expansion: "$$" is an escaped "$", an
// unknown or unterminated reference is left as written, and a "$" followed by
// anything else stays literal.

/** Resolves a variable name to its value. */
export type ExpansionMapping = (name: string) => string;

const OPERATOR = '$';
const REFERENCE_OPENER = '(';
const REFERENCE_CLOSER = ')';

/** Expands every $(NAME) in input through mapping. */
export function expand(input: string, mapping: ExpansionMapping): string {
  let output = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== OPERATOR || cursor + 1 >= input.length) continue;
    output += input.slice(checkpoint, cursor);
    const { text, isVariable, advance } = readVariableName(input, cursor + 1);
    output += isVariable ? mapping(text) : text;
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return output + input.slice(checkpoint);
}

/** What follows a "$" at start: a variable name, or the literal text to copy instead. */
function readVariableName(input: string, start: number): { text: string; isVariable: boolean; advance: number } {
  const first = input[start];
  if (first === OPERATOR) return { text: OPERATOR, isVariable: false, advance: 1 };
  if (first === REFERENCE_OPENER) {
    const closer = input.indexOf(REFERENCE_CLOSER, start + 1);
    if (closer !== -1) return { text: input.slice(start + 1, closer), isVariable: true, advance: closer - start + 1 };
    // Unterminated reference: keep "$(" and go on scanning after it.
    return { text: OPERATOR + REFERENCE_OPENER, isVariable: false, advance: 1 };
  }
  return { text: OPERATOR + first, isVariable: false, advance: 1 };
}

/** As expansion.MappingFuncFor: looks the name up in each map in turn, leaving $(NAME) when none has it. */
export function mappingFor(...contexts: ReadonlyMap<string, string>[]): ExpansionMapping {
  return (name) => {
    for (const context of contexts) {
      const value = context.get(name);
      if (value !== undefined) return value;
    }
    return `${OPERATOR}${REFERENCE_OPENER}${name}${REFERENCE_CLOSER}`;
  };
}
