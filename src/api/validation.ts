// Validation of a Deployment spec with upstream's field paths and messages
// (ValidateDeploymentSpec, ValidateDeploymentStrategy, ValidateRollingUpdateDeployment).
// The CRD schema rejects most of these at apply time; this is the engine's own guard for objects
// that reached it anyway (an older CRD, `pacer plan` input), surfaced as the InvalidSpec condition.

import type { Deployment } from './types.ts';

export type FieldErrorType = 'Required' | 'Invalid' | 'NotSupported' | 'Forbidden';

export interface FieldError {
  /** Field path, e.g. "spec.strategy.rollingUpdate.maxUnavailable". */
  field: string;
  type: FieldErrorType;
  /** The offending value, when there is one (printed like upstream: strings quoted). */
  value?: unknown;
  /** Upstream's detail, e.g. "may not be 0 when `maxSurge` is 0". */
  detail: string;
}

/**
 * Every problem with `d` (defaults already applied), in field order. `old` is the stored object on
 * update, for immutable fields (spec.selector).
 */
export function validateDeployment(d: Deployment, old?: Deployment): FieldError[] {
  void d;
  void old;
  return []; // TODO(api): implemented in the API work package.
}

/** One error as upstream prints it: `spec.replicas: Invalid value: -1: must be greater than or equal to 0`. */
export function formatFieldError(e: FieldError): string {
  switch (e.type) {
    case 'Required':
      return `${e.field}: Required value${e.detail ? `: ${e.detail}` : ''}`;
    case 'NotSupported':
      return `${e.field}: Unsupported value: ${JSON.stringify(e.value)}${e.detail ? `: ${e.detail}` : ''}`;
    case 'Forbidden':
      return `${e.field}: Forbidden: ${e.detail}`;
    case 'Invalid':
    default:
      return `${e.field}: Invalid value: ${JSON.stringify(e.value)}: ${e.detail}`;
  }
}
