// Which Deployment a command acts on: Pacer's own kind (deployments.pacer.dev, a bare NAME as
// always) or, in native mode (docs/native.md), an apps/v1 Deployment named the way kubectl names it
// with its group: `deployment.apps/NAME` (also `deployments.apps/`, `deploy.apps/`,
// `deployment.v1.apps/`). kubectl reads a bare `deployment/NAME` as apps/v1's, while the plugin
// has always read NAME as Pacer's: that spelling is refused with the two that say which is meant.
// An apps/v1 Deployment keeps its revisions under upstream's keys (deployment.kubernetes.io/...):
// its objects are read in Pacer's keys (engine/native.ts) by the code the two kinds share.

import type { Deployment, ReplicaSet } from '../api/types.ts';
import { GROUP, PLURAL, isAppsDeployment } from '../api/types.ts';
import { controllerOf } from '../api/owners.ts';
import { withNativeAdditions } from '../api/native.ts';
import { APPS_DEPLOYMENTS, DEPLOYMENTS } from '../kube/client.ts';
import type { ResourceType } from '../kube/client.ts';
import { inPacerKeys, statusFromAnnotations } from '../engine/index.ts';
import { PluginError } from './errors.ts';

export interface DeploymentKind {
  /** An apps/v1 Deployment (native mode). */
  native: boolean;
  type: ResourceType;
  /** The resource as kubectl names it in errors: `deployments.pacer.dev`. */
  resource: string;
  /** Before a verb: `deployment.pacer.dev/web paused`. */
  prefix: string;
}

export const PACER_KIND: DeploymentKind = {
  native: false,
  type: DEPLOYMENTS,
  resource: `${PLURAL}.${GROUP}`,
  prefix: `deployment.${GROUP}/`,
};
export const APPS_KIND: DeploymentKind = {
  native: true,
  type: APPS_DEPLOYMENTS,
  resource: 'deployments.apps',
  prefix: 'deployment.apps/',
};

const APPS_TYPES = new Set([
  'deployment.apps',
  'deployments.apps',
  'deploy.apps',
  'deployment.v1.apps',
  'deployments.v1.apps',
]);
const PACER_TYPES = new Set([
  'pdeploy',
  'deployment.pacer.dev',
  'deployments.pacer.dev',
  'deployment.v1alpha1.pacer.dev',
  'deployments.v1alpha1.pacer.dev',
]);
const AMBIGUOUS = new Set(['deployment', 'deployments', 'deploy']);

/** A command's Deployment argument: NAME (Pacer's kind) or TYPE/NAME as kubectl spells it. */
export function parseDeploymentArg(arg: string): { name: string; kind: DeploymentKind } {
  const slash = arg.indexOf('/');
  if (slash < 0) return { name: arg, kind: PACER_KIND };
  const type = arg.slice(0, slash).toLowerCase();
  const name = arg.slice(slash + 1);
  if (name === '' || name.includes('/'))
    throw new PluginError(`arguments in resource/name form must have a single resource and name: "${arg}"`);
  if (APPS_TYPES.has(type)) return { name, kind: APPS_KIND };
  if (PACER_TYPES.has(type)) return { name, kind: PACER_KIND };
  if (AMBIGUOUS.has(type))
    throw new PluginError(
      `"${arg}" is ambiguous here: kubectl reads ${type} as apps/v1's Deployment, kubectl pacer reads a bare name as Pacer's; write deployment.apps/${name} for the apps/v1 Deployment (native mode) or ${name} (deployment.pacer.dev/${name}) for Pacer's`,
    );
  throw new PluginError(
    `"${arg}" is not a Deployment: kubectl pacer acts on NAME or deployment.pacer.dev/NAME (Pacer's kind) and deployment.apps/NAME (an apps/v1 Deployment in native mode)`,
  );
}

/** The kind of a Deployment as read (a single GET or a watch event names its apiVersion). */
export function kindOf(d: { apiVersion?: string }): DeploymentKind {
  return isAppsDeployment(d) ? APPS_KIND : PACER_KIND;
}

/** A ReplicaSet in Pacer's keys: those an apps/v1 Deployment controls carry upstream's. */
export function replicaSetInPacerKeys(rs: ReplicaSet): ReplicaSet {
  return controllerOf(rs)?.apiVersion === 'apps/v1' ? inPacerKeys(rs) : rs;
}

/**
 * The Deployment as the engine reads it: an apps/v1 one in Pacer's keys, its annotations' additions
 * in its spec (so its strategy and plan show as they roll) and the analysis' bookkeeping
 * annotations in its status (pacer.dev/stable-rs as status.stableRS). `kind` stamps the apiVersion
 * a list's items come without.
 */
export function deploymentAsEngineReads(d: Deployment, kind: DeploymentKind = kindOf(d)): Deployment {
  if (!kind.native) return d;
  return withNativeAdditions(statusFromAnnotations(inPacerKeys({ ...d, apiVersion: 'apps/v1' }))).d;
}
