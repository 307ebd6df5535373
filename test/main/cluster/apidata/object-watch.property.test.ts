// The field selector of a per-object watch names exactly the object, whatever its
// name holds: a name comes from a pod spec, and a comma or `=` in it must not end
// the term or start another (apimachinery's fields.EscapeValue), or a node could be
// made to ask for more than one object.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { escapeFieldSelectorValue, nameFieldSelector } from '../../../../src/main/cluster/apidata/object-watch.js';

/** apimachinery's fields.ParseSelector for `=` terms: split on unescaped commas, then at the first unescaped `=`; unescape. */
function parseSelector(selector: string): Array<[string, string]> {
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < selector.length; i++) {
    const ch = selector[i];
    if (ch === '\\' && i + 1 < selector.length) {
      current += ch + selector[++i];
    } else if (ch === ',') {
      terms.push(current);
      current = '';
    } else current += ch;
  }
  terms.push(current);
  return terms.map((term) => {
    let i = 0;
    while (i < term.length && term[i] !== '=') i += term[i] === '\\' ? 2 : 1;
    const unescape = (text: string) => text.replace(/\\(.)/g, '$1');
    return [unescape(term.slice(0, i)), unescape(term.slice(i + 1))];
  });
}

test('a name with commas, equals signs and backslashes stays one term naming it', () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom('a', '-', '.', ',', '=', '\\', '!', ' ') }), (name) => {
      assert.deepEqual(parseSelector(nameFieldSelector(name)), [['metadata.name', name]]);
    }),
  );
  fc.assert(
    fc.property(fc.string(), (name) => {
      assert.deepEqual(parseSelector(nameFieldSelector(name)), [['metadata.name', name]]);
    }),
  );
});

test('a valid object name is left as it is', () => {
  assert.equal(escapeFieldSelectorValue('db-credentials.v2'), 'db-credentials.v2');
  assert.equal(nameFieldSelector('a,metadata.namespace=b'), 'metadata.name=a\\,metadata.namespace\\=b');
});
