import { expect } from 'chai';
import { validateDeployment, formatFieldError, PERCENT_ERROR } from '../../../src/api/validation.ts';
import { withDefaults } from '../../../src/api/defaults.ts';
import type { Deployment } from '../../../src/api/types.ts';

/** A valid web Deployment; each row changes one thing. */
function web(): Deployment {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web', tier: 'front' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
      },
    },
  };
}

type Change = (d: Deployment) => void;

const PERCENT = PERCENT_ERROR;

// Each row: what the user wrote, and every error upstream reports for it, as the API server prints it.
const rows: Array<{ name: string; change: Change; errors: string[] }> = [
  { name: 'a defaulted web deployment is valid', change: () => {}, errors: [] },
  {
    name: 'negative replicas',
    change: (d) => {
      d.spec.replicas = -1;
    },
    errors: ['spec.replicas: Invalid value: -1: must be greater than or equal to 0'],
  },
  {
    name: 'replicas given as a string',
    change: (d) => {
      (d.spec as Record<string, unknown>).replicas = '3';
    },
    errors: ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'],
  },
  {
    name: 'negative minReadySeconds',
    change: (d) => {
      d.spec.minReadySeconds = -5;
    },
    errors: ['spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0'],
  },
  {
    name: 'revisionHistoryLimit 0 keeps no history and is valid',
    change: (d) => {
      d.spec.revisionHistoryLimit = 0;
    },
    errors: [],
  },
  {
    name: 'negative revisionHistoryLimit',
    change: (d) => {
      d.spec.revisionHistoryLimit = -1;
    },
    errors: ['spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0'],
  },
  {
    name: 'negative progressDeadlineSeconds is also not above minReadySeconds',
    change: (d) => {
      d.spec.progressDeadlineSeconds = -1;
    },
    errors: [
      'spec.progressDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0',
      'spec.progressDeadlineSeconds: Invalid value: -1: must be greater than minReadySeconds',
    ],
  },
  {
    name: 'progressDeadlineSeconds equal to minReadySeconds',
    change: (d) => {
      d.spec.minReadySeconds = 30;
      d.spec.progressDeadlineSeconds = 30;
    },
    errors: ['spec.progressDeadlineSeconds: Invalid value: 30: must be greater than minReadySeconds'],
  },
  {
    name: 'progressDeadlineSeconds one above minReadySeconds',
    change: (d) => {
      d.spec.minReadySeconds = 30;
      d.spec.progressDeadlineSeconds = 31;
    },
    errors: [],
  },
  {
    name: 'missing selector: required, and the template cannot match it',
    change: (d) => {
      delete d.spec.selector;
    },
    errors: [
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: {"app":"web","tier":"front"}: `selector` does not match template `labels`',
    ],
  },
  {
    name: 'empty selector',
    change: (d) => {
      d.spec.selector = {};
    },
    errors: ['spec.selector: Invalid value: {}: empty selector is invalid for deployment'],
  },
  {
    name: 'selector that the template labels do not satisfy',
    change: (d) => {
      d.spec.selector = { matchLabels: { app: 'api' } };
    },
    errors: [
      'spec.template.metadata.labels: Invalid value: {"app":"web","tier":"front"}: `selector` does not match template `labels`',
    ],
  },
  {
    name: 'matchExpressions are matched against the template labels too',
    change: (d) => {
      d.spec.selector = { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] };
    },
    errors: [
      'spec.template.metadata.labels: Invalid value: {"app":"web","tier":"front"}: `selector` does not match template `labels`',
    ],
  },
  {
    name: 'template without labels',
    change: (d) => {
      delete d.spec.template!.metadata;
    },
    errors: ['spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`'],
  },
  {
    name: 'In without values makes the selector unusable',
    change: (d) => {
      d.spec.selector = { matchExpressions: [{ key: 'app', operator: 'In' }] };
    },
    errors: [
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"In"}]}: invalid label selector',
    ],
  },
  {
    name: 'Exists with values',
    change: (d) => {
      d.spec.selector = { matchExpressions: [{ key: 'app', operator: 'Exists', values: ['web'] }] };
    },
    errors: [
      "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Exists","values":["web"]}]}: invalid label selector',
    ],
  },
  {
    name: 'unknown selector operator',
    change: (d) => {
      d.spec.selector = { matchExpressions: [{ key: 'app', operator: 'Like' as 'In', values: ['web'] }] };
    },
    errors: [
      'spec.selector.matchExpressions[0].operator: Invalid value: "Like": not a valid selector operator',
      'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Like","values":["web"]}]}: invalid label selector',
    ],
  },
  {
    name: 'selector label value that is not a label value',
    change: (d) => {
      d.spec.selector = { matchLabels: { app: 'web!' } };
    },
    errors: [
      "spec.selector.matchLabels: Invalid value: \"web!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      'spec.selector: Invalid value: {"matchLabels":{"app":"web!"}}: invalid label selector',
    ],
  },
  {
    name: 'template label key with an upper-case prefix',
    change: (d) => {
      d.spec.template!.metadata!.labels!['Example.com/team'] = 'a';
    },
    errors: [
      "spec.template.metadata.labels: Invalid value: \"Example.com/team\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ],
  },
  {
    name: 'template label value longer than 63 characters',
    change: (d) => {
      d.spec.template!.metadata!.labels!.team = 'a'.repeat(64);
    },
    errors: [`spec.template.metadata.labels: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`],
  },
  {
    name: 'missing template',
    change: (d) => {
      delete d.spec.template;
    },
    errors: ['spec.template: Required value'],
  },
  {
    name: 'restartPolicy Always is the only one a Deployment takes',
    change: (d) => {
      d.spec.template!.spec!.restartPolicy = 'Always';
    },
    errors: [],
  },
  {
    name: 'restartPolicy OnFailure',
    change: (d) => {
      d.spec.template!.spec!.restartPolicy = 'OnFailure';
    },
    errors: ['spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"'],
  },
  {
    name: 'activeDeadlineSeconds in the pod template',
    change: (d) => {
      d.spec.template!.spec!.activeDeadlineSeconds = 60;
    },
    errors: [
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported',
    ],
  },
  {
    name: 'unknown strategy type',
    change: (d) => {
      d.spec.strategy = { type: 'BlueGreen' };
    },
    errors: [
      'spec.strategy: Unsupported value: {"Type":"BlueGreen","RollingUpdate":null}: supported values: "MinimumHealth", "Recreate", "RollingUpdate"',
    ],
  },
  {
    name: 'Recreate alone is valid',
    change: (d) => {
      d.spec.strategy = { type: 'Recreate' };
    },
    errors: [],
  },
  {
    name: 'Recreate with rollingUpdate',
    change: (d) => {
      d.spec.strategy = { type: 'Recreate', rollingUpdate: { maxSurge: 1 } };
    },
    errors: ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"],
  },
  // MinimumHealth (Marathon's upgradeStrategy): both shares between 0.0 and 1.0, Marathon's message.
  {
    name: 'MinimumHealth 0.6 with maximumOverCapacity 0.2 is valid',
    change: (d) => {
      d.spec.strategy = {
        type: 'MinimumHealth',
        minimumHealth: { minimumHealthCapacity: 0.6, maximumOverCapacity: 0.2 },
      };
    },
    errors: [],
  },
  {
    name: 'MinimumHealth at the bounds 0 and 1 is valid',
    change: (d) => {
      d.spec.strategy = { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 0, maximumOverCapacity: 1 } };
    },
    errors: [],
  },
  {
    name: 'MinimumHealth without minimumHealth is valid (capacity defaults to 1.0)',
    change: (d) => {
      d.spec.strategy = { type: 'MinimumHealth' };
    },
    errors: [],
  },
  {
    name: 'minimumHealthCapacity 1.2',
    change: (d) => {
      d.spec.strategy = { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 1.2 } };
    },
    errors: [
      'spec.strategy.minimumHealth.minimumHealthCapacity: Invalid value: 1.2: got 1.2, expected between 0.0 and 1.0',
    ],
  },
  {
    name: 'negative maximumOverCapacity',
    change: (d) => {
      d.spec.strategy = {
        type: 'MinimumHealth',
        minimumHealth: { minimumHealthCapacity: 0.5, maximumOverCapacity: -0.1 },
      };
    },
    errors: [
      'spec.strategy.minimumHealth.maximumOverCapacity: Invalid value: -0.1: got -0.1, expected between 0.0 and 1.0',
    ],
  },
  {
    name: 'both shares out of range: both reported, capacity first',
    change: (d) => {
      d.spec.strategy = {
        type: 'MinimumHealth',
        minimumHealth: { minimumHealthCapacity: 2, maximumOverCapacity: 1.5 },
      };
    },
    errors: [
      'spec.strategy.minimumHealth.minimumHealthCapacity: Invalid value: 2: got 2, expected between 0.0 and 1.0',
      'spec.strategy.minimumHealth.maximumOverCapacity: Invalid value: 1.5: got 1.5, expected between 0.0 and 1.0',
    ],
  },
  {
    name: 'minimumHealthCapacity given as a string',
    change: (d) => {
      d.spec.strategy = { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: '0.5' as unknown as number } };
    },
    errors: [
      'spec.strategy.minimumHealth.minimumHealthCapacity: Invalid value: "string": spec.strategy.minimumHealth.minimumHealthCapacity in body must be of type number: "string"',
    ],
  },
  {
    name: 'minimumHealth given as a number',
    change: (d) => {
      d.spec.strategy = { type: 'MinimumHealth', minimumHealth: 0.5 as unknown as object };
    },
    errors: [
      'spec.strategy.minimumHealth: Invalid value: "number": spec.strategy.minimumHealth in body must be of type object: "number"',
    ],
  },
  {
    name: 'MinimumHealth with rollingUpdate',
    change: (d) => {
      d.spec.strategy = {
        type: 'MinimumHealth',
        rollingUpdate: { maxSurge: 1 },
        minimumHealth: { minimumHealthCapacity: 0.5 },
      };
    },
    errors: ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'MinimumHealth'"],
  },
  {
    name: 'minimumHealth with type RollingUpdate',
    change: (d) => {
      d.spec.strategy = { type: 'RollingUpdate', minimumHealth: { minimumHealthCapacity: 0.5 } };
    },
    errors: ["spec.strategy.minimumHealth: Forbidden: may not be specified when strategy `type` is 'RollingUpdate'"],
  },
  {
    name: 'minimumHealth without a type (defaulted to RollingUpdate)',
    change: (d) => {
      d.spec.strategy = { minimumHealth: { minimumHealthCapacity: 0.5 } };
    },
    errors: ["spec.strategy.minimumHealth: Forbidden: may not be specified when strategy `type` is 'RollingUpdate'"],
  },
  {
    name: 'minimumHealth with type Recreate',
    change: (d) => {
      d.spec.strategy = { type: 'Recreate', minimumHealth: {} };
    },
    errors: ["spec.strategy.minimumHealth: Forbidden: may not be specified when strategy `type` is 'Recreate'"],
  },
  {
    name: 'maxSurge given as a bare number string',
    change: (d) => {
      d.spec.strategy = { rollingUpdate: { maxSurge: '5' } };
    },
    errors: [`spec.strategy.rollingUpdate.maxSurge: Invalid value: "5": ${PERCENT}`],
  },
  {
    name: 'maxSurge "a%"',
    change: (d) => {
      d.spec.strategy = { rollingUpdate: { maxSurge: 'a%', maxUnavailable: 1 } };
    },
    errors: [`spec.strategy.rollingUpdate.maxSurge: Invalid value: "a%": ${PERCENT}`],
  },
  {
    name: 'maxUnavailable "%" counts as 0, so with maxSurge 0 both rules fire',
    change: (d) => {
      d.spec.strategy = { rollingUpdate: { maxSurge: 0, maxUnavailable: '%' } };
    },
    errors: [
      `spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "%": ${PERCENT}`,
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "%": may not be 0 when `maxSurge` is 0',
    ],
  },
  {
    name: 'negative maxUnavailable',
    change: (d) => {
      d.spec.strategy = { rollingUpdate: { maxUnavailable: -1 } };
    },
    errors: ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or equal to 0'],
  },
  {
    name: 'maxSurge that is neither an integer nor a string',
    change: (d) => {
      d.spec.strategy = { rollingUpdate: { maxSurge: 1.5 } };
    },
    errors: ["spec.strategy.rollingUpdate.maxSurge: Invalid value: 1.5: must be an integer or percentage (e.g '5%')"],
  },
  {
    name: 'maxUnavailable 100% is the ceiling',
    change: (d) => {
      d.spec.strategy = { rollingUpdate: { maxUnavailable: '100%' } };
    },
    errors: [],
  },
  {
    name: 'maxUnavailable above 100%',
    change: (d) => {
      d.spec.strategy = { rollingUpdate: { maxUnavailable: '101%' } };
    },
    errors: ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "101%": must not be greater than 100%'],
  },
  {
    name: 'maxSurge above 100% is allowed',
    change: (d) => {
      d.spec.strategy = { rollingUpdate: { maxSurge: '200%' } };
    },
    errors: [],
  },
  {
    name: 'maxSurge 0 and maxUnavailable 0',
    change: (d) => {
      d.spec.strategy = { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } };
    },
    errors: ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0'],
  },
  {
    name: '"0%" and 0 both count as zero',
    change: (d) => {
      d.spec.strategy = { rollingUpdate: { maxSurge: '0%', maxUnavailable: '0%' } };
    },
    errors: ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0'],
  },
  {
    name: 'a percentage that rounds to zero is still valid (only literals count)',
    change: (d) => {
      d.spec.replicas = 1;
      d.spec.strategy = { rollingUpdate: { maxSurge: '1%', maxUnavailable: '1%' } };
    },
    errors: [],
  },
  {
    name: 'maxSurge 0 with maxUnavailable 1',
    change: (d) => {
      d.spec.strategy = { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } };
    },
    errors: [],
  },
  {
    name: 'plan serial-canary with 3 proceeds',
    change: (d) => {
      d.spec.plan = { strategy: 'serial-canary', requiredProceeds: 3 };
    },
    errors: [],
  },
  {
    name: 'plan strategy "canary" (the SDK\'s YAML alias is not an API value)',
    change: (d) => {
      d.spec.plan = { strategy: 'canary' as never };
    },
    errors: [
      'spec.plan.strategy: Unsupported value: "canary": supported values: "serial", "parallel", "serial-canary", "parallel-canary"',
    ],
  },
  {
    name: 'plan requiredProceeds 0',
    change: (d) => {
      d.spec.plan = { strategy: 'serial-canary', requiredProceeds: 0 };
    },
    errors: ['spec.plan.requiredProceeds: Invalid value: 0: must be greater than or equal to 1'],
  },
  {
    name: 'plan requiredProceeds without a canary strategy',
    change: (d) => {
      d.spec.plan = { requiredProceeds: 2 };
    },
    errors: [
      'spec.plan.requiredProceeds: Forbidden: may not be set when `strategy` is not serial-canary or parallel-canary',
    ],
  },
  {
    name: 'plan not an object',
    change: (d) => {
      (d.spec as { plan?: unknown }).plan = 'serial';
    },
    errors: ['spec.plan: Invalid value: "string": spec.plan in body must be of type object: "string"'],
  },
  {
    name: 'analysis by one template, its arguments from the new revision and a label, onFailure Rollback',
    change: (d) => {
      d.spec.analysis = {
        templates: [{ templateName: 'success-rate' }, { templateName: 'slo', clusterScope: true }],
        args: [
          { name: 'service-name', value: 'web' },
          { name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' } },
          { name: 'team', valueFrom: { fieldRef: { fieldPath: "metadata.labels['team']" } } },
        ],
        startAfterAvailable: '50%',
        postRollout: '10m',
        onFailure: 'Rollback',
      };
    },
    errors: [],
  },
  {
    name: 'analysis under MinimumHealth, starting after 2 new replicas',
    change: (d) => {
      d.spec.strategy = { type: 'MinimumHealth' };
      d.spec.analysis = { templates: [{ templateName: 'success-rate' }], startAfterAvailable: 2 };
    },
    errors: [],
  },
  {
    name: 'analysis under Recreate (every old pod stops before the first new one starts)',
    change: (d) => {
      d.spec.strategy = { type: 'Recreate' };
      d.spec.analysis = { templates: [{ templateName: 'success-rate' }] };
    },
    errors: [
      'spec.analysis: Forbidden: analysis needs a strategy that replaces pods gradually (RollingUpdate or MinimumHealth)',
    ],
  },
  {
    name: 'analysis without templates',
    change: (d) => {
      d.spec.analysis = { templates: [] };
    },
    errors: [
      'spec.analysis.templates: Required value: at least one AnalysisTemplate, unless podFailures or canarySteps is set',
    ],
  },
  {
    name: 'analysis by the pod check alone, no templates',
    change: (d) => {
      d.spec.analysis = { templates: [], podFailures: { window: '1m', restarts: 0 } };
    },
    errors: [],
  },
  {
    name: 'a pod check window of "30" (no unit)',
    change: (d) => {
      d.spec.analysis = { podFailures: { window: '30' } } as never;
    },
    errors: ['spec.analysis.podFailures.window: Invalid value: "30": time: missing unit in duration "30"'],
  },
  {
    name: 'a pod check window of 0s',
    change: (d) => {
      d.spec.analysis = { podFailures: { window: '0s' } } as never;
    },
    errors: ['spec.analysis.podFailures.window: Invalid value: "0s": must be greater than 0'],
  },
  {
    name: 'a pod check tolerating -1 restarts',
    change: (d) => {
      d.spec.analysis = { podFailures: { restarts: -1 } } as never;
    },
    errors: ['spec.analysis.podFailures.restarts: Invalid value: -1: must be greater than or equal to 0'],
  },
  {
    name: 'analysis naming a template without its name',
    change: (d) => {
      d.spec.analysis = { templates: [{ templateName: '' }] };
    },
    errors: ['spec.analysis.templates[0].templateName: Required value'],
  },
  {
    name: 'analysis naming one template twice',
    change: (d) => {
      d.spec.analysis = { templates: [{ templateName: 'success-rate' }, { templateName: 'success-rate' }] };
    },
    errors: ['spec.analysis.templates[1].templateName: Duplicate value: "success-rate"'],
  },
  {
    name: 'analysis arguments given twice',
    change: (d) => {
      d.spec.analysis = {
        templates: [{ templateName: 'success-rate' }],
        args: [
          { name: 'service-name', value: 'web' },
          { name: 'service-name', value: 'api' },
        ],
      };
    },
    errors: ['spec.analysis.args[1].name: Duplicate value: "service-name"'],
  },
  {
    name: 'an analysis argument without a value',
    change: (d) => {
      d.spec.analysis = { templates: [{ templateName: 'success-rate' }], args: [{ name: 'service-name' }] };
    },
    errors: ['spec.analysis.args[0]: Required value: one of value, valueFrom'],
  },
  {
    name: 'an analysis argument with a value and a valueFrom',
    change: (d) => {
      d.spec.analysis = {
        templates: [{ templateName: 'success-rate' }],
        args: [{ name: 'hash', value: 'abc', valueFrom: { podTemplateHashValue: 'Stable' } }],
      };
    },
    errors: ['spec.analysis.args[0].valueFrom: Forbidden: may not be set with value: give one'],
  },
  {
    name: 'an analysis argument from the "Canary" hash',
    change: (d) => {
      d.spec.analysis = {
        templates: [{ templateName: 'success-rate' }],
        args: [{ name: 'hash', valueFrom: { podTemplateHashValue: 'Canary' as never } }],
      };
    },
    errors: [
      'spec.analysis.args[0].valueFrom.podTemplateHashValue: Unsupported value: "Canary": supported values: "Latest", "Stable"',
    ],
  },
  {
    name: 'an analysis argument from spec.replicas',
    change: (d) => {
      d.spec.analysis = {
        templates: [{ templateName: 'success-rate' }],
        args: [{ name: 'replicas', valueFrom: { fieldRef: { fieldPath: 'spec.replicas' } } }],
      };
    },
    errors: [
      "spec.analysis.args[0].valueFrom.fieldRef.fieldPath: Invalid value: \"spec.replicas\": must be one of metadata.name, metadata.namespace, metadata.labels['KEY'] or metadata.annotations['KEY']",
    ],
  },
  {
    name: 'an analysis argument from a Secret (the template names Secrets)',
    change: (d) => {
      d.spec.analysis = {
        templates: [{ templateName: 'success-rate' }],
        args: [{ name: 'token', valueFrom: { secretKeyRef: { name: 'api', key: 'token' } } as never }],
      };
    },
    errors: [
      "spec.analysis.args[0].valueFrom.secretKeyRef: Forbidden: a Deployment gives podTemplateHashValue or fieldRef (a Secret's key is the template's to name)",
    ],
  },
  {
    name: 'analysis starting after -1 new replicas',
    change: (d) => {
      d.spec.analysis = { templates: [{ templateName: 'success-rate' }], startAfterAvailable: -1 };
    },
    errors: ['spec.analysis.startAfterAvailable: Invalid value: -1: must be greater than or equal to 0'],
  },
  {
    name: 'analysis starting after "half" of them',
    change: (d) => {
      d.spec.analysis = { templates: [{ templateName: 'success-rate' }], startAfterAvailable: 'half' };
    },
    errors: [
      'spec.analysis.startAfterAvailable: Invalid value: "half": invalid value for IntOrString: invalid type: string is not a percentage',
    ],
  },
  {
    name: 'analysis starting after 150% of them',
    change: (d) => {
      d.spec.analysis = { templates: [{ templateName: 'success-rate' }], startAfterAvailable: '150%' };
    },
    errors: ['spec.analysis.startAfterAvailable: Invalid value: "150%": must be between 0% and 100%'],
  },
  {
    name: 'a postRollout of "10" (no unit)',
    change: (d) => {
      d.spec.analysis = { templates: [{ templateName: 'success-rate' }], postRollout: '10' };
    },
    errors: ['spec.analysis.postRollout: Invalid value: "10": time: missing unit in duration "10"'],
  },
  {
    name: 'onFailure Retry',
    change: (d) => {
      d.spec.analysis = { templates: [{ templateName: 'success-rate' }], onFailure: 'Retry' as never };
    },
    errors: ['spec.analysis.onFailure: Unsupported value: "Retry": supported values: "Abort", "Rollback", "Pause"'],
  },
  {
    name: 'analysis not an object',
    change: (d) => {
      (d.spec as { analysis?: unknown }).analysis = 'success-rate';
    },
    errors: ['spec.analysis: Invalid value: "string": spec.analysis in body must be of type object: "string"'],
  },
];

describe('api/validation: validateDeployment (apps/v1 rules and messages)', () => {
  for (const row of rows) {
    it(row.name, () => {
      const d = web();
      row.change(d);
      const errors = validateDeployment(withDefaults(d)).map(formatFieldError);
      expect(errors).to.deep.equal(row.errors);
    });
  }

  it('errors come in upstream order: replicas, selector, template, strategy, minReadySeconds, history, deadline', () => {
    const d = web();
    d.spec.replicas = -1;
    d.spec.selector = {};
    d.spec.template!.spec!.restartPolicy = 'Never';
    d.spec.strategy = { type: 'Recreate', rollingUpdate: {} };
    d.spec.minReadySeconds = -1;
    d.spec.revisionHistoryLimit = -1;
    d.spec.progressDeadlineSeconds = 0;
    const fields = validateDeployment(withDefaults(d)).map((e) => e.field);
    expect(fields).to.deep.equal([
      'spec.replicas',
      'spec.selector',
      'spec.template.spec.restartPolicy',
      'spec.strategy.rollingUpdate',
      'spec.minReadySeconds',
      'spec.revisionHistoryLimit',
    ]);
  });

  it('without defaults a RollingUpdate strategy lacking rollingUpdate is reported, not crashed on', () => {
    const d = web();
    d.spec.strategy = { type: 'RollingUpdate' };
    expect(validateDeployment(d).map(formatFieldError)).to.deep.equal([
      'spec.strategy.rollingUpdate: Required value: this should be defaulted and never be nil',
    ]);
  });

  describe('updates: the selector is immutable', () => {
    const updates: Array<{ name: string; change: Change; errors: string[] }> = [
      { name: 'same selector', change: () => {}, errors: [] },
      {
        name: 'same labels in another key order',
        change: (d) => {
          d.spec.selector = { matchLabels: { app: 'web' }, matchExpressions: [] };
        },
        errors: [],
      },
      {
        name: 'a label added to the selector',
        change: (d) => {
          d.spec.selector = { matchLabels: { tier: 'front', app: 'web' } };
        },
        errors: ['spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"front"}}: field is immutable'],
      },
      {
        name: 'the template may change',
        change: (d) => {
          d.spec.template!.metadata!.labels!.version = 'v2';
        },
        errors: [],
      },
    ];
    for (const row of updates) {
      it(row.name, () => {
        const old = withDefaults(web());
        const d = web();
        row.change(d);
        expect(validateDeployment(withDefaults(d), old).map(formatFieldError)).to.deep.equal(row.errors);
      });
    }
  });
});

describe('api/validation: formatFieldError prints values like apimachinery', () => {
  const rows: Array<{ error: Parameters<typeof formatFieldError>[0]; want: string }> = [
    {
      error: { field: 'spec.replicas', type: 'Invalid', value: -1, detail: 'must be greater than or equal to 0' },
      want: 'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    },
    {
      error: { field: 'spec.x', type: 'Invalid', value: 'a"b', detail: 'd' },
      want: 'spec.x: Invalid value: "a\\"b": d',
    },
    {
      error: { field: 'spec.x', type: 'Invalid', value: { a: '<&>' }, detail: 'd' },
      want: 'spec.x: Invalid value: {"a":"\\u003c\\u0026\\u003e"}: d',
    },
    { error: { field: 'spec.x', type: 'Invalid', detail: 'd' }, want: 'spec.x: Invalid value: null: d' },
    { error: { field: 'spec.selector', type: 'Required', detail: '' }, want: 'spec.selector: Required value' },
    { error: { field: 'spec.y', type: 'Forbidden', value: 'ignored', detail: 'no' }, want: 'spec.y: Forbidden: no' },
    {
      error: { field: 'spec.z', type: 'NotSupported', value: 'B', detail: 'supported values: "A"' },
      want: 'spec.z: Unsupported value: "B": supported values: "A"',
    },
    {
      error: { field: 'spec.metrics[1].name', type: 'Duplicate', value: 'error-rate', detail: '' },
      want: 'spec.metrics[1].name: Duplicate value: "error-rate"',
    },
  ];
  for (const { error, want } of rows) {
    it(want, () => expect(formatFieldError(error)).to.equal(want));
  }

  it("the percent message carries upstream's examples and regex", () => {
    expect(PERCENT_ERROR).to.equal(
      "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
    );
  });
});
