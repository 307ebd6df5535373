// fast-check generators of hostile strings for fields that become paths: mostly
// built from the pieces that move a path ('..', '.', '/', NUL) among ordinary
// characters, unicode and '_' (the pod log directory's separator), climbs out of
// wherever the value is joined, absolute paths, arbitrary UTF-16 and very long
// values, so a property meets both the cunning and the random.
import fc from 'fast-check';

/** The characters and pieces a path attack is made of. */
const PATH_PIECES = ['..', '.', '/', '\0', 'a', 'x', '-', '_', ' ', '\\', 'é', '日', '\u202e', '\n', '~', '%2e'];
/** At most this many pieces: at most 6 climbs ('../' is two pieces). */
const MAX_PIECES = 12;
/** Short climbs, which land a few levels up from where the value is joined. */
export const MAX_SHORT_CLIMBS = 6;
/** More climbs than any directory is deep: they reach "/" from anywhere. */
const TO_ROOT_CLIMBS = 40;

/** A string made of path pieces: "../x", "a/./..", "..\0", "/", "". */
const pathPieces = fc.array(fc.constantFrom(...PATH_PIECES), { maxLength: MAX_PIECES }).map((pieces) => pieces.join(''));

/** `climbs` × "../" behind an optional first segment, then `tail`: "x/../../victim". */
function climb(climbs: fc.Arbitrary<number>, tail: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom('', 'x/', './', 'a/b/'), climbs, tail).map(([lead, depth, rest]) => `${lead}${'../'.repeat(depth)}${rest}`);
}

/**
 * Any string a hostile manifest could put in a path-forming field. Whatever climbs
 * out aims at `target` (an absolute path) or at a `victim` a few levels up; a test
 * that runs the real thing puts both inside a sentinel tree it watches, at least
 * MAX_SHORT_CLIMBS + 1 levels below its top, so that a fault lands where it is seen
 * and never on the host.
 */
export function hostilePathStrings(target = '/tmp/victim'): fc.Arbitrary<string> {
  const relativeTarget = target.replace(/^\/+/, '');
  return fc.oneof(
    { weight: 4, arbitrary: pathPieces },
    { weight: 2, arbitrary: climb(fc.integer({ min: 1, max: MAX_SHORT_CLIMBS }), fc.constantFrom('victim', 'victim/keep', '', 'x')) },
    { weight: 2, arbitrary: climb(fc.constant(TO_ROOT_CLIMBS), fc.constantFrom(relativeTarget, `${relativeTarget}/keep`)) },
    { weight: 1, arbitrary: fc.constantFrom('/', target, `${target}/keep`, '.', '..', '', '\0', 'a\0b', '../', './..', 'a/..', '..a', '...') },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).filter((text) => !/\.\.|^\//.test(text)) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }).filter((text) => !/\.\.|^\//.test(text)) },
    { weight: 1, arbitrary: fc.integer({ min: 200, max: 5_000 }).map((length) => 'a'.repeat(length)) },
  );
}

/** The hostile strings for tests that build paths without touching the disk. */
export const hostilePathString = hostilePathStrings();
