// Kubernetes resource quantities ("100m", "0.5", "128Mi", "1G", "1e3"), as
// apimachinery's resource.ParseQuantity reads them. Values are kept as exact
// rationals (bigint numerator / denominator) so "0.1" CPU is 100 millicores, not
// 100.00000000000001, and rounding goes up the way Quantity.Value() and
// Quantity.MilliValue() round.
import { ErrorCodes, ShardletError } from './errors.js';

/** A quantity as written in a manifest: YAML may give a bare number (`cpu: 1`). */
export type QuantityInput = string | number;

interface Rational {
  numerator: bigint;
  denominator: bigint;
}

const QUANTITY_PATTERN = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE])?$/;

/** Powers of 1024 for the binary SI suffixes. */
const BINARY_SUFFIX_POWER: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };

/** Powers of ten for the decimal SI suffixes. */
const DECIMAL_SUFFIX_EXPONENT: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

/** Parses a quantity to an exact rational; throws SHARDLET_MANIFEST_INVALID on bad syntax. */
function parseRational(input: QuantityInput): Rational {
  // String(1e21) is "1e+21" and String(1e-7) is "1e-7": both valid exponent forms.
  const text = String(input).trim();
  const match = QUANTITY_PATTERN.exec(text);
  if (!match) {
    throw new ShardletError(ErrorCodes.MANIFEST_INVALID, `invalid resource quantity ${JSON.stringify(input)}`, {
      quantity: input,
    });
  }
  const [, sign, digits, suffix = ''] = match;
  const [whole, fraction = ''] = digits.split('.');
  let numerator = BigInt((whole || '0') + fraction);
  let denominator = 10n ** BigInt(fraction.length);
  if (suffix in BINARY_SUFFIX_POWER) {
    numerator *= 1024n ** BigInt(BINARY_SUFFIX_POWER[suffix]);
  } else {
    const exponent = suffix in DECIMAL_SUFFIX_EXPONENT ? DECIMAL_SUFFIX_EXPONENT[suffix] : Number(suffix.slice(1));
    if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
    else denominator *= 10n ** BigInt(-exponent);
  }
  return { numerator: sign === '-' ? -numerator : numerator, denominator };
}

/** value × scale, rounded away from zero as inf.Dec's RoundUp (what Quantity.Value() uses). */
function scaledCeil(rational: Rational, scale: bigint): number {
  const scaled = rational.numerator * scale;
  const magnitude = scaled < 0n ? -scaled : scaled;
  let quotient = magnitude / rational.denominator;
  if (quotient * rational.denominator !== magnitude) quotient += 1n;
  return Number(scaled < 0n ? -quotient : quotient);
}

/** CPU in millicores, as Quantity.MilliValue(): "100m" → 100, "0.5" → 500, "1" → 1000. */
export function parseCpuMillis(quantity: QuantityInput): number {
  return scaledCeil(parseRational(quantity), 1000n);
}

/** Bytes (or any plain count), as Quantity.Value(): "128Mi" → 134217728, "1G" → 1e9. */
export function parseBytes(quantity: QuantityInput): number {
  return scaledCeil(parseRational(quantity), 1n);
}

/** True when the text is a well-formed quantity. */
export function isValidQuantity(quantity: QuantityInput): boolean {
  try {
    parseRational(quantity);
    return true;
  } catch {
    return false;
  }
}
