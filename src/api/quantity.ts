// Kubernetes resource quantities ("500m", "2", "16Gi", "1e3", "128974848") as numbers: the
// serialization rules of k8s.io/apimachinery's resource.Quantity (a signed decimal number, then a
// binary suffix Ki..Ei, a decimal suffix n, u, m, k, M, G, T, P, E, or a decimal exponent e/E),
// https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/. A number is
// exact enough for capacity arithmetic (sums of requests against allocatable).

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/** The quantity's value, or undefined when the text is not a quantity. */
export function parseQuantity(text: string | number | undefined): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) ? text : undefined;
  if (text === undefined) return undefined;
  const m = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE]?))$/.exec(
    text.trim(),
  );
  if (!m) return undefined;
  const n = Number(m[1]);
  if (m[2] !== undefined) return n * 10 ** Number(m[2].slice(1));
  if (m[3] !== undefined) return n * BINARY[m[3]];
  return n * DECIMAL[m[4] ?? ''];
}
