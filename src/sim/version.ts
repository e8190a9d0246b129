// The Kubernetes release the simulated cluster answers as: the release of the real control plane
// and kubectl that the project builds and tests against (hack/kube/go.mod), so that kubectl sees no
// version skew and the wire behaviour the simulated cluster copies is that release's.

export const KUBE_VERSION = { major: '1', minor: '36', gitVersion: 'v1.36.4' } as const;
