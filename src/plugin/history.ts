// `kubectl pacer rollout history NAME [--revision=N]`: the REVISION / CHANGE-CAUSE table of
// kubectl (tabwriter padding 2), and one revision's pod template in `kubectl describe` style.

import type { Deployment, PodTemplateSpec, ReplicaSet } from '../api/types.ts';
import { controllerOf } from '../api/owners.ts';
import { REPLICASETS } from '../kube/client.ts';
import { CHANGE_CAUSE_ANNOTATION, revisionOf } from '../engine/index.ts';
import { selectorToString } from '../api/selector.ts';
import { PluginError } from './errors.ts';
import { PACER_KIND, kindOf, replicaSetInPacerKeys } from './target.ts';
import type { DeploymentKind } from './target.ts';
import type { Session } from './options.ts';
import { printData } from './options.ts';
import { tabwrite } from './format.ts';

export interface Revision {
  revision: number;
  changeCause: string;
  replicaSet: ReplicaSet;
}

/** The ReplicaSets of `d` (controller reference to its uid), read fresh. */
export async function ownedReplicaSets(s: Session, d: Deployment): Promise<ReplicaSet[]> {
  const list = await s.client.list<ReplicaSet>(REPLICASETS, s.namespace, {
    labelSelector: selectorToString(d.spec.selector),
  });
  return list.items.filter((rs) => controllerOf(rs)?.uid === d.metadata.uid);
}

/**
 * One entry per ReplicaSet with a parseable revision, ascending; `warnings` names the others. The
 * revision is under the keys of the ReplicaSet's controller's kind (upstream's for an apps/v1 one).
 */
export function revisions(rss: readonly ReplicaSet[], warnings: string[] = []): Revision[] {
  const out: Revision[] = [];
  for (const rs of rss) {
    const v = revisionOf(replicaSetInPacerKeys(rs));
    if (v === null) {
      warnings.push(`Warning: unable to parse the revision of replica set "${rs.metadata.name}"`);
      continue;
    }
    out.push({ revision: v, changeCause: rs.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION] ?? '', replicaSet: rs });
  }
  return out.sort((a, b) => a.revision - b.revision);
}

/** kubectl's history output: `deployment.pacer.dev/web ` (trailing space), the table, a blank line. */
export function historyTable(name: string, revs: readonly Revision[], k: DeploymentKind = PACER_KIND): string {
  if (revs.length === 0) return 'No rollout history found.\n';
  let table = 'REVISION\tCHANGE-CAUSE\n';
  for (const r of revs) table += `${r.revision}\t${r.changeCause || '<none>'}\n`;
  return `${k.prefix}${name} \n${tabwrite(table, { minwidth: 0, padding: 2 })}\n`;
}

type Json = Record<string, unknown>;

function kv(map: Record<string, string> | undefined, sep: string): string[] {
  const keys = Object.keys(map ?? {}).sort();
  return keys.map((k) => `${k}${sep}${map![k]}`);
}

/** Lines `Key:\tfirst` then `\tnext` for each further value (describe's multi-value fields). */
function multi(indent: string, key: string, values: string[]): string[] {
  if (values.length === 0) return [`${indent}${key}:\t<none>`];
  return [`${indent}${key}:\t${values[0]}`, ...values.slice(1).map((v) => `${indent}\t${v}`)];
}

function probeText(p: Json): string {
  const delay = `delay=${Number(p.initialDelaySeconds ?? 0)}s timeout=${Number(p.timeoutSeconds ?? 1)}s period=${Number(p.periodSeconds ?? 10)}s #success=${Number(p.successThreshold ?? 1)} #failure=${Number(p.failureThreshold ?? 3)}`;
  const http = p.httpGet as Json | undefined;
  if (http)
    return `http-get ${String(http.scheme ?? 'HTTP').toLowerCase()}://${String(http.host ?? '')}:${String(http.port ?? '')}${String(http.path ?? '')} ${delay}`;
  const tcp = p.tcpSocket as Json | undefined;
  if (tcp) return `tcp-socket ${String(tcp.host ?? '')}:${String(tcp.port ?? '')} ${delay}`;
  const exec = p.exec as Json | undefined;
  if (exec) return `exec [${((exec.command as string[] | undefined) ?? []).join(' ')}] ${delay}`;
  const grpc = p.grpc as Json | undefined;
  if (grpc) return `grpc <pod>:${String(grpc.port ?? '')} ${String(grpc.service ?? '')} ${delay}`;
  return `unknown ${delay}`;
}

function resources(indent: string, title: string, r: Json | undefined): string[] {
  if (!r || Object.keys(r).length === 0) return [];
  return [
    `${indent}${title}:`,
    ...Object.keys(r)
      .sort()
      .map((k) => `${indent}  ${k}:\t${String(r[k])}`),
  ];
}

function containerLines(c: Json): string[] {
  const i = '    ';
  const lines = [`   ${String(c.name)}:`];
  lines.push(`${i}Image:\t${String(c.image ?? '')}`);
  const ports = (c.ports as Json[] | undefined) ?? [];
  lines.push(
    ...multi(
      i,
      'Port',
      ports.map(
        (p) => `${String(p.containerPort)}/${String(p.protocol ?? 'TCP')}${p.name ? ` (${String(p.name)})` : ''}`,
      ),
    ),
  );
  lines.push(
    ...multi(
      i,
      'Host Port',
      ports.map(
        (p) => `${Number(p.hostPort ?? 0)}/${String(p.protocol ?? 'TCP')}${p.name ? ` (${String(p.name)})` : ''}`,
      ),
    ),
  );
  if (Array.isArray(c.command)) lines.push(`${i}Command:`, ...(c.command as string[]).map((a) => `${i}  ${a}`));
  if (Array.isArray(c.args)) lines.push(`${i}Args:`, ...(c.args as string[]).map((a) => `${i}  ${a}`));
  const res = (c.resources as Json | undefined) ?? {};
  lines.push(...resources(i, 'Limits', res.limits as Json | undefined));
  lines.push(...resources(i, 'Requests', res.requests as Json | undefined));
  if (c.livenessProbe) lines.push(`${i}Liveness:\t${probeText(c.livenessProbe as Json)}`);
  if (c.readinessProbe) lines.push(`${i}Readiness:\t${probeText(c.readinessProbe as Json)}`);
  if (c.startupProbe) lines.push(`${i}Startup:\t${probeText(c.startupProbe as Json)}`);
  const env = (c.env as Json[] | undefined) ?? [];
  if (env.length === 0) lines.push(`${i}Environment:\t<none>`);
  else
    lines.push(
      `${i}Environment:`,
      ...env.map((e) => `${i}  ${String(e.name)}:\t${e.value !== undefined ? String(e.value) : '<set from a source>'}`),
    );
  const mounts = (c.volumeMounts as Json[] | undefined) ?? [];
  lines.push(
    ...multi(
      i,
      'Mounts',
      mounts.map((m) => `${String(m.mountPath)} from ${String(m.name)} (${m.readOnly ? 'ro' : 'rw'})`),
    ),
  );
  return lines;
}

/** A pod template in `kubectl describe` form ("Pod Template:" and indented fields), aligned. */
export function describeTemplate(t: PodTemplateSpec | undefined): string {
  const spec = (t?.spec ?? {}) as Json;
  const lines = ['Pod Template:'];
  lines.push(...multi('  ', 'Labels', kv(t?.metadata?.labels, '=')));
  const annotations = kv(t?.metadata?.annotations, ': ');
  if (annotations.length > 0) lines.push(...multi('  ', 'Annotations', annotations));
  if (spec.serviceAccountName) lines.push(`  Service Account:\t${String(spec.serviceAccountName)}`);
  const init = (spec.initContainers as Json[] | undefined) ?? [];
  if (init.length > 0) lines.push('  Init Containers:', ...init.flatMap(containerLines));
  lines.push('  Containers:', ...((spec.containers as Json[] | undefined) ?? []).flatMap(containerLines));
  const volumes = (spec.volumes as Json[] | undefined) ?? [];
  lines.push(
    ...multi(
      '  ',
      'Volumes',
      volumes.map((v) => String(v.name)),
    ),
  );
  lines.push(...multi('  ', 'Node-Selectors', kv(spec.nodeSelector as Record<string, string> | undefined, '=')));
  const tolerations = (spec.tolerations as Json[] | undefined) ?? [];
  lines.push(
    ...multi(
      '  ',
      'Tolerations',
      tolerations.map(
        (x) => `${String(x.key ?? '')}${x.value ? `=${String(x.value)}` : ''}${x.effect ? `:${String(x.effect)}` : ''}`,
      ),
    ),
  );
  return tabwrite(`${lines.join('\n')}\n`, { minwidth: 0, padding: 2 });
}

/** `--revision=N` output: the header line and the template. Throws kubectl's error for a missing N. */
export function revisionDetail(
  name: string,
  revs: readonly Revision[],
  n: number,
  k: DeploymentKind = PACER_KIND,
): string {
  const r = revs.find((x) => x.revision === n);
  if (!r) throw new PluginError('unable to find the specified revision');
  return `${k.prefix}${name} with revision #${n}\n${describeTemplate(r.replicaSet.spec.template)}`;
}

export async function runRolloutHistory(
  s: Session,
  name: string,
  o: { revision: number; output?: string },
): Promise<number> {
  const d = await s.client.getDeployment(s.namespace, name);
  const warnings: string[] = [];
  const revs = revisions(await ownedReplicaSets(s, d), warnings);
  for (const w of warnings) s.io.stderr.write(`${w}\n`);
  if (o.output) {
    if (o.revision > 0) {
      const r = revs.find((x) => x.revision === o.revision);
      if (!r) throw new PluginError('unable to find the specified revision');
      printData(s.io, o.output, r.replicaSet.spec.template ?? {});
    } else {
      printData(s.io, o.output, { apiVersion: 'v1', kind: 'List', items: revs.map((r) => r.replicaSet), metadata: {} });
    }
    return 0;
  }
  const k = kindOf(d);
  s.io.stdout.write(o.revision > 0 ? revisionDetail(name, revs, o.revision, k) : historyTable(name, revs, k));
  return 0;
}
