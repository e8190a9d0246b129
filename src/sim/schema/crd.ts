// CustomResourceDefinitions (apiextensions.k8s.io/v1): defaulting, validation with upstream's
// field paths and messages, compilation into the served form the API server routes with, and the
// status of an accepted, established CRD.

import type { KubeObject, StatusCause } from '../types.ts';
import type { ResourceInfo, Subresource } from '../resources.ts';
import type { JSONSchemaProps, PrinterColumn, ServedVersion, ValidationRule } from './types.ts';
import { additionalPropertiesSchema, isPlainObject } from './types.ts';
import { child, forbidden, index, invalid, key, notSupported, required } from './fielderrors.ts';
import { isDNS1035Label, isDNS1123Subdomain } from './names.ts';
import { compileCel } from './cel.ts';
import { validateValue } from './admit.ts';

export type { JSONSchemaProps, PrinterColumn, ServedVersion, ValidationRule } from './types.ts';

export interface CompiledCRD {
  name: string;
  group: string;
  scope: 'Namespaced' | 'Cluster';
  names: {
    plural: string;
    singular: string;
    kind: string;
    listKind: string;
    shortNames: string[];
    categories: string[];
  };
  versions: ServedVersion[];
}

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return isPlainObject(v) ? v : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

// ---------------------------------------------------------------------------------------------
// Defaults (SetDefaults_CustomResourceDefinition*)

export function defaultCRD(crd: KubeObject): KubeObject {
  const out = structuredClone(crd);
  const spec = obj(out.spec);
  out.spec = spec;
  const names = obj(spec.names);
  spec.names = names;
  const kind = str(names.kind);
  if (!names.singular && kind) names.singular = kind.toLowerCase();
  if (!names.listKind && kind) names.listKind = `${kind}List`;
  if (!isPlainObject(spec.conversion)) spec.conversion = { strategy: 'None' };
  else if (!spec.conversion.strategy) spec.conversion.strategy = 'None';
  if (Array.isArray(spec.versions)) {
    for (const v of spec.versions) {
      if (!isPlainObject(v)) continue;
      if (Array.isArray(v.additionalPrinterColumns)) {
        for (const c of v.additionalPrinterColumns) if (isPlainObject(c) && c.priority === undefined) c.priority = 0;
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Validation

const SCOPES = ['Cluster', 'Namespaced'];
const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'name', 'password'];
const RULE_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/** Every problem with a (defaulted) CRD; `old` is the stored CRD on update. */
export function validateCRD(crd: KubeObject, old?: KubeObject): StatusCause[] {
  const errs: StatusCause[] = [];
  const spec = obj(crd.spec);
  const names = obj(spec.names);
  const group = str(spec.group);
  const plural = str(names.plural);

  const name = crd.metadata?.name ?? '';
  if (!name) errs.push(required('metadata.name', 'name or generateName is required'));
  else {
    for (const msg of isDNS1123Subdomain(name)) errs.push(invalid('metadata.name', name, msg));
    if (name !== `${plural}.${group}`)
      errs.push(invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }

  if (!group) errs.push(required('spec.group'));
  else {
    const dnsErrs = isDNS1123Subdomain(group);
    if (dnsErrs.length) errs.push(invalid('spec.group', group, dnsErrs.join(',')));
    else if (group.split('.').length < 2)
      errs.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  }

  const scope = str(spec.scope);
  if (!scope) errs.push(required('spec.scope'));
  else if (!SCOPES.includes(scope)) errs.push(notSupported('spec.scope', scope, SCOPES));

  errs.push(...validateVersions(spec.versions));
  errs.push(...validateNames(names));
  errs.push(...validateConversion(spec.conversion));

  if (old) errs.push(...validateUpdate(crd, old));
  return errs;
}

function versionsSummary(versions: unknown[]): string {
  return `[${versions.map((v) => str(obj(v).name)).join(' ')}]`;
}

function validateVersions(raw: unknown): StatusCause[] {
  const errs: StatusCause[] = [];
  const versions = Array.isArray(raw) ? raw : [];
  const path = 'spec.versions';
  if (versions.length === 0) errs.push(required(path, 'must have at least one version'));
  const seen = new Set<string>();
  let unique = true;
  let storage = 0;
  let served = 0;
  versions.forEach((rv, i) => {
    const v = obj(rv);
    const vp = index(path, i);
    const vname = str(v.name);
    if (v.storage === true) storage++;
    if (v.served === true) served++;
    if (seen.has(vname)) unique = false;
    seen.add(vname);
    const nameErrs = isDNS1035Label(vname);
    if (nameErrs.length) errs.push(invalid(child(vp, 'name'), vname, nameErrs.join(',')));
    const schema = obj(v.schema).openAPIV3Schema;
    if (!isPlainObject(schema)) errs.push(required(child(vp, 'schema.openAPIV3Schema'), 'schemas are required'));
    else errs.push(...validateSchema(schema as JSONSchemaProps, child(vp, 'schema.openAPIV3Schema')));
    errs.push(...validateSubresources(v.subresources, child(vp, 'subresources')));
    const cols = Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : [];
    cols.forEach((c, j) => {
      errs.push(...validateColumn(obj(c), index(child(vp, 'additionalPrinterColumns'), j)));
    });
  });
  if (!unique) errs.push(invalid(path, versionsSummary(versions), 'must contain unique version names'));
  if (storage !== 1)
    errs.push(invalid(path, versionsSummary(versions), 'must have exactly one version marked as storage version'));
  if (versions.length > 0 && served === 0)
    errs.push(invalid(path, versionsSummary(versions), 'must have at least one served version'));
  return errs;
}

function validateNames(names: Obj): StatusCause[] {
  const errs: StatusCause[] = [];
  const p = 'spec.names';
  for (const f of ['plural', 'singular', 'kind', 'listKind']) if (!str(names[f])) errs.push(required(child(p, f)));
  for (const f of ['plural', 'singular']) {
    const v = str(names[f]);
    const e = isDNS1035Label(v);
    if (v && e.length) errs.push(invalid(child(p, f), v, e.join(',')));
  }
  for (const f of ['kind', 'listKind']) {
    const v = str(names[f]);
    const e = isDNS1035Label(v.toLowerCase());
    if (v && e.length)
      errs.push(invalid(child(p, f), v, `may have mixed case, but should otherwise match: ${e.join(',')}`));
  }
  strings(names.shortNames).forEach((s, i) => {
    const e = isDNS1035Label(s);
    if (e.length) errs.push(invalid(index(child(p, 'shortNames'), i), s, e.join(',')));
  });
  const kind = str(names.kind);
  if (kind && kind === names.listKind)
    errs.push(invalid(child(p, 'listKind'), kind, 'kind and listKind may not be the same'));
  strings(names.categories).forEach((s, i) => {
    const e = isDNS1035Label(s);
    if (e.length) errs.push(invalid(index(child(p, 'categories'), i), s, e.join(',')));
  });
  return errs;
}

function validateConversion(raw: unknown): StatusCause[] {
  if (!isPlainObject(raw)) return [];
  const strategy = str(raw.strategy);
  if (!strategy) return [required('spec.conversion.strategy')];
  if (!['None', 'Webhook'].includes(strategy))
    return [notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook'])];
  if (strategy === 'Webhook' && !isPlainObject(raw.webhook)) {
    return [required('spec.conversion.webhook', 'required when strategy is set to Webhook')];
  }
  if (strategy === 'None' && raw.webhook !== undefined) {
    return [forbidden('spec.conversion.webhook', 'should not be set when strategy is not set to Webhook')];
  }
  return [];
}

function simpleJSONPathErrors(s: string, path: string): StatusCause[] {
  if (s.length === 0) return [invalid(path, s, 'must not be empty')];
  if (s[0] !== '.') return [invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

function validateSubresources(raw: unknown, path: string): StatusCause[] {
  if (!isPlainObject(raw) || !isPlainObject(raw.scale)) return [];
  const errs: StatusCause[] = [];
  const scale = raw.scale;
  const checks: Array<[string, string[], string]> = [
    ['specReplicasPath', ['.spec.'], 'should be a json path under .spec'],
    ['statusReplicasPath', ['.status.'], 'should be a json path under .status'],
  ];
  for (const [f, prefixes, msg] of checks) {
    const p = child(path, `scale.${f}`);
    const v = str(scale[f]);
    if (!v) {
      errs.push(required(p));
      continue;
    }
    const e = simpleJSONPathErrors(v, p);
    if (e.length) errs.push(...e);
    else if (!prefixes.some((x) => v.startsWith(x))) errs.push(invalid(p, v, msg));
  }
  const sel = str(scale.labelSelectorPath);
  if (sel) {
    const p = child(path, 'scale.labelSelectorPath');
    const e = simpleJSONPathErrors(sel, p);
    if (e.length) errs.push(...e);
    else if (!sel.startsWith('.spec.') && !sel.startsWith('.status.')) {
      errs.push(invalid(p, sel, 'should be a json path under either .spec or .status'));
    }
  }
  return errs;
}

function validateColumn(c: Obj, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  if (!str(c.name)) errs.push(required(child(path, 'name')));
  const type = str(c.type);
  if (!type) errs.push(required(child(path, 'type'), `must be one of ${COLUMN_TYPES.join(',')}`));
  else if (!COLUMN_TYPES.includes(type))
    errs.push(invalid(child(path, 'type'), type, `must be one of ${COLUMN_TYPES.join(',')}`));
  const format = str(c.format);
  if (format && !COLUMN_FORMATS.includes(format)) {
    errs.push(invalid(child(path, 'format'), format, `must be one of ${COLUMN_FORMATS.join(',')}`));
  }
  const jp = str(c.jsonPath);
  if (!jp) errs.push(required(child(path, 'jsonPath')));
  else errs.push(...simpleJSONPathErrors(jp, child(path, 'jsonPath')));
  return errs;
}

function validateUpdate(crd: KubeObject, old: KubeObject): StatusCause[] {
  const errs: StatusCause[] = [];
  const spec = obj(crd.spec);
  const oldSpec = obj(old.spec);
  const immutable = (path: string, a: unknown, b: unknown): void => {
    if (a !== b) errs.push(invalid(path, a, 'field is immutable'));
  };
  immutable('spec.group', spec.group, oldSpec.group);
  immutable('spec.names.plural', obj(spec.names).plural, obj(oldSpec.names).plural);
  const established = (Array.isArray(obj(old.status).conditions) ? (obj(old.status).conditions as unknown[]) : []).some(
    (c) => obj(c).type === 'Established' && obj(c).status === 'True',
  );
  if (established) {
    immutable('spec.scope', spec.scope, oldSpec.scope);
    immutable('spec.names.kind', obj(spec.names).kind, obj(oldSpec.names).kind);
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Structural schema (ValidateStructural and the v1 OpenAPI restrictions)

type Level = 'root' | 'item' | 'field';

function validateSchema(s: JSONSchemaProps, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  schemaNode(s, path, 'root', errs);
  return errs;
}

const UNSUPPORTED: Array<[string, string]> = [
  ['id', 'id is not supported'],
  ['additionalItems', 'additionalItems is not supported'],
  ['patternProperties', 'patternProperties is not supported'],
  ['definitions', 'definitions is not supported'],
  ['dependencies', 'dependencies is not supported'],
  ['$ref', '$ref is not supported'],
];

function isIntOrStringAnyOf(branches: JSONSchemaProps[] | undefined): boolean {
  return (
    branches?.length === 2 &&
    branches[0]?.type === 'integer' &&
    branches[1]?.type === 'string' &&
    Object.keys(branches[0]!).length === 1 &&
    Object.keys(branches[1]!).length === 1
  );
}

function schemaNode(s: JSONSchemaProps, path: string, level: Level, errs: StatusCause[]): void {
  if (!isPlainObject(s)) {
    errs.push(invalid(path, s, 'must be a schema object'));
    return;
  }
  for (const [f, msg] of UNSUPPORTED) if (s[f] !== undefined) errs.push(forbidden(child(path, f), msg));
  if (s.type === 'null') errs.push(forbidden(child(path, 'type'), 'type cannot be set to null'));
  if (Array.isArray(s.items))
    errs.push(forbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  if (s.uniqueItems === true) {
    errs.push(
      forbidden(
        child(path, 'uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  }
  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (preserve === false)
    errs.push(invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  if (intOrString && preserve) {
    errs.push(
      invalid(
        child(path, 'x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  if (intOrString && embedded) {
    errs.push(
      invalid(
        child(path, 'x-kubernetes-embedded-resource'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }

  // properties and additionalProperties
  const props = isPlainObject(s.properties) ? s.properties : undefined;
  if (s.additionalProperties !== undefined) {
    if (
      props &&
      Object.keys(props).length > 0 &&
      (s.additionalProperties === false || isPlainObject(s.additionalProperties))
    ) {
      errs.push(
        forbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'),
      );
    }
    if (level === 'root') errs.push(forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    if (embedded)
      errs.push(
        forbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'),
      );
    const add = additionalPropertiesSchema(s);
    if (add) schemaNode(add, child(path, 'additionalProperties'), 'field', errs);
  }

  // type
  if (embedded && s.type !== 'object') {
    if (!s.type) errs.push(required(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(invalid(child(path, 'type'), s.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!s.type && !intOrString && preserve !== true) {
    const detail =
      level === 'root'
        ? 'must not be empty at the root'
        : level === 'item'
          ? 'must not be empty for specified array items'
          : 'must not be empty for specified object fields';
    errs.push(required(child(path, 'type'), detail));
  }
  if (level === 'root' && s.type && s.type !== 'object')
    errs.push(invalid(child(path, 'type'), s.type, 'must be object at the root'));
  if (s.type === 'array' && s.items === undefined) errs.push(required(child(path, 'items'), 'must be specified'));
  if (embedded && preserve !== true && (!props || Object.keys(props).length === 0)) {
    errs.push(
      required(
        child(path, 'properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }

  // apiVersion, kind and metadata at a resource root
  if (props && (level === 'root' || embedded)) {
    if (props.kind && props.kind.type !== 'string')
      errs.push(
        invalid(child(key(child(path, 'properties'), 'kind'), 'type'), props.kind.type ?? '', 'must be string'),
      );
    if (props.apiVersion && props.apiVersion.type !== 'string') {
      errs.push(
        invalid(
          child(key(child(path, 'properties'), 'apiVersion'), 'type'),
          props.apiVersion.type ?? '',
          'must be string',
        ),
      );
    }
    if (props.metadata && props.metadata.type !== 'object') {
      errs.push(
        invalid(child(key(child(path, 'properties'), 'metadata'), 'type'), props.metadata.type ?? '', 'must be object'),
      );
    }
  }
  if (props?.metadata && level === 'root' && !metadataIsNameOnly(props.metadata)) {
    errs.push(
      forbidden(
        key(child(path, 'properties'), 'metadata'),
        'must not specify anything other than name and generateName, but metadata is implicitly specified',
      ),
    );
  }

  if (s.pattern !== undefined) {
    try {
      new RegExp(s.pattern, 'u');
    } catch (e) {
      errs.push(
        invalid(
          child(path, 'pattern'),
          s.pattern,
          `must be a valid regular expression, but isn't: ${(e as Error).message}`,
        ),
      );
    }
  }

  // value validations (anyOf, allOf, oneOf, not) may not specify structure
  const skipAnyOf = intOrString && isIntOrStringAnyOf(s.anyOf);
  if (!skipAnyOf)
    (s.anyOf ?? []).forEach((x, i) => {
      nestedValueValidation(x, index(child(path, 'anyOf'), i), errs);
    });
  (s.allOf ?? []).forEach((x, i) => {
    const skip = i === 0 && intOrString && isIntOrStringAnyOf(x.anyOf);
    nestedValueValidation(skip ? { ...x, anyOf: undefined } : x, index(child(path, 'allOf'), i), errs);
  });
  (s.oneOf ?? []).forEach((x, i) => {
    nestedValueValidation(x, index(child(path, 'oneOf'), i), errs);
  });
  if (s.not) nestedValueValidation(s.not, child(path, 'not'), errs);

  validateListType(s, path, errs);
  validateRules(s, path, errs);
  if (s.default !== undefined) {
    const dp = child(path, 'default');
    errs.push(...validateValue(s.default, s, dp));
  }

  if (props) {
    for (const k of Object.keys(props)) {
      // the root's metadata was checked above; its name/generateName constraints are value validations
      if (level === 'root' && k === 'metadata') continue;
      schemaNode(props[k]!, key(child(path, 'properties'), k), 'field', errs);
    }
  }
  if (s.items && !Array.isArray(s.items)) schemaNode(s.items, child(path, 'items'), 'item', errs);
}

function metadataIsNameOnly(m: JSONSchemaProps): boolean {
  const allowed = new Set(['type', 'properties']);
  if (Object.keys(m).some((k) => !allowed.has(k))) return false;
  const props = m.properties ?? {};
  return Object.keys(props).every((k) => k === 'name' || k === 'generateName');
}

function nestedValueValidation(s: JSONSchemaProps, path: string, errs: StatusCause[]): void {
  if (!isPlainObject(s)) return;
  if (s.type) errs.push(forbidden(child(path, 'type'), 'must be empty to be structural'));
  if (s.additionalProperties !== undefined)
    errs.push(forbidden(child(path, 'additionalProperties'), 'must be undefined to be structural'));
  if (s.default !== undefined) errs.push(forbidden(child(path, 'default'), 'must be undefined to be structural'));
  if (s.title) errs.push(forbidden(child(path, 'title'), 'must be empty to be structural'));
  if (s.description) errs.push(forbidden(child(path, 'description'), 'must be empty to be structural'));
  if (s.nullable) errs.push(forbidden(child(path, 'nullable'), 'must be false to be structural'));
  for (const x of [
    'x-kubernetes-preserve-unknown-fields',
    'x-kubernetes-embedded-resource',
    'x-kubernetes-int-or-string',
  ]) {
    if (s[x]) errs.push(forbidden(child(path, x), 'must be false to be structural'));
  }
  if (s['x-kubernetes-list-map-keys']?.length)
    errs.push(forbidden(child(path, 'x-kubernetes-list-map-keys'), 'must be empty to be structural'));
  if (s['x-kubernetes-list-type'] !== undefined)
    errs.push(forbidden(child(path, 'x-kubernetes-list-type'), 'must be undefined to be structural'));
  if (s.properties?.metadata)
    errs.push(forbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  (s.anyOf ?? []).forEach((x, i) => {
    nestedValueValidation(x, index(child(path, 'anyOf'), i), errs);
  });
  (s.allOf ?? []).forEach((x, i) => {
    nestedValueValidation(x, index(child(path, 'allOf'), i), errs);
  });
  (s.oneOf ?? []).forEach((x, i) => {
    nestedValueValidation(x, index(child(path, 'oneOf'), i), errs);
  });
  if (s.not) nestedValueValidation(s.not, child(path, 'not'), errs);
  if (s.items && !Array.isArray(s.items)) nestedValueValidation(s.items, child(path, 'items'), errs);
  for (const [k, v] of Object.entries(s.properties ?? {}))
    nestedValueValidation(v, key(child(path, 'properties'), k), errs);
}

function validateListType(s: JSONSchemaProps, path: string, errs: StatusCause[]): void {
  const lt = s['x-kubernetes-list-type'];
  if (lt === undefined) {
    if (s['x-kubernetes-list-map-keys'] !== undefined) {
      errs.push(
        forbidden(child(path, 'x-kubernetes-list-map-keys'), 'must not be set if x-kubernetes-list-type is not map'),
      );
    }
    return;
  }
  if (s.type !== 'array') {
    errs.push(invalid(child(path, 'x-kubernetes-list-type'), lt, 'must only be used if type == array'));
    return;
  }
  if (!['atomic', 'map', 'set'].includes(lt)) {
    errs.push(notSupported(child(path, 'x-kubernetes-list-type'), lt, ['atomic', 'map', 'set']));
    return;
  }
  const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
  if (lt === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    if (keys.length === 0) {
      errs.push(
        required(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'),
      );
    }
    if (items && items.type !== 'object') {
      errs.push(
        invalid(
          child(child(path, 'items'), 'type'),
          items.type ?? '',
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    } else if (items) {
      keys.forEach((k, i) => {
        const ks = items.properties?.[k];
        if (!ks)
          errs.push(
            invalid(
              index(child(path, 'x-kubernetes-list-map-keys'), i),
              k,
              'entries must all be names of item properties',
            ),
          );
        else if (!(items.required ?? []).includes(k) && ks.default === undefined) {
          errs.push(
            required(
              child(key(child(child(path, 'items'), 'properties'), k), 'default'),
              'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
            ),
          );
        }
      });
    }
  } else if (s['x-kubernetes-list-map-keys'] !== undefined) {
    errs.push(
      forbidden(child(path, 'x-kubernetes-list-map-keys'), 'must not be set if x-kubernetes-list-type is not map'),
    );
  }
}

function validateRules(s: JSONSchemaProps, path: string, errs: StatusCause[]): void {
  const rules = s['x-kubernetes-validations'];
  if (rules === undefined) return;
  const rp = child(path, 'x-kubernetes-validations');
  if (!Array.isArray(rules)) {
    errs.push(invalid(rp, rules, 'must be a list of rules'));
    return;
  }
  rules.forEach((raw: ValidationRule, i) => {
    const p = index(rp, i);
    const r = obj(raw) as unknown as ValidationRule;
    if (!str(r.rule)) errs.push(required(child(p, 'rule')));
    else {
      const c = compileCel(r.rule);
      if (!c.ok) errs.push(invalid(child(p, 'rule'), r.rule, `compilation failed: ${c.error}`));
    }
    if (r.message !== undefined) {
      if (/[\r\n]/.test(r.message))
        errs.push(invalid(child(p, 'message'), r.message, 'message must not contain line breaks'));
      else if (r.message.trim() === '')
        errs.push(invalid(child(p, 'message'), r.message, 'message must be non-empty if specified'));
    }
    if (r.messageExpression !== undefined) {
      if (r.messageExpression.trim() === '') {
        errs.push(required(child(p, 'messageExpression'), 'messageExpression must be non-empty if specified'));
      } else {
        const c = compileCel(r.messageExpression);
        if (!c.ok)
          errs.push(
            invalid(
              child(p, 'messageExpression'),
              r.messageExpression,
              `messageExpression compilation failed: ${c.error}`,
            ),
          );
      }
    }
    if (r.reason !== undefined && !RULE_REASONS.includes(r.reason))
      errs.push(notSupported(child(p, 'reason'), r.reason, RULE_REASONS));
    if (r.fieldPath !== undefined && !fieldPathResolves(s, r.fieldPath)) {
      errs.push(invalid(child(p, 'fieldPath'), r.fieldPath, 'fieldPath must be a valid path'));
    }
  });
}

/** Whether a rule's fieldPath (`.spec.replicas`, `['a.b']`, `[0]`) names a node of the schema. */
function fieldPathResolves(s: JSONSchemaProps, fieldPath: string): boolean {
  const re = /\.([A-Za-z_$][\w$-]*)|\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]/gy;
  let node: JSONSchemaProps | undefined = s;
  let consumed = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(fieldPath)) !== null) {
    consumed = re.lastIndex;
    if (!node) return false;
    if (m[3] !== undefined) {
      node = node.items && !Array.isArray(node.items) ? node.items : undefined;
    } else {
      const k: string = m[1] ?? m[2]!;
      node = node.properties?.[k] ?? additionalPropertiesSchema(node);
    }
  }
  return fieldPath.length > 0 && consumed === fieldPath.length && node !== undefined;
}

// ---------------------------------------------------------------------------------------------
// Compilation, status, resource description

function compileColumns(raw: unknown): PrinterColumn[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isPlainObject).map((c) => ({
    name: str(c.name),
    type: str(c.type),
    ...(c.format ? { format: str(c.format) } : {}),
    ...(c.description ? { description: str(c.description) } : {}),
    priority: typeof c.priority === 'number' ? c.priority : 0,
    jsonPath: str(c.jsonPath),
  }));
}

function compileSubresources(raw: unknown): ServedVersion['subresources'] {
  const out: ServedVersion['subresources'] = {};
  if (!isPlainObject(raw)) return out;
  if (raw.status !== undefined && raw.status !== null) out.status = {};
  if (isPlainObject(raw.scale)) {
    out.scale = {
      specReplicasPath: str(raw.scale.specReplicasPath),
      statusReplicasPath: str(raw.scale.statusReplicasPath),
    };
    if (raw.scale.labelSelectorPath) out.scale.labelSelectorPath = str(raw.scale.labelSelectorPath);
  }
  return out;
}

/** The served form of a valid, defaulted CRD. */
export function compileCRD(crd: KubeObject): CompiledCRD {
  const spec = obj(crd.spec);
  const names = obj(spec.names);
  const kind = str(names.kind);
  const versions = (Array.isArray(spec.versions) ? spec.versions : []).filter(isPlainObject).map((v): ServedVersion => {
    const schema = obj(v.schema).openAPIV3Schema;
    return {
      name: str(v.name),
      served: v.served === true,
      storage: v.storage === true,
      schema: isPlainObject(schema)
        ? (schema as JSONSchemaProps)
        : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      subresources: compileSubresources(v.subresources),
      additionalPrinterColumns: compileColumns(v.additionalPrinterColumns),
    };
  });
  return {
    name: crd.metadata.name ?? '',
    group: str(spec.group),
    scope: spec.scope === 'Cluster' ? 'Cluster' : 'Namespaced',
    names: {
      plural: str(names.plural),
      singular: str(names.singular) || kind.toLowerCase(),
      kind,
      listKind: str(names.listKind) || `${kind}List`,
      shortNames: strings(names.shortNames),
      categories: strings(names.categories),
    },
    versions,
  };
}

function condition(
  type: string,
  status: 'True' | 'False',
  reason: string,
  message: string,
  nowIso: string,
  previous: unknown[],
): Obj {
  const prev = previous.map(obj).find((c) => c.type === type);
  const lastTransitionTime =
    prev && prev.status === status && typeof prev.lastTransitionTime === 'string' ? prev.lastTransitionTime : nowIso;
  return { type, status, lastTransitionTime, reason, message };
}

/** The first name of `crd` another CRD of the same group already uses, as [reason, message]. */
function nameConflict(crd: CompiledCRD, others: CompiledCRD[]): [string, string] | undefined {
  const rivals = others.filter((o) => o.group === crd.group && o.name !== crd.name);
  const n = crd.names;
  for (const o of rivals) {
    const used = [o.names.plural, o.names.singular, ...o.names.shortNames];
    if (used.includes(n.plural)) return ['PluralConflict', `"${n.plural}" is already in use`];
    if (n.singular && used.includes(n.singular)) return ['SingularConflict', `"${n.singular}" is already in use`];
    const short = n.shortNames.find((x) => used.includes(x));
    if (short) return ['ShortNamesConflict', `"${short}" is already in use`];
    if (o.names.kind === n.kind) return ['KindConflict', `"${n.kind}" is already in use`];
    if (o.names.listKind === n.listKind) return ['ListKindConflict', `"${n.listKind}" is already in use`];
  }
  return undefined;
}

/**
 * The status of an accepted and established CRD: acceptedNames, storedVersions, conditions.
 * With `others` (the other CRDs already established), names another CRD of the group uses are not
 * accepted: NamesAccepted=False and, for a CRD not yet established, Established=False (not served).
 */
export function establishedStatus(
  crd: KubeObject,
  nowIso: string,
  others: CompiledCRD[] = [],
): Record<string, unknown> {
  const compiled = compileCRD(crd);
  const status = obj(crd.status);
  const n = compiled.names;
  const storedVersions = strings(status.storedVersions);
  const storage = compiled.versions.find((v) => v.storage)?.name;
  if (storage && !storedVersions.includes(storage)) storedVersions.push(storage);
  const previous = Array.isArray(status.conditions) ? status.conditions : [];
  const conflict = nameConflict(compiled, others);
  if (conflict) {
    const wasEstablished = previous.map(obj).some((c) => c.type === 'Established' && c.status === 'True');
    return {
      conditions: [
        condition('NamesAccepted', 'False', conflict[0], conflict[1], nowIso, previous),
        wasEstablished
          ? condition(
              'Established',
              'True',
              'InitialNamesAccepted',
              'the initial names have been accepted',
              nowIso,
              previous,
            )
          : condition('Established', 'False', 'NotAccepted', 'not all names are accepted', nowIso, previous),
      ],
      acceptedNames: isPlainObject(status.acceptedNames) ? status.acceptedNames : { plural: '', kind: '' },
      storedVersions,
    };
  }
  const acceptedNames: Obj = { plural: n.plural, singular: n.singular, kind: n.kind, listKind: n.listKind };
  if (n.shortNames.length) acceptedNames.shortNames = n.shortNames;
  if (n.categories.length) acceptedNames.categories = n.categories;
  const conditions = [
    condition('NamesAccepted', 'True', 'NoConflicts', 'no conflicts found', nowIso, previous),
    condition('Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted', nowIso, previous),
  ];
  return { conditions, acceptedNames, storedVersions };
}

/** How routing, discovery and the printers see one served version of a CRD. */
export function resourceInfoFor(compiled: CompiledCRD, version: ServedVersion): ResourceInfo {
  const subresources: Subresource[] = [];
  if (version.subresources.status) subresources.push('status');
  if (version.subresources.scale) subresources.push('scale');
  return {
    group: compiled.group,
    version: version.name,
    resource: compiled.names.plural,
    singular: compiled.names.singular,
    kind: compiled.names.kind,
    listKind: compiled.names.listKind,
    namespaced: compiled.scope === 'Namespaced',
    shortNames: [...compiled.names.shortNames],
    categories: [...compiled.names.categories],
    // In the order apiextensions-apiserver's discovery lists them (kubectl api-resources -o wide shows it).
    verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
    subresources,
    hasGeneration: true,
    statusSubresource: version.subresources.status !== undefined,
    ...(version.subresources.scale ? { scale: { ...version.subresources.scale } } : {}),
    // The custom resource store upstream leaves ReturnDeletedObject unset: an object deleted at
    // once is answered with a Status (one that waits for finalizers, with the object).
    returnDeletedObject: false,
  };
}
