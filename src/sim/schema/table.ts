// meta.k8s.io/v1 Table responses for `kubectl get`: the server-side printers of the built-in kinds
// (pkg/printers/internalversion, always in their wide form: kubectl hides priority>0 columns itself)
// and the additionalPrinterColumns of custom resources (the CRD table convertor).

import type { KubeObject } from '../types.ts';
import type { ResourceInfo } from '../resources.ts';
import type { ServedVersion } from './crd.ts';
import type { PrinterColumn } from './types.ts';
import { isPlainObject } from './types.ts';
import { ageSince } from '../../api/duration.ts';
import { findResults } from './jsonpath.ts';
import { formatPlain } from './fielderrors.ts';

export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableOptions {
  now: number;
  includeObject?: 'None' | 'Metadata' | 'Object';
  version?: ServedVersion;
  noHeaders?: boolean;
  resourceVersion?: string;
  continue?: string;
}

type Obj = Record<string, unknown>;
type Cell = unknown;

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATION_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

function col(name: string, type: string, description: string, priority = 0, format = ''): TableColumn {
  return { name, type, format, description, priority };
}
const nameCol = col('Name', 'string', NAME_DESCRIPTION, 0, 'name');
const ageCol = col('Age', 'string', CREATION_DESCRIPTION);

function o(v: unknown): Obj {
  return isPlainObject(v) ? v : {};
}
function arr(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isPlainObject) : [];
}
function s(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
function n(v: unknown): number {
  return typeof v === 'number' ? Math.trunc(v) : 0;
}
function orNone(v: string): string {
  return v === '' ? '<none>' : v;
}
function intOrString(v: unknown): string {
  return typeof v === 'number' ? String(v) : s(v);
}

interface Printer {
  columns: TableColumn[];
  cells: (obj: KubeObject, now: number) => Cell[];
}

// ---------------------------------------------------------------------------------------------
// Built-in printers

function podCells(pod: KubeObject, now: number): Cell[] {
  const spec = o(pod.spec);
  const status = o(pod.status);
  const containers = arr(spec.containers);
  const initContainers = arr(spec.initContainers);
  let restarts = 0;
  let readyContainers = 0;
  let lastRestart = 0;
  const phase = s(status.phase);
  let reason = s(status.reason) || phase;
  const noteRestart = (c: Obj): void => {
    restarts += n(c.restartCount);
    const finished = Date.parse(s(o(o(c.lastState).terminated).finishedAt));
    if (!Number.isNaN(finished) && finished > lastRestart) lastRestart = finished;
  };

  let initializing = false;
  const initStatuses = arr(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i]!;
    noteRestart(c);
    const state = o(c.state);
    const terminated = isPlainObject(state.terminated) ? state.terminated : undefined;
    const waiting = isPlainObject(state.waiting) ? state.waiting : undefined;
    if (terminated && n(terminated.exitCode) === 0) continue;
    initializing = true;
    if (terminated) {
      reason = s(terminated.reason)
        ? `Init:${s(terminated.reason)}`
        : n(terminated.signal) !== 0
          ? `Init:Signal:${n(terminated.signal)}`
          : `Init:ExitCode:${n(terminated.exitCode)}`;
    } else if (waiting && s(waiting.reason) && waiting.reason !== 'PodInitializing') {
      reason = `Init:${s(waiting.reason)}`;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
    }
    break;
  }

  const initialized = arr(status.conditions).some((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initializing || initialized) {
    restarts = 0;
    lastRestart = 0;
    let hasRunning = false;
    const statuses = arr(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i]!;
      noteRestart(c);
      const state = o(c.state);
      const waiting = isPlainObject(state.waiting) ? state.waiting : undefined;
      const terminated = isPlainObject(state.terminated) ? state.terminated : undefined;
      if (waiting && s(waiting.reason)) reason = s(waiting.reason);
      else if (terminated && s(terminated.reason)) reason = s(terminated.reason);
      else if (terminated)
        reason = n(terminated.signal) !== 0 ? `Signal:${n(terminated.signal)}` : `ExitCode:${n(terminated.exitCode)}`;
      else if (c.ready === true && isPlainObject(state.running)) {
        hasRunning = true;
        readyContainers++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = arr(status.conditions).some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  let restartsCell = String(restarts);
  if (restarts !== 0 && lastRestart > 0)
    restartsCell = `${restarts} (${ageSince(new Date(lastRestart).toISOString(), now)} ago)`;

  const podIPs = arr(status.podIPs);
  const ip = s(podIPs[0]?.ip) || s(status.podIP);
  const gates = arr(spec.readinessGates);
  let gatesCell = '<none>';
  if (gates.length > 0) {
    const conditions = arr(status.conditions);
    const trueGates = gates.filter((g) =>
      conditions.some((c) => c.type === g.conditionType && c.status === 'True'),
    ).length;
    gatesCell = `${trueGates}/${gates.length}`;
  }
  return [
    pod.metadata.name ?? '',
    `${readyContainers}/${containers.length}`,
    reason,
    restartsCell,
    ageSince(pod.metadata.creationTimestamp, now),
    orNone(ip),
    orNone(s(spec.nodeName)),
    orNone(s(status.nominatedNodeName)),
    gatesCell,
  ];
}

/** metav1.FormatLabelSelector: `app=web,tier in (a,b)`, or `<none>`. */
export function formatLabelSelector(sel: unknown): string {
  if (!isPlainObject(sel)) return '<none>';
  const reqs: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(o(sel.matchLabels))) reqs.push([k, `${k}=${s(v)}`]);
  for (const e of arr(sel.matchExpressions)) {
    const k = s(e.key);
    const values = (Array.isArray(e.values) ? e.values.map(String) : []).sort();
    switch (e.operator) {
      case 'In':
        reqs.push([k, `${k} in (${values.join(',')})`]);
        break;
      case 'NotIn':
        reqs.push([k, `${k} notin (${values.join(',')})`]);
        break;
      case 'Exists':
        reqs.push([k, k]);
        break;
      case 'DoesNotExist':
        reqs.push([k, `!${k}`]);
        break;
      default:
        break;
    }
  }
  reqs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return orNone(reqs.map((r) => r[1]).join(','));
}

function replicaSetCells(rs: KubeObject, now: number): Cell[] {
  const spec = o(rs.spec);
  const status = o(rs.status);
  const containers = arr(o(o(spec.template).spec).containers);
  return [
    rs.metadata.name ?? '',
    typeof spec.replicas === 'number' ? spec.replicas : 1,
    n(status.replicas),
    n(status.readyReplicas),
    ageSince(rs.metadata.creationTimestamp, now),
    containers.map((c) => s(c.name)).join(','),
    containers.map((c) => s(c.image)).join(','),
    formatLabelSelector(spec.selector),
  ];
}

/** The built-in Deployment printer's row: READY is ready/desired, then up-to-date and available counts. */
function deploymentCells(d: KubeObject, now: number): Cell[] {
  const spec = o(d.spec);
  const status = o(d.status);
  const containers = arr(o(o(spec.template).spec).containers);
  return [
    d.metadata.name ?? '',
    `${n(status.readyReplicas)}/${n(spec.replicas)}`,
    n(status.updatedReplicas),
    n(status.availableReplicas),
    ageSince(d.metadata.creationTimestamp, now),
    containers.map((c) => s(c.name)).join(','),
    containers.map((c) => s(c.image)).join(','),
    formatLabelSelector(spec.selector),
  ];
}

function nodeRoles(labels: Record<string, string>): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels)) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return [...roles].sort();
}

function nodeCells(node: KubeObject, now: number): Cell[] {
  const status = o(node.status);
  const ready = arr(status.conditions).find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (o(node.spec).unschedulable === true) parts.push('SchedulingDisabled');
  const info = o(status.nodeInfo);
  const address = (type: string): string => orNone(s(arr(status.addresses).find((a) => a.type === type)?.address));
  const unknown = (v: unknown): string => s(v) || '<unknown>';
  return [
    node.metadata.name ?? '',
    parts.join(','),
    orNone(nodeRoles(node.metadata.labels ?? {}).join(',')),
    ageSince(node.metadata.creationTimestamp, now),
    s(info.kubeletVersion),
    address('InternalIP'),
    address('ExternalIP'),
    unknown(info.osImage),
    unknown(info.kernelVersion),
    unknown(info.containerRuntimeVersion),
  ];
}

function eventCells(ev: KubeObject, now: number): Cell[] {
  let first = ageSince(ev.firstTimestamp, now);
  if (!s(ev.firstTimestamp)) first = ageSince(ev.eventTime, now);
  let last = s(ev.lastTimestamp) ? ageSince(ev.lastTimestamp, now) : first;
  let count = n(ev.count);
  const series = isPlainObject(ev.series) ? ev.series : undefined;
  if (series) {
    last = ageSince(series.lastObservedTime, now);
    count = n(series.count);
  } else if (count === 0) count = 1;
  const involved = o(ev.involvedObject);
  const kind = s(involved.kind).toLowerCase();
  const target = s(involved.name) ? `${kind}/${s(involved.name)}` : kind;
  const source = o(ev.source);
  let sourceCell = s(source.component) || s(ev.reportingComponent) || s(ev.reportingController);
  const host = s(source.host) || s(ev.reportingInstance);
  if (host) sourceCell = sourceCell ? `${sourceCell}, ${host}` : host;
  return [
    last,
    s(ev.type),
    s(ev.reason),
    target,
    s(involved.fieldPath),
    sourceCell,
    s(ev.message).trim(),
    first,
    count,
    ev.metadata.name ?? '',
  ];
}

function rfc3339(ts: unknown): string {
  const t = Date.parse(s(ts));
  return Number.isNaN(t) ? '' : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const createdAtCol = col('Created At', 'date', CREATION_DESCRIPTION);
const createdAtPrinter: Printer = {
  columns: [nameCol, createdAtCol],
  cells: (x) => [x.metadata.name ?? '', rfc3339(x.metadata.creationTimestamp)],
};

const PRINTERS: Record<string, Printer> = {
  '/Pod': {
    columns: [
      nameCol,
      col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
      col('Status', 'string', 'The aggregate status of the containers in this pod.'),
      col(
        'Restarts',
        'string',
        'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
      ),
      ageCol,
      col(
        'IP',
        'string',
        'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
        1,
      ),
      col('Node', 'string', 'NodeName is a request to schedule this pod onto a specific node.', 1),
      col(
        'Nominated Node',
        'string',
        'nominatedNodeName is set only when this pod preempts other pods on the node.',
        1,
      ),
      col('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
    ],
    cells: podCells,
  },
  'apps/ReplicaSet': {
    columns: [
      nameCol,
      col('Desired', 'integer', 'Replicas is the number of desired replicas.'),
      col('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
      col('Ready', 'integer', 'The number of ready replicas for this replica set.'),
      ageCol,
      col('Containers', 'string', 'Names of each container in the template.', 1),
      col('Images', 'string', 'Images referenced by each container in the template.', 1),
      col('Selector', 'string', 'Selector is a label query over pods that should match the replica count.', 1),
    ],
    cells: replicaSetCells,
  },
  'apps/Deployment': {
    columns: [
      nameCol,
      col('Ready', 'string', 'Number of the pod with ready state'),
      col(
        'Up-to-date',
        'string',
        'Total number of non-terminating pods targeted by this deployment that have the desired template spec.',
      ),
      col(
        'Available',
        'string',
        'Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.',
      ),
      ageCol,
      col('Containers', 'string', 'Names of each container in the template.', 1),
      col('Images', 'string', 'Images referenced by each container in the template.', 1),
      col(
        'Selector',
        'string',
        "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.",
        1,
      ),
    ],
    cells: deploymentCells,
  },
  '/Node': {
    columns: [
      nameCol,
      col('Status', 'string', 'The status of the node'),
      col('Roles', 'string', 'The roles of the node'),
      ageCol,
      col('Version', 'string', 'Kubelet Version reported by the node.'),
      col(
        'Internal-IP',
        'string',
        'List of addresses reachable to the node. Queried from cloud provider, if available.',
        1,
      ),
      col(
        'External-IP',
        'string',
        'List of addresses reachable to the node. Queried from cloud provider, if available.',
        1,
      ),
      col(
        'OS-Image',
        'string',
        'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
        1,
      ),
      col(
        'Kernel-Version',
        'string',
        "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
        1,
      ),
      col(
        'Container-Runtime',
        'string',
        'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
        1,
      ),
    ],
    cells: nodeCells,
  },
  '/Namespace': {
    columns: [nameCol, col('Status', 'string', 'The status of the namespace'), ageCol],
    cells: (x, now) => [x.metadata.name ?? '', s(o(x.status).phase), ageSince(x.metadata.creationTimestamp, now)],
  },
  '/Event': {
    columns: [
      col('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
      col('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future.'),
      col(
        'Reason',
        'string',
        "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      ),
      col('Object', 'string', 'The object that this event is about.'),
      col('Subobject', 'string', 'The subobject that this event is about.', 1),
      col(
        'Source',
        'string',
        'The component reporting this event. Should be a short machine understandable string.',
        1,
      ),
      col('Message', 'string', 'A human-readable description of the status of this operation.'),
      col(
        'First Seen',
        'string',
        'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
        1,
      ),
      col('Count', 'integer', 'The number of times this event has occurred.', 1),
      col('Name', 'string', NAME_DESCRIPTION, 1, 'name'),
    ],
    cells: eventCells,
  },
  'coordination.k8s.io/Lease': {
    columns: [
      nameCol,
      col('Holder', 'string', 'HolderIdentity contains the identity of the holder of a current lease.'),
      ageCol,
    ],
    cells: (x, now) => [
      x.metadata.name ?? '',
      s(o(x.spec).holderIdentity),
      ageSince(x.metadata.creationTimestamp, now),
    ],
  },
  'policy/PodDisruptionBudget': {
    columns: [
      nameCol,
      col(
        'Min Available',
        'string',
        'The minimum number of pods that must be available simultaneously.  This can be either an integer or a string specifying a percentage, e.g. "28%".',
      ),
      col(
        'Max Unavailable',
        'string',
        'The maximum number of pods that may be unavailable simultaneously.  This can be either an integer or a string specifying a percentage, e.g. "28%".',
      ),
      col('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
      ageCol,
    ],
    cells: (x, now) => {
      const spec = o(x.spec);
      return [
        x.metadata.name ?? '',
        spec.minAvailable === undefined ? 'N/A' : intOrString(spec.minAvailable),
        spec.maxUnavailable === undefined ? 'N/A' : intOrString(spec.maxUnavailable),
        n(o(x.status).disruptionsAllowed),
        ageSince(x.metadata.creationTimestamp, now),
      ];
    },
  },
  'apiextensions.k8s.io/CustomResourceDefinition': createdAtPrinter,
};

// ---------------------------------------------------------------------------------------------
// Custom resources (additionalPrinterColumns)

/** A printer column's cell: the JSONPath value coerced to the column type, dates as ages. */
export function columnCell(column: PrinterColumn, obj: unknown, now: number): Cell {
  const results = findResults(obj, column.jsonPath);
  if (results.length === 0) return null;
  const value = results[0];
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case 'string':
      return formatPlain(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      if (value === '') return '<unknown>';
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : ageSince(value, now);
    }
    default:
      return null;
  }
}

function customResourcePrinter(version: ServedVersion | undefined): Printer {
  const specified = version?.additionalPrinterColumns ?? [];
  const columns: PrinterColumn[] =
    specified.length > 0
      ? specified
      : [
          {
            name: 'Age',
            type: 'date',
            priority: 0,
            jsonPath: '.metadata.creationTimestamp',
            description: CREATION_DESCRIPTION,
          },
        ];
  return {
    columns: [
      nameCol,
      ...columns.map((c) =>
        col(
          c.name,
          c.type,
          c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
          c.priority ?? 0,
          c.format ?? '',
        ),
      ),
    ],
    cells: (x, now) => [x.metadata.name ?? '', ...columns.map((c) => columnCell(c, x, now))],
  };
}

function printerFor(info: ResourceInfo, version: ServedVersion | undefined): Printer {
  if (version) return customResourcePrinter(version);
  return PRINTERS[`${info.group}/${info.kind}`] ?? createdAtPrinter;
}

/** The Table for a list (or one object) of `info`'s kind. */
export function toTable(info: ResourceInfo, objects: KubeObject[], opts: TableOptions): object {
  const printer = printerFor(info, opts.version);
  const include = opts.includeObject ?? 'Metadata';
  const rows = objects.map((x) => {
    const row: Obj = { cells: printer.cells(x, opts.now) };
    if (include === 'Object') row.object = x;
    else if (include === 'Metadata')
      row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: x.metadata };
    return row;
  });
  const metadata: Obj = {};
  if (opts.resourceVersion) metadata.resourceVersion = opts.resourceVersion;
  if (opts.continue) metadata.continue = opts.continue;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    ...(opts.noHeaders ? {} : { columnDefinitions: printer.columns }),
    rows,
  };
}
