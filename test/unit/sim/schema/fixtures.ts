// A small Widget CRD used across the schema tests.

import type { KubeObject } from '../../../../src/sim/types.ts';

export function widgetCRD(): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: {
            status: {},
            scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
          },
          additionalPrinterColumns: [
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: 'Mode', type: 'string', jsonPath: '.spec.mode', priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['size'],
                  'x-kubernetes-validations': [
                    {
                      rule: 'self.minReplicas <= self.replicas',
                      message: 'minReplicas must not exceed replicas',
                      fieldPath: '.minReplicas',
                    },
                  ],
                  properties: {
                    replicas: { type: 'integer', minimum: 0, maximum: 100, default: 1 },
                    minReplicas: { type: 'integer', default: 0 },
                    size: { type: 'string', enum: ['small', 'large'] },
                    mode: { type: 'string', default: 'fast', pattern: '^[a-z]+$', maxLength: 8 },
                    ratio: { type: 'number', exclusiveMinimum: true, minimum: 0 },
                    name: {
                      type: 'string',
                      minLength: 3,
                      'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'name is immutable' }],
                    },
                    maxSurge: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                    tags: {
                      type: 'array',
                      maxItems: 3,
                      minItems: 1,
                      items: { type: 'string' },
                      'x-kubernetes-list-type': 'set',
                    },
                    ports: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['name'],
                      items: {
                        type: 'object',
                        required: ['name'],
                        properties: { name: { type: 'string' }, port: { type: 'integer' } },
                      },
                    },
                    labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 2 },
                    config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                    template: {
                      type: 'object',
                      default: {},
                      properties: {
                        image: { type: 'string', default: 'nginx' },
                        note: { type: 'string', nullable: true },
                      },
                    },
                    when: { type: 'string', format: 'date-time' },
                    level: {
                      type: 'integer',
                      'x-kubernetes-validations': [
                        {
                          rule: 'self % 2 == 0',
                          messageExpression: '"level must be even, got " + string(self)',
                          reason: 'FieldValueForbidden',
                        },
                      ],
                    },
                  },
                },
                status: {
                  type: 'object',
                  properties: {
                    replicas: { type: 'integer' },
                    conditions: {
                      type: 'array',
                      items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

export function widget(spec: Record<string, unknown>, name = 'w1'): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec };
}
