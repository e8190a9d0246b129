// A run's arguments in its metrics (docs/semantics/analysis.md#providers): every `{{args.NAME}}`
// (or `{{ args.NAME }}`) in any string of a metric's provider, at any depth (a Prometheus query and
// address, a web call's URL, header values, body and jsonPath, a Job's whole spec) is replaced by the
// argument's value. An argument the run does not know is an error naming it and the field it is in,
// never an empty string that would send a different query.

import type { Metric } from '../../../api/analysis.ts';

/** `{{args.NAME}}`, spaces allowed inside the braces; NAME as a template argument's name may be spelled. */
const PLACEHOLDER = /\{\{\s*args\.([A-Za-z0-9_.-]+?)\s*\}\}/g;

function substituteString(s: string, args: Record<string, string>, metric: string, field: string): string {
  return s.replace(PLACEHOLDER, (whole, name: string) => {
    if (!Object.hasOwn(args, name))
      throw new Error(
        `metric ${JSON.stringify(metric)}: ${field}: argument ${JSON.stringify(name)} has no value (${whole})`,
      );
    return args[name];
  });
}

function substitute(v: unknown, args: Record<string, string>, metric: string, field: string): unknown {
  if (typeof v === 'string') return substituteString(v, args, metric, field);
  if (Array.isArray(v)) return v.map((x, i) => substitute(x, args, metric, `${field}[${i}]`));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = substitute(x, args, metric, `${field}.${k}`);
    return out;
  }
  return v;
}

/**
 * The metric with every `{{args.NAME}}` in its provider replaced by `args[NAME]` (a new object; the
 * metric given is not changed). Throws an Error naming the argument and the field when NAME has no value.
 */
export function substituteArgs(metric: Metric, args: Record<string, string>): Metric {
  return {
    ...metric,
    provider: substitute(metric.provider, args, metric.name, 'provider') as Metric['provider'],
  };
}
