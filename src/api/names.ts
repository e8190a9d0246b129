// The names and label values of the API, with apimachinery's util/validation wording
// (IsDNS1123Subdomain, IsDNS1123Label, IsQualifiedName, IsValidLabelValue): shared by a Deployment's
// validation (validation.ts, which re-exports them), a NodeRoll's and the analysis resources'
// (analysisvalidation.ts, which validation.ts imports: hence a module of their own).

import { regexError } from './fielderrors.ts';

const maxLenError = (n: number): string => `must be no more than ${n} characters`;
const EMPTY_ERROR = 'must be non-empty';

const QUALIFIED_NAME_FORMAT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FORMAT}$`);
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MAX = 63;

const LABEL_VALUE_FORMAT = `(${QUALIFIED_NAME_FORMAT})?`;
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FORMAT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MAX = 63;

const DNS1123_SUBDOMAIN_FORMAT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FORMAT}$`);
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MAX = 253;

const DNS1123_LABEL_FORMAT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FORMAT}$`);
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL_MAX = 63;

/** IsDNS1123Subdomain: an object name such as a Deployment's. */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!DNS1123_SUBDOMAIN.test(value))
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FORMAT, 'example.com'));
  return errs;
}

/** IsDNS1123Label: a namespace name. */
export function dns1123LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!DNS1123_LABEL.test(value)) errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FORMAT, 'my-name', '123-abc'));
  return errs;
}

/** IsQualifiedName: a label key such as "app" or "example.com/tier". */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else {
      if (prefix.length > DNS1123_SUBDOMAIN_MAX) errs.push(`prefix part ${maxLenError(DNS1123_SUBDOMAIN_MAX)}`);
      if (!DNS1123_SUBDOMAIN.test(prefix)) {
        errs.push(`prefix part ${regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FORMAT, 'example.com')}`);
      }
    }
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FORMAT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (name.length > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!QUALIFIED_NAME.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FORMAT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** IsValidLabelValue: empty, or at most 63 characters of the qualified-name alphabet. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!LABEL_VALUE.test(value))
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FORMAT, 'MyValue', 'my_value', '12345'));
  return errs;
}
