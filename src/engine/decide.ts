// decide(): one reconcile pass of a Deployment. First an operator's requests that reach the other
// apps of its deployment plan (requests.ts: force, cancel); then upstream syncDeployment's order (docs/semantics/kubernetes-deployments.md#the-reconcile-pass):
// validation, empty selector, claim, deletion, the freeze (Pacer's: freeze.ts), paused conditions, paused → scale only, legacy
// rollback, scaling event → scale only, else the strategy's rollout step (strategies/). Every
// write is listed once, in the order issued; the status is written once, at the end, only when it
// changed.

import type { Deployment, DeploymentStatus, ReplicaSet } from '../api/types.ts';
import { withDefaults } from '../api/defaults.ts';
import { isEmptySelector } from '../api/selector.ts';
import { onAnnotations, withNativeAdditions } from '../api/native.ts';
import { deploymentKey } from '../api/dependencies.ts';
import { formatFieldError, validateDeployment, type FieldError } from '../api/validation.ts';
import { claimReplicaSets } from './kubernetes/claim.ts';
import { controllerOf } from '../api/owners.ts';
import {
  INVALID_SPEC,
  PROGRESSING,
  conditionChangeEvents,
  MESSAGE,
  REASON,
  getCondition,
  newCondition,
  removeCondition,
  setCondition,
} from './kubernetes/conditions.ts';
import { startPass } from './kubernetes/pass.ts';
import type { DecisionPass } from './kubernetes/pass.ts';
import { limitsOf } from './fenceposts.ts';
import { customPlanHold } from './dcos/custom.ts';
import { PLAN_STATE_ANNOTATION } from './dcos/gate.ts';
import { getAllReplicaSetsAndSyncRevision, templateHash } from './kubernetes/newreplicaset.ts';
import { checkDependencies, withDependentsFinalizer } from './marathon/dependencies.ts';
import { checkPausedConditions, deploymentComplete, hasProgressDeadline } from './kubernetes/progress.ts';
import { checkFrozenConditions, scalesUpOnly } from './freeze.ts';
import { activeReplicaSets, deploymentReplicas, desiredReplicasOf } from './kubernetes/replicasets.ts';
import { decideRequests } from './marathon/requests.ts';
import { rollbackFromAnnotation, rollbackToRevision } from './kubernetes/rollback.ts';
import { isScalingEvent, scale } from './kubernetes/scale.ts';
import { calculateStatus, statusEqual } from './kubernetes/status.ts';
import { cleanupDeployment, current, currentAll } from './kubernetes/steps.ts';
import { DEFAULT_STRATEGY, strategyNamed, strategyOf } from './strategies/index.ts';
import { equalIgnoreHash } from './kubernetes/template.ts';
import { POD_TEMPLATE_HASH_LABEL, templateHashOf } from './kubernetes/hash.ts';
import { TemplateValueError } from './kubernetes/spew.ts';
import { findNewReplicaSet } from './kubernetes/replicasets.ts';
import { abortRollout, analysisVerdict, nextStableRS } from './analysis/rollout.ts';
import type { AnalysisVerdict } from './analysis/rollout.ts';
import type { Action, Decision, EventRecord, Snapshot } from './types.ts';
import { inUpstreamKeys } from './native.ts';
import { windowHold } from './windows.ts';
import { specReplicas } from './kubernetes/replicasets.ts';

export interface DecideOptions {
  /** Spec validation (defaults applied); the API package's validateDeployment unless replaced. */
  validate?: (d: Deployment) => FieldError[];
}

export const SELECTING_ALL_EVENT: EventRecord = {
  type: 'Warning',
  reason: 'SelectingAll',
  message: 'This deployment is selecting all pods. A non-empty selector is required.',
};

/** withDefaults, skipped (no deep copy) when every default is already present, as stored objects have them. */
export function defaulted(d: Deployment): Deployment {
  const s = d.spec;
  const st = s?.strategy;
  const complete =
    s !== undefined &&
    s.replicas !== undefined &&
    st?.type &&
    strategyNamed(st.type)?.needsDefaults(st) !== true && // an unknown type has no defaults: validation reports it
    s.revisionHistoryLimit !== undefined &&
    s.progressDeadlineSeconds !== undefined &&
    s.minReadySeconds !== undefined &&
    s.paused !== undefined;
  return complete ? d : withDefaults(d);
}

const key = (d: Deployment) => deploymentKey(d.metadata.namespace, d.metadata.name);

interface Validated {
  spec: Deployment['spec'];
  generation: number | undefined;
  resourceVersion: string;
  errors: FieldError[];
}

// Validation runs once per stored version of a Deployment: the result is kept for the object and
// reused only while spec object, generation and resourceVersion are all unchanged.
const validated = new WeakMap<Deployment, Validated>();

function validate(stored: Deployment, d: Deployment): FieldError[] {
  const rv = stored.metadata.resourceVersion;
  const hit = validated.get(stored);
  if (
    hit &&
    rv !== undefined &&
    hit.spec === stored.spec &&
    hit.generation === stored.metadata.generation &&
    hit.resourceVersion === rv
  ) {
    return hit.errors;
  }
  const errors = validateDeployment(d);
  if (rv !== undefined)
    validated.set(stored, { spec: stored.spec, generation: stored.metadata.generation, resourceVersion: rv, errors });
  return errors;
}

/** One reconcile pass: the writes to issue and the state they lead to. */
export function decide(snapshot: Snapshot, options: DecideOptions = {}): Decision {
  // An apps/v1 Deployment's bookkeeping annotations are upstream's keys (native.ts).
  return inUpstreamKeys(snapshot, (s) => decideOne(s, options));
}

function decideOne(snapshot: Snapshot, options: DecideOptions): Decision {
  const request = decideRequests(snapshot);
  if (request && 'decision' in request) return request.decision;
  const decision = withDependentsFinalizer(snapshot, decidePass(snapshot, options));
  if (request)
    decision.requeueAfterSeconds = Math.min(
      decision.requeueAfterSeconds ?? Number.POSITIVE_INFINITY,
      request.waitSeconds,
    );
  return decision;
}

function decidePass(snapshot: Snapshot, options: DecideOptions): Decision {
  // An apps/v1 Deployment's Pacer additions are annotations, read into the spec here (api/native.ts).
  const native = withNativeAdditions(snapshot.deployment);
  const d = defaulted(native.d);
  let errors = options.validate ? options.validate(d) : validate(native.d, d);
  if (native.d !== snapshot.deployment || native.errors.length > 0)
    errors = [...native.errors, ...onAnnotations(errors)];
  if (errors.length > 0) return invalidSpecDecision(snapshot, d, errors);
  const unhashable = templateHashError(d);
  if (unhashable) return invalidSpecDecision(snapshot, d, [unhashable]);

  if (isEmptySelector(d.spec.selector)) {
    const pass = startPass(d, [], snapshot.replicaSets, snapshot.pods, snapshot.now, limitsOf(d));
    removeCondition(pass.status, INVALID_SPEC);
    pass.events.push(SELECTING_ALL_EVENT);
    if ((pass.status.observedGeneration ?? 0) < (d.metadata.generation ?? 0))
      pass.status.observedGeneration = d.metadata.generation;
    return finish(pass, snapshot, ownedAsIs(d, snapshot.replicaSets), []);
  }

  const claim = claimReplicaSets(d, snapshot.replicaSets);
  const plans = snapshot.plans;
  // What the new revision's analysis makes of this pass (analysis/rollout.ts): go on, hold, or go back.
  const verdict: AnalysisVerdict = d.spec.analysis
    ? analysisVerdict(
        d,
        claim.owned,
        findNewReplicaSet(d, claim.owned, templateHash(d, d.status?.collisionCount)),
        snapshot.analysis,
        snapshot.pods,
        snapshot.now,
        snapshot.dependents,
      )
    : NO_VERDICT;
  const hold =
    (plans && customPlanHold(d, plans.plans, (name) => plans.deployments.find((x) => x.metadata.name === name))) ??
    verdict.hold;
  // A canary step the analysis continues (analysis/canary.ts) is released in this very pass, and
  // its phase state written with the Deployment as `kubectl pacer plan continue` writes it.
  const dp = verdict.planState === undefined ? d : withPlanState(d, verdict.planState);
  // What the strategy and the gates allow, resolved once for the whole pass (limits.ts).
  const pass = startPass(dp, [...claim.owned], snapshot.replicaSets, snapshot.pods, snapshot.now, limitsOf(dp, hold));
  if (dp !== d) {
    pass.annotations = { ...pass.annotations }; // a new object: finish() writes the Deployment
    if (verdict.event) pass.deploymentUpdateEvent = verdict.event;
  }
  removeCondition(pass.status, INVALID_SPEC);
  for (const rs of claim.writes) {
    pass.actions.push({ verb: 'update', kind: 'ReplicaSet', name: rs.metadata.name ?? '', object: rs });
  }

  if (d.metadata.deletionTimestamp) {
    syncStatusOnly(pass);
  } else {
    // The freeze switch (freeze.ts) first: while frozen no rollout step, a scale-up only.
    checkFrozenConditions(d, pass.status, snapshot.freeze, deploymentComplete(d, pass.stored), pass.now);
    if (snapshot.freeze) frozenSync(pass);
    else syncDeployment(snapshot, d, pass, verdict);
    if (!pass.aborted) analysisWrites(pass, verdict, snapshot.dependents);
  }
  return finish(pass, snapshot, pass.rss, claim.released);
}

function withPlanState(d: Deployment, planState: string): Deployment {
  return {
    ...d,
    metadata: { ...d.metadata, annotations: { ...d.metadata.annotations, [PLAN_STATE_ANNOTATION]: planState } },
  };
}

/** Without spec.analysis: nothing to judge. */
const NO_VERDICT: AnalysisVerdict = { writes: [] };

/** The runs the analysis starts or stops, and status.stableRS (analysis/rollout.ts). */
function analysisWrites(pass: DecisionPass, verdict: AnalysisVerdict, dependents?: readonly Deployment[]): void {
  if (!pass.d.spec.analysis) {
    if (pass.status.stableRS !== undefined) delete pass.status.stableRS;
    if (pass.status.abortedRS !== undefined) delete pass.status.abortedRS;
    return;
  }
  for (const w of verdict.writes) pass.actions.push(w);
  if (verdict.requeueAfterSeconds !== undefined)
    pass.requeueAfterSeconds = Math.min(
      pass.requeueAfterSeconds ?? Number.POSITIVE_INFINITY,
      verdict.requeueAfterSeconds,
    );
  const newRS = findNewReplicaSet(pass.d, pass.rss, templateHash(pass.d, pass.status.collisionCount));
  const stable = nextStableRS(pass.d, deploymentComplete(pass.d, pass.status), newRS, verdict, dependents);
  if (stable === undefined) delete pass.status.stableRS;
  else pass.status.stableRS = stable;
  const aborted = verdict.podCheckFailed ? newRS?.metadata.labels?.[POD_TEMPLATE_HASH_LABEL] : undefined;
  if (aborted === undefined) delete pass.status.abortedRS;
  else pass.status.abortedRS = aborted;
}

/** syncDeployment's order after the deletion check: paused conditions, dependencies, paused, rollback, scaling, the rollout. */
function syncDeployment(snapshot: Snapshot, d: Deployment, pass: DecisionPass, verdict: AnalysisVerdict): void {
  checkPausedConditions(d, pass.status, pass.now);
  const rollbackTo = rollbackToRevision(d.metadata.annotations);
  if (!checkDependencies(snapshot, d, pass.status, pass.now)) {
    syncStatusOnly(pass); // waiting for dependencies: no progress (dependencies.ts)
  } else if (d.spec.paused) {
    sync(pass, rollbackTo === undefined);
  } else if (rollbackTo !== undefined) {
    rollback(pass, rollbackTo);
  } else if (verdict.abort) {
    abortRollout(pass, verdict.abort); // the analysis failed: back to the stable revision
  } else if (scalingEvent(pass)) {
    sync(pass, false);
  } else if (heldByWindow(pass)) {
    syncStatusOnly(pass); // outside its maintenance windows: no rollout step (windows.ts)
  } else {
    // A type no strategy implements only gets here past a caller's own validation (DecideOptions):
    // it takes the default's step, whose budget refuses it once one is needed.
    (strategyOf(d) ?? DEFAULT_STRATEGY).rollout(pass);
  }
}

/** While frozen: a larger spec.replicas is scaled up to (proportionally); nothing else changes size. */
function frozenSync(pass: DecisionPass): void {
  const { newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(pass, false);
  const all = [...oldRSs, newRS];
  if (
    isScalingEvent(pass.d, all) &&
    scalesUpOnly(deploymentReplicas(pass.d), activeReplicaSets(all).map(desiredReplicasOf))
  ) {
    scale(pass, current(pass, newRS), currentAll(pass, oldRSs));
  }
  syncDeploymentStatus(pass, newRS);
}

/** spec.windows: no window open and a rollout left to do holds it (Progressing OutsideWindow), looking again at the opening. */
function heldByWindow(pass: DecisionPass): boolean {
  if (!pass.d.spec.windows?.length && !pass.d.spec.blackouts?.length) return false;
  const { newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(pass, false);
  const pending = !newRS || oldRSs.some((rs) => specReplicas(rs) > 0);
  const held = windowHold(pass.d, pass.status, pending, pass.now);
  if (!held) return false;
  if (held.requeueAfterSeconds !== null)
    pass.requeueAfterSeconds = Math.min(pass.requeueAfterSeconds ?? Number.POSITIVE_INFINITY, held.requeueAfterSeconds);
  return true;
}

function scalingEvent(pass: DecisionPass): boolean {
  const { newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(pass, false);
  return isScalingEvent(pass.d, [...oldRSs, newRS]);
}

/** syncDeploymentStatus: calculateStatus only, no progress estimation. */
function syncDeploymentStatus(pass: DecisionPass, newRS: ReplicaSet | undefined): void {
  pass.status = calculateStatus(
    pass.d,
    pass.rss,
    current(pass, newRS),
    pass.status,
    pass.now,
    pass.limits.maxUnavailable,
  );
}

function syncStatusOnly(pass: DecisionPass): void {
  const { newRS } = getAllReplicaSetsAndSyncRevision(pass, false);
  syncDeploymentStatus(pass, newRS);
}

/** sync: scaling while paused or on a scaling event; cleanup only while paused. */
function sync(pass: DecisionPass, cleanup: boolean): void {
  const { newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(pass, false);
  scale(pass, current(pass, newRS), currentAll(pass, oldRSs));
  if (cleanup) cleanupDeployment(pass, oldRSs);
  syncDeploymentStatus(pass, newRS);
}

function rollback(pass: DecisionPass, revision: number): void {
  getAllReplicaSetsAndSyncRevision(pass, true);
  if (pass.aborted) return;
  rollbackFromAnnotation(pass, pass.rss, revision);
}

/** Turns a finished pass into a Decision: Deployment update and status write come last. */
function finish(
  pass: DecisionPass,
  snapshot: Snapshot,
  rss: readonly ReplicaSet[],
  released: readonly ReplicaSet[],
): Decision {
  const stored = snapshot.deployment;
  const name = stored.metadata.name ?? '';
  let deployment: Deployment = stored;
  const annotationsChanged = pass.annotations !== pass.d.metadata.annotations;
  if (annotationsChanged || pass.template) {
    deployment = { ...stored, metadata: { ...stored.metadata, annotations: pass.annotations } };
    if (pass.template) deployment.spec = { ...stored.spec, template: pass.template };
    pass.actions.push({
      verb: 'update',
      kind: 'Deployment',
      name,
      object: deployment,
      ...(pass.deploymentUpdateEvent ? { event: pass.deploymentUpdateEvent } : {}),
    });
  }
  let status: DeploymentStatus = stored.status ?? {};
  if (!statusEqual(stored.status, pass.status)) {
    status = pass.status;
    pass.actions.push(statusAction(name, stored.status, status, pass.actions, pass.events));
  }
  return {
    deployment: key(stored),
    actions: pass.actions,
    status,
    requeueAfterSeconds: pass.requeueAfterSeconds,
    events: pass.events,
    objects: { deployment: { ...deployment, status }, replicaSets: [...rss, ...released] },
  };
}

/**
 * The status write, carrying an event for each condition it changes, except one that repeats an
 * event the pass already records (ReplicaSetCreateError has its own upstream event).
 */
function statusAction(
  name: string,
  before: DeploymentStatus | undefined,
  status: DeploymentStatus,
  actions: readonly Action[],
  loose: readonly EventRecord[],
): Action {
  let events = conditionChangeEvents(before, status);
  if (events.length > 0) {
    const already = [...loose, ...actions.flatMap((a) => (a.event ? [a.event] : []))];
    events = events.filter(
      (e) => !already.some((x) => x.type === e.type && x.reason === e.reason && x.message === e.message),
    );
  }
  return { verb: 'updateStatus', kind: 'Deployment', name, status, ...(events.length > 0 ? { events } : {}) };
}

/** The ReplicaSets this Deployment controls, without claiming anything. */
function ownedAsIs(d: Deployment, candidates: readonly ReplicaSet[]): ReplicaSet[] {
  return candidates.filter((rs) => d.metadata.uid !== undefined && controllerOf(rs)?.uid === d.metadata.uid);
}

function simpleDecision(
  snapshot: Snapshot,
  d: Deployment,
  status: DeploymentStatus,
  actions: Action[],
  events: EventRecord[],
  requeue: number | null,
  extra: ReplicaSet[] = [],
): Decision {
  const stored = snapshot.deployment;
  const changed = !statusEqual(stored.status, status);
  const final = changed ? status : (stored.status ?? {});
  if (changed) actions.push(statusAction(stored.metadata.name ?? '', stored.status, final, actions, events));
  const owned = ownedAsIs(d, snapshot.replicaSets);
  for (const rs of extra) if (!owned.some((o) => o.metadata.name === rs.metadata.name)) owned.push(rs);
  return {
    deployment: key(stored),
    actions,
    status: final,
    requeueAfterSeconds: requeue,
    events,
    objects: { deployment: { ...stored, status: final }, replicaSets: owned },
  };
}

/**
 * A template whose pod-template-hash cannot be computed because a value is not what its Go type
 * says (a string for a number, a quantity that is not one): the API server refuses such an apps/v1
 * template; one in a pacer.dev Deployment is reported as an invalid spec, naming the field.
 * The hash is remembered (templateHashOf), so the pass that follows does not compute it again.
 */
function templateHashError(d: Deployment): FieldError | undefined {
  try {
    templateHashOf(d.spec.template, d.status?.collisionCount);
    return undefined;
  } catch (e) {
    if (!(e instanceof TemplateValueError)) throw e;
    return { field: `spec.${e.field}`, type: 'Invalid', value: e.value, detail: e.want };
  }
}

/** An invalid spec: only the InvalidSpec condition and observedGeneration change. */
function invalidSpecDecision(snapshot: Snapshot, d: Deployment, errors: FieldError[]): Decision {
  const status: DeploymentStatus = { ...snapshot.deployment.status };
  const message = errors.map(formatFieldError).join('; ');
  const cur = getCondition(status, INVALID_SPEC);
  if (cur?.status !== 'True' || cur.reason !== REASON.invalidSpec || cur.message !== message) {
    const cond = newCondition(INVALID_SPEC, 'True', REASON.invalidSpec, message, snapshot.now);
    // A new message for the same problem state keeps the transition time.
    if (cur?.status === 'True') cond.lastTransitionTime = cur.lastTransitionTime;
    status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== INVALID_SPEC), cond];
  }
  status.observedGeneration = d.metadata.generation ?? 0;
  const events = isEmptySelector(d.spec.selector) ? [SELECTING_ALL_EVENT] : [];
  return simpleDecision(snapshot, d, status, [], events, null);
}

/**
 * The controller's create of the new ReplicaSet failed with AlreadyExists and `existing` is what
 * holds the name: ours with an equal template means it simply is the new ReplicaSet (nothing to
 * write; look again); anything else is a hash collision: collisionCount nil→1 or +1.
 */
export function onCreateConflict(snapshot: Snapshot, existing: ReplicaSet): Decision {
  return inUpstreamKeys(snapshot, (s) => createConflict(s, existing));
}

function createConflict(snapshot: Snapshot, existing: ReplicaSet): Decision {
  const d = defaulted(snapshot.deployment);
  const stored = snapshot.deployment.status ?? {};
  const ours = d.metadata.uid !== undefined && controllerOf(existing)?.uid === d.metadata.uid;
  const sameTemplate =
    existing.metadata.labels?.[POD_TEMPLATE_HASH_LABEL] === templateHash(d, stored.collisionCount) ||
    equalIgnoreHash(d.spec.template, existing.spec.template);
  if (ours && sameTemplate) {
    return simpleDecision(snapshot, d, stored, [], [], 0, [existing]);
  }
  const status: DeploymentStatus = { ...stored, collisionCount: (stored.collisionCount ?? 0) + 1 };
  return simpleDecision(snapshot, d, status, [], [], 0);
}

/**
 * The controller's create of the new ReplicaSet `rsName` failed with `message` (other than
 * AlreadyExists): Progressing=False ReplicaSetCreateError when a deadline is set, and a Warning event.
 */
export function onCreateError(snapshot: Snapshot, rsName: string, message: string): Decision {
  return inUpstreamKeys(snapshot, (s) => createError(s, rsName, message));
}

function createError(snapshot: Snapshot, rsName: string, message: string): Decision {
  const d = defaulted(snapshot.deployment);
  const msg = MESSAGE.failedRSCreate(rsName, message);
  const status: DeploymentStatus = { ...snapshot.deployment.status };
  if (hasProgressDeadline(d)) {
    setCondition(status, newCondition(PROGRESSING, 'False', REASON.failedRSCreate, msg, snapshot.now));
  }
  return simpleDecision(snapshot, d, status, [], [{ type: 'Warning', reason: REASON.failedRSCreate, message: msg }], 0);
}
