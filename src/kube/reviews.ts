// Who calls, and may they: TokenReview and SubjectAccessReview against the API server, as
// controller-runtime's secure serving (filters.WithAuthenticationAndAuthorization) and
// kube-rbac-proxy use them. The controller's ClusterRole may create both (system:auth-delegator's
// two rules).

import type { KubeClient, ResourceType } from './client.ts';

export const TOKENREVIEWS: ResourceType = {
  group: 'authentication.k8s.io',
  version: 'v1',
  plural: 'tokenreviews',
  kind: 'TokenReview',
  namespaced: false,
};
export const SUBJECTACCESSREVIEWS: ResourceType = {
  group: 'authorization.k8s.io',
  version: 'v1',
  plural: 'subjectaccessreviews',
  kind: 'SubjectAccessReview',
  namespaced: false,
};

export interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** What a request does, as RBAC names it. */
export interface ResourceAttributes {
  namespace?: string;
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  name?: string;
}

/** A request to a path that is no resource (/metrics), as RBAC names it. */
export interface NonResourceAttributes {
  path: string;
  verb: string;
}

interface TokenReview {
  apiVersion: string;
  kind: string;
  spec: { token: string };
  status?: { authenticated?: boolean; user?: UserInfo; error?: string };
}

interface SubjectAccessReview {
  apiVersion: string;
  kind: string;
  spec: {
    user: string;
    uid?: string;
    groups: string[];
    extra?: Record<string, string[]>;
    resourceAttributes?: ResourceAttributes;
    nonResourceAttributes?: NonResourceAttributes;
  };
  status?: { allowed?: boolean; reason?: string };
}

/** The user a bearer token belongs to, or undefined when the API server does not accept it. */
export async function authenticate(client: KubeClient, token: string): Promise<UserInfo | undefined> {
  const review = await client.create<TokenReview>(TOKENREVIEWS, undefined, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenReview',
    spec: { token },
  });
  return review.status?.authenticated === true && review.status.user ? review.status.user : undefined;
}

/** Whether `user` may do `a` (to a resource, or to a path), and the authoriser's reason. */
export async function authorize(
  client: KubeClient,
  user: UserInfo,
  a: ResourceAttributes | NonResourceAttributes,
): Promise<{ allowed: boolean; reason?: string }> {
  const attributes = 'path' in a ? { nonResourceAttributes: a } : { resourceAttributes: a };
  const review = await client.create<SubjectAccessReview>(SUBJECTACCESSREVIEWS, undefined, {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: user.username,
      ...(user.uid ? { uid: user.uid } : {}),
      groups: user.groups ?? [],
      ...(user.extra ? { extra: user.extra } : {}),
      ...attributes,
    },
  });
  return {
    allowed: review.status?.allowed === true,
    ...(review.status?.reason ? { reason: review.status.reason } : {}),
  };
}
