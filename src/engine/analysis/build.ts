// An AnalysisRun built from the templates an object names and the values it gives their arguments
// (docs/semantics/analysis.md#a-run-from-templates): the templates' metrics side by side (a metric
// name only once), their dryRun and measurementRetention entries, and every argument with a value
// (the object's, else the template's default or Secret reference). Whoever starts runs (a
// Deployment's rollout: rollout.ts; a node roll's health gate) resolves its own arguments first and
// names the fields in its errors. Pure.

import type {
  AnalysisRun,
  AnalysisTemplate,
  AnalysisTemplateRef,
  Argument,
  Metric,
  RunArgument,
} from '../../api/analysis.ts';
import { ANALYSIS_RUN_KIND } from '../../api/analysis.ts';
import { validateAnalysisTemplate } from '../../api/analysisvalidation.ts';
import type { ObjectMeta } from '../../api/types.ts';
import { API_VERSION } from '../../api/types.ts';
import { formatFieldError } from '../../api/validation.ts';

/** A template reference as the object names it, with the template when it exists. */
export interface NamedTemplate {
  ref: AnalysisTemplateRef;
  template?: AnalysisTemplate;
  /** The field of the reference, for errors: `spec.analysis.templates[0].templateName`. */
  field: string;
}

export interface RunRecipe {
  templates: readonly NamedTemplate[];
  /** The values the object gives (resolved); they win over the templates' own. */
  args: ReadonlyArray<{ name: string; value: string }>;
  /** The field of the object's arguments, for the error of one without a value: `spec.analysis.args`. */
  argsField: string;
  /** The run's metadata (name, namespace, labels, annotations, ownerReferences). */
  metadata: ObjectMeta;
  /** Every metric must have a count (the run must end by itself: it gates a step). */
  bounded?: boolean;
}

// A template is validated once per stored object (passes see the same object until it changes).
const validatedTemplates = new WeakMap<AnalysisTemplate, string>();

/** Why a stored template is invalid (its field errors, joined), or '' when it is valid. */
function templateErrors(t: AnalysisTemplate): string {
  let hit = validatedTemplates.get(t);
  if (hit === undefined) {
    hit = validateAnalysisTemplate(t).map(formatFieldError).join('; ');
    validatedTemplates.set(t, hit);
  }
  return hit;
}

/** The run the recipe makes, or why it cannot be made (with the field path of the cause). */
export function runFromTemplates(recipe: RunRecipe): { run: AnalysisRun } | { error: string } {
  const metrics: Metric[] = [];
  const args = new Map<string, Argument>();
  const dryRun: NonNullable<AnalysisRun['spec']['dryRun']> = [];
  const retention: NonNullable<AnalysisRun['spec']['measurementRetention']> = [];
  for (const { ref, template, field } of recipe.templates) {
    const kind = ref.clusterScope ? 'clusteranalysistemplates.pacer.dev' : 'analysistemplates.pacer.dev';
    const named = `${kind} ${JSON.stringify(ref.templateName)}`;
    if (!template) return { error: `${field}: Not found: ${named}` };
    // One the webhook did not see (it was down, or came later): reported here, nothing starts on it.
    const invalid = templateErrors(template);
    if (invalid) return { error: `${field}: Invalid value: ${named} is invalid: ${invalid}` };
    for (const m of template.spec?.metrics ?? []) {
      if (metrics.some((x) => x.name === m.name))
        return {
          error: `${field}: Duplicate value: metric ${JSON.stringify(m.name)} of template ${JSON.stringify(ref.templateName)} is also in an earlier template`,
        };
      if (recipe.bounded && m.count === undefined)
        return {
          error: `${field}: Invalid value: metric ${JSON.stringify(m.name)} of ${named} has no count: a run that gates a step must end by itself`,
        };
      metrics.push(m);
    }
    for (const arg of template.spec?.args ?? []) if (!args.has(arg.name)) args.set(arg.name, arg);
    dryRun.push(...(template.spec?.dryRun ?? []));
    retention.push(...(template.spec?.measurementRetention ?? []));
  }
  for (const given of recipe.args) args.set(given.name, { name: given.name, value: given.value });
  const runArgs: RunArgument[] = [];
  for (const arg of args.values()) {
    if (arg.value !== undefined) runArgs.push({ name: arg.name, value: arg.value });
    else if (arg.valueFrom?.secretKeyRef)
      runArgs.push({ name: arg.name, valueFrom: { secretKeyRef: arg.valueFrom.secretKeyRef } });
    else
      return {
        error: `${recipe.argsField}: Required value: argument ${JSON.stringify(arg.name)} of the templates has no value`,
      };
  }
  return {
    run: {
      apiVersion: API_VERSION,
      kind: ANALYSIS_RUN_KIND,
      metadata: recipe.metadata,
      spec: {
        metrics,
        ...(runArgs.length > 0 ? { args: runArgs } : {}),
        ...(dryRun.length > 0 ? { dryRun } : {}),
        ...(retention.length > 0 ? { measurementRetention: retention } : {}),
      },
    },
  };
}
