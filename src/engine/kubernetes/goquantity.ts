// A resource quantity ("500m", "1Gi", "0.5", 2) as kube-controller-manager holds it in memory: the
// fields of k8s.io/apimachinery's resource.Quantity, which go-spew prints into the pod-template-hash
// (docs/semantics/kubernetes-deployments.md#the-pod-template-hash-and-the-new-replicaset).
//
// The API server parses what the user wrote and stores the quantity's canonical text ("0.5" is stored
// as "500m", "1536Mi" as "1536Mi", "1000" as "1k"); the controller's informer parses that text again.
// So the value hashed is parse(canonical(parse(text))), and the rules reproduced here are those of
// ParseQuantity and CanonicalizeBytes in apimachinery's pkg/api/resource (v0.36): a small integer
// kept as value × 10^scale when it fits an int64 (with the text itself remembered when it is already
// canonical), anything else as an arbitrary-precision decimal rounded up to nano units.

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

/** The Go struct's fields: `i` (int64Amount) when `dec` is null, else `dec` (inf.Dec); `s` the remembered text. */
export interface GoQuantity {
  value: bigint;
  scale: number;
  dec: { unscaled: bigint; scale: number } | null;
  s: string;
  format: QuantityFormat;
}

const INT64_MAX = (1n << 63n) - 1n;
const NANO = -9;

const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIX).map(([s, e]) => [e, s]));
const BINARY_BY_EXPONENT = new Map(Object.entries(BINARY_SUFFIX).map(([s, e]) => [e, s]));

/** Why a text is not a quantity, in the words of the API server's errors, with the text. */
export class QuantityError extends Error {
  readonly reason: string;
  constructor(text: string, why: string) {
    super(`quantity ${JSON.stringify(text)}: ${why}`);
    this.name = 'QuantityError';
    this.reason = why;
  }
}

const FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

interface Parts {
  positive: boolean;
  num: string;
  denom: string;
  suffix: string;
}

/** Splits a quantity as parseQuantityString does: sign, integer digits without leading zeros, fraction digits, suffix. */
function split(str: string): Parts {
  let pos = 0;
  let positive = true;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;
  while (pos < str.length && str[pos] === '0') pos++;
  let i = pos;
  while (i < str.length && str[i] >= '0' && str[i] <= '9') i++;
  const num = str.slice(pos, i) || '0';
  let denom = '';
  if (i < str.length && str[i] === '.') {
    let j = i + 1;
    while (j < str.length && str[j] >= '0' && str[j] <= '9') j++;
    denom = str.slice(i + 1, j);
    i = j;
  }
  const suffixStart = i;
  while (i < str.length && 'eEinumkKMGTP'.includes(str[i])) i++;
  if (i < str.length && (str[i] === '-' || str[i] === '+')) i++;
  while (i < str.length && str[i] >= '0' && str[i] <= '9') i++;
  if (i < str.length) throw new QuantityError(str, FORMAT_WRONG);
  return { positive, num, denom, suffix: str.slice(suffixStart) };
}

/** The suffix's base, exponent and format (quantitySuffixer.interpret). */
function interpret(str: string, suffix: string): { base: 2 | 10; exponent: number; format: QuantityFormat } {
  if (suffix in DECIMAL_SUFFIX) return { base: 10, exponent: DECIMAL_SUFFIX[suffix], format: 'DecimalSI' };
  if (suffix in BINARY_SUFFIX) return { base: 2, exponent: BINARY_SUFFIX[suffix], format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?[0-9]+$/.test(suffix.slice(1))) {
    const exponent = Number(suffix.slice(1));
    if (Number.isSafeInteger(exponent) && exponent >= -(2 ** 31) && exponent < 2 ** 31)
      return { base: 10, exponent, format: 'DecimalExponent' };
  }
  throw new QuantityError(str, "unable to parse quantity's suffix");
}

/** |x| rounded away from zero to `scale` decimal places, given x = unscaled × 10^-fromScale. */
function roundUpTo(unscaled: bigint, fromScale: number, scale: number): bigint {
  if (fromScale <= scale) return unscaled * 10n ** BigInt(scale - fromScale);
  const divisor = 10n ** BigInt(fromScale - scale);
  const q = unscaled / divisor;
  if (unscaled % divisor === 0n) return q;
  return unscaled < 0n ? q - 1n : q + 1n;
}

/** ParseQuantity: the Go struct a text decodes to. */
export function parseGoQuantity(str: string): GoQuantity {
  if (str.length === 0) throw new QuantityError(str, FORMAT_WRONG);
  if (str === '0') return { value: 0n, scale: 0, dec: null, s: '0', format: 'DecimalSI' };
  const { positive, num, denom, suffix } = split(str);
  const { base, exponent, format } = interpret(str, suffix);

  let precision = 0;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = num + denom;
      const result = BigInt(shifted) * mantissa;
      if (result <= INT64_MAX) {
        const value = positive ? result : -result;
        // The text is remembered when it is what String() would print anyway.
        const canonical =
          format === 'BinarySI'
            ? exponent % 10 === 0 && (BigInt(shifted) & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return { value, scale, dec: null, s: canonical ? str : '', format };
      }
    }
  }

  // An arbitrary-precision decimal (inf.Dec), rounded up to nano units, capped for binary quantities.
  let unscaled = BigInt(num + denom);
  let decScale = denom.length;
  if (base === 10) decScale -= exponent;
  else unscaled *= 1n << BigInt(exponent);
  let fmt = format;
  if (unscaled !== 0n) {
    unscaled = roundUpTo(unscaled, decScale, -NANO);
    decScale = -NANO;
  }
  if (fmt === 'BinarySI' && unscaled > INT64_MAX * 10n ** BigInt(Math.max(decScale, 0))) {
    unscaled = INT64_MAX;
    decScale = 0;
  }
  if (fmt === 'BinarySI' && unscaled > 0n && unscaled < 10n ** BigInt(Math.max(decScale, 0))) fmt = 'DecimalSI';
  return {
    value: 0n,
    scale: 0,
    dec: { unscaled: positive ? unscaled : -unscaled, scale: decScale },
    s: '',
    format: fmt,
  };
}

function removeFactors(n: bigint, base: bigint): { amount: bigint; times: number } {
  let amount = n < 0n ? -n : n;
  let times = 0;
  while (amount >= base && amount % base === 0n) {
    amount /= base;
    times++;
  }
  return { amount: n < 0n ? -amount : amount, times };
}

/** String(): the remembered text, else the canonical text (CanonicalizeBytes). */
export function canonicalQuantity(q: GoQuantity): string {
  if (q.s) return q.s;
  // The value as unscaled × 10^exponent.
  const unscaled = q.dec ? q.dec.unscaled : q.value;
  const exp10 = q.dec ? -q.dec.scale : q.scale;
  if (unscaled === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    // |q| < 1024, or not an integer: printed in decimal.
    const magnitude = unscaled < 0n ? -unscaled : unscaled;
    const one = exp10 < 0 ? 10n ** BigInt(-exp10) : 1n;
    const scaled = exp10 > 0 ? magnitude * 10n ** BigInt(exp10) : magnitude;
    if (scaled < 1024n * one || scaled % one !== 0n) format = 'DecimalSI';
    else {
      const { amount, times } = removeFactors(unscaled < 0n ? -(scaled / one) : scaled / one, 1024n);
      return `${amount}${BINARY_BY_EXPONENT.get(times * 10) ?? ''}`;
    }
  }
  let { amount, times } = removeFactors(unscaled, 10n);
  let exponent = exp10 + times;
  const r = exponent % 3;
  if (r === 1 || r === -2) {
    amount *= 10n;
    exponent -= 1;
  } else if (r === 2 || r === -1) {
    amount *= 100n;
    exponent -= 2;
  }
  let suffix: string;
  if (format === 'DecimalExponent') suffix = exponent === 0 ? '' : `e${exponent}`;
  else suffix = DECIMAL_BY_EXPONENT.get(exponent) ?? '';
  return `${amount}${suffix}`;
}

/** A quantity from its JSON (a string, or a bare number) as the controller's informer holds it. */
export function informerQuantity(json: string | number): GoQuantity {
  const text = typeof json === 'number' ? String(json) : json.trim();
  return parseGoQuantity(canonicalQuantity(parseGoQuantity(text)));
}
