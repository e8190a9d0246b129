// The defaults the API server fills into a pod template (core/v1 SetDefaults_PodSpec, _Container,
// _Probe, _Volume ... as they show in `kubectl get rs -o yaml`). A pacer.dev Deployment is a custom
// resource, so its template is stored as written while the ReplicaSets made from it are defaulted:
// templates are compared with these defaults applied to both sides, as upstream compares two
// templates that the API server has both defaulted. A default missing here only costs a rollout
// where none was needed (and the pod-template-hash label still finds the ReplicaSet Pacer made).

import type { PodSpec } from './types.ts';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `nginx` and `nginx:latest` are pulled Always, anything tagged or pinned by digest IfNotPresent. */
export function defaultImagePullPolicy(image: string): 'Always' | 'IfNotPresent' {
  if (image.includes('@')) return 'IfNotPresent';
  const last = image.slice(image.lastIndexOf('/') + 1);
  const colon = last.indexOf(':');
  const tag = colon < 0 ? undefined : last.slice(colon + 1);
  return tag === undefined || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function withHandlerDefaults(h: unknown): unknown {
  if (!isObj(h) || !isObj(h.httpGet)) return h;
  return { ...h, httpGet: { scheme: 'HTTP', ...h.httpGet } };
}

function withProbeDefaults(p: unknown): unknown {
  if (!isObj(p)) return p;
  return {
    timeoutSeconds: 1,
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
    ...(withHandlerDefaults(p) as Obj),
  };
}

function withContainerDefaults(c: unknown): unknown {
  if (!isObj(c)) return c;
  const out: Obj = { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', ...c };
  if (out.imagePullPolicy === undefined && typeof c.image === 'string')
    out.imagePullPolicy = defaultImagePullPolicy(c.image);
  if (Array.isArray(c.ports)) out.ports = c.ports.map((p) => (isObj(p) ? { protocol: 'TCP', ...p } : p));
  for (const k of ['livenessProbe', 'readinessProbe', 'startupProbe'])
    if (c[k] !== undefined) out[k] = withProbeDefaults(c[k]);
  if (isObj(c.lifecycle)) {
    const l: Obj = { ...c.lifecycle };
    for (const k of ['postStart', 'preStop']) if (l[k] !== undefined) l[k] = withHandlerDefaults(l[k]);
    out.lifecycle = l;
  }
  if (Array.isArray(c.env)) {
    out.env = c.env.map((e) => {
      if (!isObj(e) || !isObj(e.valueFrom) || !isObj(e.valueFrom.fieldRef)) return e;
      return { ...e, valueFrom: { ...e.valueFrom, fieldRef: { apiVersion: 'v1', ...e.valueFrom.fieldRef } } };
    });
  }
  return out;
}

const MODE_SOURCES = ['secret', 'configMap', 'projected', 'downwardAPI'];
const VOLUME_SOURCES = [
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'downwardAPI',
  'fc',
  'azureFile',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  'image',
];

function withVolumeDefaults(v: unknown): unknown {
  if (!isObj(v)) return v;
  const out: Obj = { ...v };
  if (!VOLUME_SOURCES.some((k) => v[k] !== undefined)) out.emptyDir = {};
  for (const k of MODE_SOURCES) if (isObj(v[k])) out[k] = { defaultMode: 420, ...v[k] };
  if (isObj(v.hostPath)) out.hostPath = { type: '', ...v.hostPath };
  return out;
}

/** A copy of `spec` with the API server's defaults filled in; `spec` is not changed. */
export function podSpecWithDefaults(spec: PodSpec | undefined): PodSpec {
  const s: Obj = {
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    schedulerName: 'default-scheduler',
    securityContext: {},
    ...(spec ?? {}),
  };
  for (const k of ['containers', 'initContainers', 'ephemeralContainers']) {
    if (Array.isArray(s[k])) s[k] = (s[k] as unknown[]).map(withContainerDefaults);
  }
  if (Array.isArray(s.volumes)) s.volumes = (s.volumes as unknown[]).map(withVolumeDefaults);
  return s;
}
