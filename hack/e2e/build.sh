#!/usr/bin/env bash
# Builds Kubernetes' own end-to-end test binary (`go test -c k8s.io/kubernetes/test/e2e`, named
# e2e.test) and the ginkgo runner that runs its specs in parallel, from the Go module in this
# directory, once per machine: they are kept in a cache directory named after a hash of go.mod,
# go.sum and this script, so a second run builds nothing. The module pins the same k8s.io/kubernetes
# release as ../kube (the control plane the specs run against); its test-only modules stay here, out
# of ../kube's go.mod, whose hash keys the control plane's cache.
#
#   hack/e2e/build.sh            # build (or find) e2e.test and ginkgo; prints their directory
#   hack/e2e/build.sh --bin-dir  # print where they are (or will be), build nothing
#
# The cache is $PACER_CACHE_DIR, else $XDG_CACHE_HOME/pacer, else ~/.cache/pacer, as for ../kube.
# Concurrent runs wait for each other (flock). Go must be installed; exits 3 when it is not.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

release=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2; exit }' go.mod)
[ -n "$release" ] || { echo "hack/e2e/build.sh: no k8s.io/kubernetes version in go.mod" >&2; exit 1; }
kube_release=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2; exit }' ../kube/go.mod)
[ "$release" = "$kube_release" ] || {
  echo "hack/e2e/build.sh: go.mod pins k8s.io/kubernetes $release but ../kube/go.mod pins $kube_release: the specs must be the control plane's release" >&2
  exit 1
}
key=$(cat build.sh go.mod go.sum | sha256sum | cut -c1-12)
cache=${PACER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pacer}
bin=$cache/e2e-$release-$key/bin

case "${1:-}" in
  --bin-dir) echo "$bin"; exit 0 ;;
  '') ;;
  *) echo "usage: hack/e2e/build.sh [--bin-dir]" >&2; exit 2 ;;
esac

declare -A source=(
  [e2e.test]=k8s.io/kubernetes/test/e2e
  [ginkgo]=github.com/onsi/ginkgo/v2/ginkgo
)
all=(ginkgo e2e.test)
missing=()
for b in "${all[@]}"; do [ -x "$bin/$b" ] || missing+=("$b"); done
[ ${#missing[@]} -gt 0 ] || { echo "$bin"; exit 0; }

command -v go >/dev/null || {
  echo "hack/e2e/build.sh: go is not installed: it builds Kubernetes' e2e test binary from the Go module proxy (install Go 1.26 or newer)" >&2
  exit 3
}

mkdir -p "$bin"
exec 9>"$cache/.build-e2e.lock"
flock 9
# The release's version strings, as ../kube/build.sh sets them: the framework logs and compares
# the client's version with the server's.
minor=${release#v1.}; minor=${minor%%.*}
date=$(go list -m -f '{{.Time.Format "2006-01-02T15:04:05Z"}}' k8s.io/kubernetes)
ldflags="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $p.gitVersion=$release -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=$date"
done

for b in "${missing[@]}"; do
  [ -x "$bin/$b" ] && continue # built by a concurrent run while this one waited for the lock
  echo "building $b ($release) into $bin" >&2
  start=$SECONDS
  # Static, -trimpath as ../kube/build.sh builds (the packages both share then come from Go's build
  # cache); -vet=off: go test would vet the e2e packages first, minutes for nothing run here.
  if [ "$b" = e2e.test ]; then
    CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=readonly \
      go test -c -vet=off -trimpath -ldflags "$ldflags" -o "$bin/.$b.tmp" "${source[$b]}"
  else
    CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=readonly \
      go build -trimpath -ldflags "-s -w" -o "$bin/.$b.tmp" "${source[$b]}"
  fi
  mv "$bin/.$b.tmp" "$bin/$b"
  echo "built $b in $((SECONDS - start)) s" >&2
done
echo "$bin"
