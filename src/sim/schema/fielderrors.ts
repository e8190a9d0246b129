// apimachinery's field.Error as StatusCauses: the path syntax (`spec.containers[0].name`,
// `properties[spec]`), the error type strings ("Invalid value", "Required value", ...), the cause
// reasons and the way a bad value is printed (strings quoted, numbers bare, Go's %#v for the rest).

import type { StatusCause } from '../types.ts';

export function child(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}

export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}

/** Go's %#v for JSON values, as field.Error prints values that are neither strings nor numbers. */
function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  const entries = Object.keys(v as object)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${goSyntax((v as Record<string, unknown>)[k])}`);
  return `map[string]interface {}{${entries.join(', ')}}`;
}

/** How field.Error renders a bad value: `"x"`, `-1`, `true`, `"null"` for nil. */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return '"null"';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return goSyntax(v);
}

function cause(reason: string, field: string, message: string): StatusCause {
  return { reason, message, field };
}

function withDetail(head: string, detail?: string): string {
  return detail ? `${head}: ${detail}` : head;
}

export function required(field: string, detail?: string): StatusCause {
  return cause('FieldValueRequired', field, withDetail('Required value', detail));
}

/**
 * A bad value field.Error leaves out (apimachinery's omitValue): printed as the error type alone,
 * `spec.obj: Invalid value: <detail>`. A CRD's validation rule on an object or a list reports so.
 */
export const OMITTED: unique symbol = Symbol('omitted value');

export function invalid(field: string, value: unknown, detail?: string): StatusCause {
  const head = value === OMITTED ? 'Invalid value' : `Invalid value: ${formatValue(value)}`;
  return cause('FieldValueInvalid', field, withDetail(head, detail));
}

export function typeInvalid(field: string, value: unknown, detail?: string): StatusCause {
  return cause('FieldValueTypeInvalid', field, withDetail(`Invalid value: ${formatValue(value)}`, detail));
}

export function notSupported(field: string, value: unknown, valid: unknown[]): StatusCause {
  const quoted = valid.map((x) => JSON.stringify(typeof x === 'string' ? x : formatPlain(x)));
  return cause(
    'FieldValueNotSupported',
    field,
    withDetail(
      `Unsupported value: ${formatValue(value)}`,
      quoted.length ? `supported values: ${quoted.join(', ')}` : '',
    ),
  );
}

export function forbidden(field: string, detail?: string): StatusCause {
  return cause('FieldValueForbidden', field, withDetail('Forbidden', detail));
}

export function duplicate(field: string, value: unknown): StatusCause {
  return cause(
    'FieldValueDuplicate',
    field,
    value === OMITTED ? 'Duplicate value' : `Duplicate value: ${formatValue(value)}`,
  );
}

export function tooLong(field: string, max: number): StatusCause {
  return cause('FieldValueTooLong', field, `Too long: may not be longer than ${max}`);
}

export function tooMany(field: string, actual: number, max: number): StatusCause {
  return cause(
    'FieldValueTooMany',
    field,
    `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`,
  );
}

/** fmt.Sprint of a JSON value (enum values, jsonpath cells): `map[a:1]`, `[a b]`. */
export function formatPlain(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v !== 'object') return String(v);
  if (Array.isArray(v)) return `[${v.map(formatPlain).join(' ')}]`;
  const o = v as Record<string, unknown>;
  return `map[${Object.keys(o)
    .sort()
    .map((k) => `${k}:${formatPlain(o[k])}`)
    .join(' ')}]`;
}

/** `field: message` as kubectl and the Status message print one cause. */
export function causeString(c: StatusCause): string {
  return c.field ? `${c.field}: ${c.message}` : c.message;
}
