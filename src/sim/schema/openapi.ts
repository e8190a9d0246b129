// The minimal-but-sufficient OpenAPI v3 of docs/simulated-api-server.md#openapi: a root index whose per-GV URLs
// carry a content hash (kubectl caches documents by URL), and per-GV documents with a PATCH
// operation per kind that declares fieldValidation (so kubectl validates server-side) and one
// component schema per kind with x-kubernetes-group-version-kind (so `kubectl explain` works).

import { createHash } from 'node:crypto';
import type { ResourceInfo } from '../resources.ts';
import type { CompiledCRD, ServedVersion } from './crd.ts';
import type { JSONSchemaProps } from './types.ts';
import { KUBE_VERSION } from '../version.ts';
import { DEFAULT_STRATEGY_TYPE } from '../../api/strategies/index.ts';
import { APPS_STRATEGY_TYPES } from '../../api/validation.ts';

interface Kind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  schema: JSONSchemaProps;
  schemaName: string;
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function camel(x: string): string {
  return x
    .split(/[.-]/)
    .filter(Boolean)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');
}

// ---------------------------------------------------------------------------------------------
// Hand-written schemas of the built-in kinds: the main fields with their descriptions.

const str = (description: string): JSONSchemaProps => ({ type: 'string', description });
const int = (description: string): JSONSchemaProps => ({ type: 'integer', format: 'int32', description });
const bool = (description: string): JSONSchemaProps => ({ type: 'boolean', description });
const obj = (
  description: string,
  properties: Record<string, JSONSchemaProps> = {},
  required?: string[],
): JSONSchemaProps => ({ type: 'object', description, properties, ...(required ? { required } : {}) });
const list = (description: string, items: JSONSchemaProps): JSONSchemaProps => ({ type: 'array', description, items });
const intOrString = (description: string): JSONSchemaProps => ({
  'x-kubernetes-int-or-string': true,
  description,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
});
const strMap = (description: string): JSONSchemaProps => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string' },
});

const conditions = list(
  'Current service state of the resource.',
  obj('A condition of the resource.', {
    type: str('Type of the condition.'),
    status: str('Status of the condition, one of True, False, Unknown.'),
    reason: str("Unique, one-word, CamelCase reason for the condition's last transition."),
    message: str('Human-readable message indicating details about the last transition.'),
    lastTransitionTime: str('Last time the condition transitioned from one status to another.'),
  }),
);

const labelSelector = obj('A label query over a set of resources. An empty label selector matches all objects.', {
  matchLabels: strMap('matchLabels is a map of {key,value} pairs.'),
  matchExpressions: list(
    'matchExpressions is a list of label selector requirements. The requirements are ANDed.',
    obj('A selector requirement.', {
      key: str('key is the label key that the selector applies to.'),
      operator: str(
        "operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.",
      ),
      values: list('values is an array of string values.', { type: 'string' }),
    }),
  ),
});

const container = obj(
  'A single application container that you want to run within a pod.',
  {
    name: str(
      'Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name (DNS_LABEL). Cannot be updated.',
    ),
    image: str('Container image name. More info: https://kubernetes.io/docs/concepts/containers/images'),
    command: list('Entrypoint array. Not executed within a shell.', { type: 'string' }),
    args: list('Arguments to the entrypoint.', { type: 'string' }),
    ports: list(
      'List of ports to expose from the container.',
      obj('ContainerPort represents a network port in a single container.', {
        name: str('If specified, this must be an IANA_SVC_NAME and unique within the pod.'),
        containerPort: int("Number of port to expose on the pod's IP address."),
        protocol: str('Protocol for port. Must be UDP, TCP, or SCTP. Defaults to "TCP".'),
      }),
    ),
    env: list(
      'List of environment variables to set in the container.',
      obj('EnvVar represents an environment variable present in a Container.', {
        name: str('Name of the environment variable.'),
        value: str('Variable references $(VAR_NAME) are expanded.'),
      }),
    ),
    resources: obj('Compute Resources required by this container.', {
      limits: strMap('Limits describes the maximum amount of compute resources allowed.'),
      requests: strMap('Requests describes the minimum amount of compute resources required.'),
    }),
  },
  ['name'],
);

const podSpec = obj(
  'Specification of the desired behavior of the pod.',
  {
    containers: list(
      'List of containers belonging to the pod. Containers cannot currently be added or removed.',
      container,
    ),
    initContainers: list('List of initialization containers belonging to the pod.', container),
    nodeName: str('NodeName indicates in which node this pod is scheduled.'),
    nodeSelector: strMap('NodeSelector is a selector which must be true for the pod to fit on a node.'),
    restartPolicy: str('Restart policy for all containers within the pod. One of Always, OnFailure, Never.'),
    terminationGracePeriodSeconds: int('Optional duration in seconds the pod needs to terminate gracefully.'),
    readinessGates: list(
      'If specified, all readiness gates will be evaluated for pod readiness.',
      obj('A pod condition to evaluate for readiness.', {
        conditionType: str("ConditionType refers to a condition in the pod's condition list with matching type."),
      }),
    ),
  },
  ['containers'],
);

const podTemplate = obj('Template describes the pods that will be created.', {
  metadata: {
    type: 'object',
    description: "Standard object's metadata.",
    allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }],
  },
  spec: podSpec,
});

const BUILTIN_SCHEMAS: Record<string, JSONSchemaProps> = {
  '/Pod': obj(
    'Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts.',
    {
      spec: podSpec,
      status: obj('Most recently observed status of the pod.', {
        phase: str(
          'The phase of a Pod is a simple, high-level summary of where the Pod is in its lifecycle: Pending, Running, Succeeded, Failed, Unknown.',
        ),
        conditions,
        podIP: str('podIP address allocated to the pod.'),
        hostIP: str('hostIP holds the IP address of the host to which the pod is assigned.'),
        startTime: str('RFC 3339 date and time at which the object was acknowledged by the Kubelet.'),
        containerStatuses: list(
          'The list has one entry per container in the manifest.',
          obj('The status of a container.', {
            name: str('Name is a DNS_LABEL representing the unique name of the container.'),
            ready: bool('Ready specifies whether the container is currently passing its readiness check.'),
            restartCount: int('RestartCount holds the number of times the container has been restarted.'),
            image: str('Image is the name of container image that the container is running.'),
            state: obj("State holds details about the container's current condition."),
          }),
        ),
      }),
    },
  ),
  'apps/ReplicaSet': obj('ReplicaSet ensures that a specified number of pod replicas are running at any given time.', {
    spec: obj(
      'Spec defines the specification of the desired behavior of the ReplicaSet.',
      {
        replicas: int('Replicas is the number of desired pods. Defaults to 1.'),
        minReadySeconds: int(
          'Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available.',
        ),
        selector: labelSelector,
        template: podTemplate,
      },
      ['selector'],
    ),
    status: obj('Status is the most recently observed status of the ReplicaSet.', {
      replicas: int('Replicas is the most recently observed number of non-terminating pods.'),
      fullyLabeledReplicas: int(
        'The number of non-terminating pods that have labels matching the labels of the pod template of the replicaset.',
      ),
      readyReplicas: int('The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.'),
      availableReplicas: int(
        'The number of available non-terminating pods (ready for at least minReadySeconds) for this replica set.',
      ),
      terminatingReplicas: int(
        'How many of its pods are being deleted (a deletionTimestamp) and have not yet reached Succeeded or Failed.',
      ),
      observedGeneration: {
        type: 'integer',
        format: 'int64',
        description: 'ObservedGeneration reflects the generation of the most recently observed ReplicaSet.',
      },
      conditions,
    }),
  }),
  'apps/Deployment': obj('Deployment enables declarative updates for Pods and ReplicaSets.', {
    spec: obj(
      'Specification of the desired behavior of the Deployment.',
      {
        replicas: int('Number of desired pods. Defaults to 1.'),
        selector: labelSelector,
        template: podTemplate,
        strategy: obj('The deployment strategy to use to replace existing pods with new ones.', {
          type: str(
            `Type of deployment. Can be ${APPS_STRATEGY_TYPES.map((t) => JSON.stringify(t)).join(' or ')}. Default is ${DEFAULT_STRATEGY_TYPE}.`,
          ),
          rollingUpdate: obj('Rolling update config params. Present only if DeploymentStrategyType = RollingUpdate.', {
            maxUnavailable: intOrString('The maximum number of pods that can be unavailable during the update.'),
            maxSurge: intOrString('The maximum number of pods that can be scheduled above the desired number of pods.'),
          }),
        }),
        minReadySeconds: int(
          'Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available.',
        ),
        revisionHistoryLimit: int('The number of old ReplicaSets to retain to allow rollback. Defaults to 10.'),
        paused: bool('Indicates that the deployment is paused.'),
        progressDeadlineSeconds: int(
          'The maximum time in seconds for a deployment to make progress before it is considered to be failed. Defaults to 600s.',
        ),
      },
      ['selector', 'template'],
    ),
    status: obj('Most recently observed status of the Deployment.', {
      observedGeneration: {
        type: 'integer',
        format: 'int64',
        description: 'The generation observed by the deployment controller.',
      },
      replicas: int(
        'Total number of non-terminating pods targeted by this deployment (their labels match the selector).',
      ),
      updatedReplicas: int(
        'Total number of non-terminating pods targeted by this deployment that have the desired template spec.',
      ),
      readyReplicas: int('Total number of non-terminating pods targeted by this Deployment with a Ready Condition.'),
      availableReplicas: int(
        'Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.',
      ),
      unavailableReplicas: int('Total number of unavailable pods targeted by this deployment.'),
      terminatingReplicas: int(
        'Total number of terminating pods targeted by this deployment. Terminating pods have a non-null .metadata.deletionTimestamp and have not yet reached the Failed or Succeeded .status.phase.',
      ),
      conditions,
      collisionCount: int(
        'Count of hash collisions for the Deployment. The Deployment controller uses this field as a collision avoidance mechanism when it needs to create the name for the newest ReplicaSet.',
      ),
    }),
  }),
  '/Node': obj('Node is a worker node in Kubernetes.', {
    spec: obj('Spec defines the behavior of a node.', {
      unschedulable: bool('Unschedulable controls node schedulability of new pods. By default, node is schedulable.'),
      podCIDR: str('PodCIDR represents the pod IP range assigned to the node.'),
      taints: list(
        "If specified, the node's taints.",
        obj('The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.', {
          key: str('The taint key to be applied to a node.'),
          value: str('The taint value corresponding to the taint key.'),
          effect: str(
            'The effect of the taint on pods that do not tolerate the taint. Valid effects are NoSchedule, PreferNoSchedule and NoExecute.',
          ),
        }),
      ),
    }),
    status: obj('Most recently observed status of the node.', {
      conditions,
      capacity: strMap('Capacity represents the total resources of a node.'),
      allocatable: strMap('Allocatable represents the resources of a node that are available for scheduling.'),
      addresses: list(
        'List of addresses reachable to the node.',
        obj("NodeAddress contains information for the node's address.", {
          type: str('Node address type, one of Hostname, ExternalIP or InternalIP.'),
          address: str('The node address.'),
        }),
      ),
      nodeInfo: obj('Set of ids/uuids to uniquely identify the node.', {
        kubeletVersion: str('Kubelet Version reported by the node.'),
      }),
    }),
  }),
  '/Namespace': obj('Namespace provides a scope for Names. Use of multiple namespaces is optional.', {
    spec: obj('Spec defines the behavior of the Namespace.', {
      finalizers: list(
        'Finalizers is an opaque list of values that must be empty to permanently remove object from storage.',
        { type: 'string' },
      ),
    }),
    status: obj('Status describes the current status of a Namespace.', {
      phase: str('Phase is the current lifecycle phase of the namespace: Active, Terminating.'),
      conditions,
    }),
  }),
  '/Event': obj(
    'Event is a report of an event somewhere in the cluster.',
    {
      involvedObject: obj('The object that this event is about.', {
        kind: str('Kind of the referent.'),
        name: str('Name of the referent.'),
        namespace: str('Namespace of the referent.'),
        uid: str('UID of the referent.'),
        fieldPath: str(
          'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
        ),
      }),
      reason: str(
        "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      ),
      message: str('A human-readable description of the status of this operation.'),
      type: str('Type of this event (Normal, Warning), new types could be added in the future'),
      count: int('The number of times this event has occurred.'),
      firstTimestamp: str('The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)'),
      lastTimestamp: str('The time at which the most recent occurrence of this event was recorded.'),
      source: obj('The component reporting this event.', {
        component: str('Component from which the event is generated.'),
        host: str('Node name on which the event is generated.'),
      }),
    },
    ['metadata', 'involvedObject'],
  ),
  'coordination.k8s.io/Lease': obj('Lease defines a lease concept.', {
    spec: obj('spec contains the specification of the Lease.', {
      holderIdentity: str('holderIdentity contains the identity of the holder of a current lease.'),
      leaseDurationSeconds: int(
        'leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire it.',
      ),
      acquireTime: str('acquireTime is a time when the current lease was acquired.'),
      renewTime: str('renewTime is a time when the current holder of a lease has last updated the lease.'),
      leaseTransitions: int('leaseTransitions is the number of transitions of a lease between holders.'),
    }),
  }),
  'policy/PodDisruptionBudget': obj(
    'PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods',
    {
      spec: obj('Specification of the desired behavior of the PodDisruptionBudget.', {
        minAvailable: intOrString(
          'An eviction is allowed if at least "minAvailable" pods selected by "selector" will still be available after the eviction.',
        ),
        maxUnavailable: intOrString(
          'An eviction is allowed if at most "maxUnavailable" pods selected by "selector" are unavailable after the eviction.',
        ),
        selector: labelSelector,
      }),
      status: obj('Most recently observed status of the PodDisruptionBudget.', {
        disruptionsAllowed: int('Number of pod disruptions that are currently allowed.'),
        currentHealthy: int('current number of healthy pods'),
        desiredHealthy: int('minimum desired number of healthy pods'),
        expectedPods: int('total number of pods counted by this disruption budget'),
        observedGeneration: {
          type: 'integer',
          format: 'int64',
          description: 'Most recent generation observed when updating this PDB status.',
        },
        conditions,
      }),
    },
  ),
  'apiextensions.k8s.io/CustomResourceDefinition': obj(
    'CustomResourceDefinition represents a resource that should be exposed on the API server.  Its name MUST be in the format <.spec.name>.<.spec.group>.',
    {
      spec: obj('spec describes how the user wants the resources to appear', {
        group: str('group is the API group of the defined custom resource.'),
        names: obj('names specify the resource and kind names for the custom resource.', {
          plural: str('plural is the plural name of the resource to serve.'),
          singular: str('singular is the singular name of the resource.'),
          kind: str('kind is the serialized kind of the resource.'),
          listKind: str('listKind is the serialized kind of the list for this resource.'),
          shortNames: list('shortNames are short names for the resource.', { type: 'string' }),
          categories: list("categories is a list of grouped resources this custom resource belongs to (e.g. 'all').", {
            type: 'string',
          }),
        }),
        scope: str(
          'scope indicates whether the defined custom resource is cluster- or namespace-scoped. Allowed values are `Cluster` and `Namespaced`.',
        ),
        versions: list(
          'versions is the list of all API versions of the defined custom resource.',
          obj('A version of the custom resource.', {
            name: str('name is the version name, e.g. “v1”, “v2beta1”, etc.'),
            served: bool('served is a flag enabling/disabling this version from being served via REST APIs'),
            storage: bool('storage indicates this version should be used when persisting custom resources to storage.'),
            schema: {
              type: 'object',
              description:
                'schema describes the schema used for validation, pruning, and defaulting of this version of the custom resource.',
              'x-kubernetes-preserve-unknown-fields': true,
            },
          }),
        ),
      }),
      status: obj('status indicates the actual state of the CustomResourceDefinition', {
        conditions,
        storedVersions: list('storedVersions lists all versions of CustomResources that were ever persisted.', {
          type: 'string',
        }),
      }),
    },
  ),
};

const OBJECT_META_SCHEMA: JSONSchemaProps = obj(
  'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
  {
    name: str(
      'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Cannot be updated.',
    ),
    generateName: str(
      'GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.',
    ),
    namespace: str('Namespace defines the space within which each name must be unique.'),
    uid: str('UID is the unique in time and space value for this object.'),
    resourceVersion: str('An opaque value that represents the internal version of this object.'),
    generation: {
      type: 'integer',
      format: 'int64',
      description: 'A sequence number representing a specific generation of the desired state.',
    },
    creationTimestamp: str(
      'CreationTimestamp is a timestamp representing the server time when this object was created.',
    ),
    deletionTimestamp: str('DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.'),
    labels: strMap(
      'Map of string keys and values that can be used to organize and categorize (scope and select) objects.',
    ),
    annotations: strMap(
      'Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.',
    ),
    ownerReferences: list(
      'List of objects depended by this object.',
      obj('OwnerReference contains enough information to let you identify an owning object.', {
        apiVersion: str('API version of the referent.'),
        kind: str('Kind of the referent.'),
        name: str('Name of the referent.'),
        uid: str('UID of the referent.'),
        controller: bool('If true, this reference points to the managing controller.'),
        blockOwnerDeletion: bool('If true, the owner cannot be deleted from storage until this reference is removed.'),
      }),
    ),
    finalizers: list('Must be empty before the object is deleted from the registry.', { type: 'string' }),
  },
);

function withTypeMeta(schema: JSONSchemaProps, gvk: { group: string; version: string; kind: string }): JSONSchemaProps {
  return {
    ...schema,
    type: 'object',
    description: schema.description ?? `${gvk.kind} is a ${gvk.group || 'core'} ${gvk.version} resource.`,
    properties: {
      apiVersion: str(
        'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
      ),
      kind: str(
        'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.',
      ),
      metadata: {
        type: 'object',
        description:
          "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
        allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }],
      },
      ...Object.fromEntries(
        Object.entries(schema.properties ?? {}).filter(([k]) => k !== 'metadata' && k !== 'apiVersion' && k !== 'kind'),
      ),
    },
    'x-kubernetes-group-version-kind': [gvk],
  };
}

function builtinSchemaName(group: string, version: string, kind: string): string {
  const pkg = group === '' ? 'core' : group.split('.')[0]!;
  if (group === 'apiextensions.k8s.io')
    return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}.${kind}`;
  return `io.k8s.api.${pkg}.${version}.${kind}`;
}

function crdSchemaName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

function kindsOf(group: string, version: string, resources: ResourceInfo[], crds: CompiledCRD[]): Kind[] {
  const kinds: Kind[] = [];
  const seen = new Set<string>();
  for (const crd of crds) {
    if (crd.group !== group) continue;
    const v: ServedVersion | undefined = crd.versions.find((x) => x.name === version && x.served);
    if (!v) continue;
    seen.add(crd.names.plural);
    kinds.push({
      group,
      version,
      kind: crd.names.kind,
      plural: crd.names.plural,
      namespaced: crd.scope === 'Namespaced',
      schema: v.schema,
      schemaName: crdSchemaName(group, version, crd.names.kind),
    });
  }
  for (const r of resources) {
    if (r.group !== group || r.version !== version || seen.has(r.resource)) continue;
    seen.add(r.resource);
    kinds.push({
      group,
      version,
      kind: r.kind,
      plural: r.resource,
      namespaced: r.namespaced,
      schema: BUILTIN_SCHEMAS[`${group}/${r.kind}`] ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      schemaName: builtinSchemaName(group, version, r.kind),
    });
  }
  return kinds.sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
}

const queryParam = (name: string, description: string): Record<string, unknown> => ({
  name,
  in: 'query',
  description,
  schema: { type: 'string', uniqueItems: true },
});

const PATCH_PARAMETERS = [
  queryParam(
    'dryRun',
    'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed',
  ),
  queryParam(
    'fieldManager',
    'fieldManager is a name associated with the actor or entity that is making these changes.',
  ),
  queryParam(
    'fieldValidation',
    'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict',
  ),
  {
    name: 'force',
    in: 'query',
    description: 'Force is going to "force" Apply requests.',
    schema: { type: 'boolean', uniqueItems: true },
  },
];

function documentFor(
  group: string,
  version: string,
  resources: ResourceInfo[],
  crds: CompiledCRD[],
): object | undefined {
  const kinds = kindsOf(group, version, resources, crds);
  if (kinds.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = { [OBJECT_META]: OBJECT_META_SCHEMA };
  const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  const opPrefix = `${camel(group === '' ? 'core' : group.replace(/\.k8s\.io$/, ''))}${camel(version)}`;
  for (const k of kinds) {
    const gvk = { group, version, kind: k.kind };
    const scoped = k.namespaced ? 'Namespaced' : '';
    const path = `${prefix}${k.namespaced ? '/namespaces/{namespace}' : ''}/${k.plural}/{name}`;
    const ref = { $ref: `#/components/schemas/${k.schemaName}` };
    paths[path] = {
      parameters: [
        {
          name: 'name',
          in: 'path',
          description: `name of the ${k.kind}`,
          required: true,
          schema: { type: 'string', uniqueItems: true },
        },
        ...(k.namespaced
          ? [
              {
                name: 'namespace',
                in: 'path',
                description: 'object name and auth scope, such as for teams and projects',
                required: true,
                schema: { type: 'string', uniqueItems: true },
              },
            ]
          : []),
      ],
      get: {
        description: `read the specified ${k.kind}`,
        operationId: `read${opPrefix}${scoped}${k.kind}`,
        responses: { 200: { description: 'OK', content: { 'application/json': { schema: ref } } } },
        'x-kubernetes-action': 'get',
        'x-kubernetes-group-version-kind': gvk,
      },
      patch: {
        description: `partially update the specified ${k.kind}`,
        operationId: `patch${opPrefix}${scoped}${k.kind}`,
        parameters: PATCH_PARAMETERS,
        // no strategic-merge-patch here: kubectl then uses its compiled-in patch metadata (docs/simulated-api-server.md#openapi)
        requestBody: {
          content: {
            'application/json-patch+json': { schema: { type: 'object' } },
            'application/merge-patch+json': { schema: { type: 'object' } },
          },
          required: true,
        },
        responses: { 200: { description: 'OK', content: { 'application/json': { schema: ref } } } },
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': gvk,
      },
    };
    schemas[k.schemaName] = withTypeMeta(k.schema, gvk);
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBE_VERSION.gitVersion },
    paths,
    components: { schemas },
  };
}

function parseGroupVersion(path: string): { group: string; version: string } | undefined {
  const p = path
    .replace(/^\/+/, '')
    .replace(/^openapi\/v3\//, '')
    .replace(/\?.*$/, '')
    .replace(/\/+$/, '');
  let m = /^api\/([^/]+)$/.exec(p);
  if (m) return { group: '', version: m[1]! };
  m = /^apis\/([^/]+)\/([^/]+)$/.exec(p);
  if (m) return { group: m[1]!, version: m[2]! };
  return undefined;
}

/** The v3 document of one group-version ("api/v1", "apis/apps/v1"), or undefined (404). */
export function openApiGroupVersion(path: string, resources: ResourceInfo[], crds: CompiledCRD[]): object | undefined {
  const gv = parseGroupVersion(path);
  return gv ? documentFor(gv.group, gv.version, resources, crds) : undefined;
}

function hashOf(doc: object): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
}

/** The root index `GET /openapi/v3`: every served group-version with a content-hashed URL. */
export function openApiRoot(resources: ResourceInfo[], crds: CompiledCRD[]): object {
  const gvs = new Map<string, { group: string; version: string }>();
  for (const r of resources) gvs.set(gvPath(r.group, r.version), { group: r.group, version: r.version });
  for (const c of crds)
    for (const v of c.versions) if (v.served) gvs.set(gvPath(c.group, v.name), { group: c.group, version: v.name });
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const key of [...gvs.keys()].sort()) {
    const { group, version } = gvs.get(key)!;
    const doc = documentFor(group, version, resources, crds);
    if (doc) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hashOf(doc)}` };
  }
  return { paths };
}
