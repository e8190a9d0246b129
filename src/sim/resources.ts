// The resource types the simulated API server serves (docs/simulated-api-server.md#discovery), as one table that
// routing, discovery, OpenAPI and the Table printers all read. Custom resources are added at run
// time from established CustomResourceDefinitions and described with the same shape.

import type { ResourceRef } from './types.ts';

export type Subresource = 'status' | 'scale' | 'eviction' | 'finalize';

export interface ResourceInfo {
  group: string; // '' for the core group
  version: string;
  resource: string; // plural
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  subresources: Subresource[];
  /** metadata.generation is kept and bumped on spec changes. */
  hasGeneration: boolean;
  /** Main-resource writes keep the stored status; /status writes take only status. */
  statusSubresource: boolean;
  /** Scale subresource paths (custom resources and ReplicaSets). */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  /** DELETE answers with the deleted object (pods, namespaces, custom resources) rather than a Status. */
  returnDeletedObject: boolean;
}

export const STANDARD_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function builtin(r: Omit<ResourceInfo, 'listKind' | 'verbs'> & { verbs?: string[] }): ResourceInfo {
  return { ...r, listKind: `${r.kind}List`, verbs: r.verbs ?? STANDARD_VERBS };
}

/** A v1 resource with no subresources, generation, short names or categories (RBAC's objects, the review APIs). */
function plain(group: string, kind: string, namespaced: boolean, verbs?: string[]): ResourceInfo {
  return builtin({
    group,
    version: 'v1',
    resource: `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    kind,
    namespaced,
    shortNames: [],
    categories: [],
    subresources: [],
    hasGeneration: false,
    statusSubresource: false,
    returnDeletedObject: false,
    ...(verbs ? { verbs } : {}),
  });
}

export const BUILTIN_RESOURCES: ResourceInfo[] = [
  builtin({
    group: '',
    version: 'v1',
    resource: 'namespaces',
    singular: 'namespace',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    categories: [],
    subresources: ['status', 'finalize'],
    hasGeneration: false,
    statusSubresource: true,
    returnDeletedObject: true,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  }),
  builtin({
    group: '',
    version: 'v1',
    resource: 'pods',
    singular: 'pod',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    subresources: ['status', 'eviction'],
    hasGeneration: false,
    statusSubresource: true,
    returnDeletedObject: true,
  }),
  builtin({
    group: '',
    version: 'v1',
    resource: 'nodes',
    singular: 'node',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    categories: [],
    subresources: ['status'],
    hasGeneration: false,
    statusSubresource: true,
    returnDeletedObject: false,
  }),
  builtin({
    group: '',
    version: 'v1',
    resource: 'secrets',
    singular: 'secret',
    kind: 'Secret',
    namespaced: true,
    shortNames: [],
    categories: [],
    subresources: [],
    hasGeneration: false,
    statusSubresource: false,
    returnDeletedObject: false,
  }),
  builtin({
    group: '',
    version: 'v1',
    resource: 'configmaps',
    singular: 'configmap',
    kind: 'ConfigMap',
    namespaced: true,
    shortNames: ['cm'],
    categories: [],
    subresources: [],
    hasGeneration: false,
    statusSubresource: false,
    returnDeletedObject: false,
  }),
  builtin({
    group: '',
    version: 'v1',
    resource: 'events',
    singular: 'event',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    categories: [],
    subresources: [],
    hasGeneration: false,
    statusSubresource: false,
    returnDeletedObject: false,
  }),
  builtin({
    group: 'apps',
    version: 'v1',
    resource: 'replicasets',
    singular: 'replicaset',
    kind: 'ReplicaSet',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    subresources: ['status', 'scale'],
    hasGeneration: true,
    statusSubresource: true,
    returnDeletedObject: false,
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
  }),
  // apps/v1 Deployments, with kube-apiserver's rules (deployments.ts); no Deployment controller
  // runs for them in the simulated control plane: Pacer in native mode is that controller.
  builtin({
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    singular: 'deployment',
    kind: 'Deployment',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: ['status', 'scale'],
    hasGeneration: true,
    statusSubresource: true,
    returnDeletedObject: false,
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
  }),
  builtin({
    group: 'coordination.k8s.io',
    version: 'v1',
    resource: 'leases',
    singular: 'lease',
    kind: 'Lease',
    namespaced: true,
    shortNames: [],
    categories: [],
    subresources: [],
    hasGeneration: false,
    statusSubresource: false,
    returnDeletedObject: false,
  }),
  builtin({
    group: 'policy',
    version: 'v1',
    resource: 'poddisruptionbudgets',
    singular: 'poddisruptionbudget',
    kind: 'PodDisruptionBudget',
    namespaced: true,
    shortNames: ['pdb'],
    categories: [],
    subresources: ['status'],
    hasGeneration: true,
    statusSubresource: true,
    returnDeletedObject: false,
  }),
  builtin({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    singular: 'customresourcedefinition',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: ['status'],
    hasGeneration: true,
    statusSubresource: true,
    returnDeletedObject: false,
  }),
  // RBAC's objects, stored as written: SubjectAccessReviews are judged by them (authz.ts). The
  // simulated API server itself authorises nothing (every request is an admin's).
  ...(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'] as const).map((kind) =>
    plain('rbac.authorization.k8s.io', kind, !kind.startsWith('Cluster')),
  ),
  // The review APIs: create only, answered and not stored (authz.ts).
  plain('authentication.k8s.io', 'TokenReview', false, ['create']),
  plain('authorization.k8s.io', 'SubjectAccessReview', false, ['create']),
  // The simulated cloud's node groups (control/nodegroups.ts).
  builtin({
    group: 'sim.pacer.dev',
    version: 'v1',
    resource: 'nodegroups',
    singular: 'nodegroup',
    kind: 'NodeGroup',
    namespaced: false,
    shortNames: ['ng'],
    categories: [],
    subresources: ['status'],
    hasGeneration: true,
    statusSubresource: true,
    returnDeletedObject: false,
  }),
  // Validating admission webhooks: the server calls them on writes (admission.ts).
  builtin({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'validatingwebhookconfigurations',
    singular: 'validatingwebhookconfiguration',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
    shortNames: [],
    categories: ['api-extensions'],
    subresources: [],
    hasGeneration: false,
    statusSubresource: false,
    returnDeletedObject: false,
  }),
];

export function groupVersion(r: { group: string; version: string }): string {
  return r.group === '' ? r.version : `${r.group}/${r.version}`;
}

export function refOf(r: ResourceInfo): ResourceRef {
  return { group: r.group, version: r.version, resource: r.resource };
}

/** "replicasets.apps", "pods", "deployments.pacer.dev": how error messages name a resource. */
export function qualifiedResource(r: { group: string; resource: string }): string {
  return r.group === '' ? r.resource : `${r.resource}.${r.group}`;
}

export const REF = {
  namespaces: { group: '', version: 'v1', resource: 'namespaces' },
  pods: { group: '', version: 'v1', resource: 'pods' },
  nodes: { group: '', version: 'v1', resource: 'nodes' },
  events: { group: '', version: 'v1', resource: 'events' },
  configmaps: { group: '', version: 'v1', resource: 'configmaps' },
  secrets: { group: '', version: 'v1', resource: 'secrets' },
  replicasets: { group: 'apps', version: 'v1', resource: 'replicasets' },
  deployments: { group: 'apps', version: 'v1', resource: 'deployments' },
  leases: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' },
  poddisruptionbudgets: { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' },
  customresourcedefinitions: { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' },
  validatingwebhookconfigurations: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'validatingwebhookconfigurations',
  },
  roles: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles' },
  clusterroles: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' },
  rolebindings: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings' },
  clusterrolebindings: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings' },
  nodegroups: { group: 'sim.pacer.dev', version: 'v1', resource: 'nodegroups' },
} as const satisfies Record<string, ResourceRef>;
