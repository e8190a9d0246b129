// The vocabulary of spec validation, shared by validation.ts and the per-strategy rules in
// strategies/ (which validation.ts imports, so they cannot import it back): the FieldError record
// and the apimachinery message helpers both use.

export type FieldErrorType = 'Required' | 'Invalid' | 'NotSupported' | 'Forbidden' | 'Duplicate';

export interface FieldError {
  /** Field path, e.g. "spec.strategy.rollingUpdate.maxUnavailable". */
  field: string;
  type: FieldErrorType;
  /**
   * The offending value, when there is one, shaped as upstream reports it (maps with sorted keys,
   * the strategy as its internal Go struct), so that `formatFieldError` prints what the API server would.
   */
  value?: unknown;
  /** Upstream's detail, e.g. "may not be 0 when `maxSurge` is 0". */
  detail: string;
}

/** apimachinery's RegexError: the message, then the examples and the regex in parentheses. */
export function regexError(msg: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${format}')`;
  // Upstream writes "'a', " per example and " or " between them: hence the double space.
  const listed = examples.map((e, i) => `${i > 0 ? ' or ' : ''}'${e}', `).join('');
  return `${msg} (e.g. ${listed}regex used for validation is '${format}')`;
}

export const NON_NEGATIVE = 'must be greater than or equal to 0';

/** The OpenAPI type name of a JSON value, for the schema-style type error. */
export function jsonTypeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'number';
  return typeof v;
}
