#!/usr/bin/env bash
# Builds Cluster API's core manager and an infrastructure provider for kube-bed from the Go module in
# this directory, once per machine: they are kept in a cache directory named after a hash of go.mod,
# go.sum, this script and the sources of cmd/, so a second run builds nothing.
#
#   bin/capi-manager  sigs.k8s.io/cluster-api/core (Cluster API's own main package, unchanged)
#   bin/capi-kwok     cmd/capi-kwok: CAPD's DevCluster/DevMachine reconcilers (in-memory backend) whose
#                     Nodes are kwok Nodes of the managing cluster
#   bin/capi-bed      cmd/capi-bed: installs and runs the two above on a kube-bed
#   config/crds.yaml      core/config/crd/bases and CAPD's dev{clusters,machines,machinetemplates} CRDs
#   config/webhooks.yaml  core/config/webhook/manifests.yaml
#
#   hack/capi/build.sh            # build (or find) them; prints the bin directory
#   hack/capi/build.sh --bin-dir  # print where they are (or will be), build nothing
#
# The cache is $PACER_CACHE_DIR, else $XDG_CACHE_HOME/pacer, else ~/.cache/pacer, as for ../kube.
# Concurrent runs wait for each other (flock). Go must be installed; exits 3 when it is not.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

release=$(awk '$1 == "sigs.k8s.io/cluster-api" && $2 ~ /^v/ { print $2; exit }' go.mod)
[ -n "$release" ] || { echo "hack/capi/build.sh: no sigs.k8s.io/cluster-api version in go.mod" >&2; exit 1; }
key=$(cat build.sh go.mod go.sum $(find cmd -name '*.go' | sort) | sha256sum | cut -c1-12)
cache=${PACER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pacer}
root=$cache/capi-$release-$key
bin=$root/bin

case "${1:-}" in
  --bin-dir) echo "$bin"; exit 0 ;;
  '') ;;
  *) echo "usage: hack/capi/build.sh [--bin-dir]" >&2; exit 2 ;;
esac

declare -A source=(
  [capi-manager]=sigs.k8s.io/cluster-api/core
  [capi-kwok]=./cmd/capi-kwok
  [capi-bed]=./cmd/capi-bed
)
all=(capi-bed capi-kwok capi-manager)
missing=()
for b in "${all[@]}"; do [ -x "$bin/$b" ] || missing+=("$b"); done
if [ ${#missing[@]} -eq 0 ] && [ -s "$root/config/crds.yaml" ] && [ -s "$root/config/webhooks.yaml" ]; then
  echo "$bin"; exit 0
fi

command -v go >/dev/null || {
  echo "hack/capi/build.sh: go is not installed: it builds Cluster API from the Go module proxy (install Go 1.26 or newer)" >&2
  exit 3
}

mkdir -p "$bin" "$root/config"
exec 9>"$cache/.build-capi.lock"
flock 9
export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=readonly

if ! [ -s "$root/config/crds.yaml" ] || ! [ -s "$root/config/webhooks.yaml" ]; then
  go mod download sigs.k8s.io/cluster-api sigs.k8s.io/cluster-api/test
  core=$(go list -m -f '{{.Dir}}' sigs.k8s.io/cluster-api)
  capd=$(go list -m -f '{{.Dir}}' sigs.k8s.io/cluster-api/test)/infrastructure/docker
  for f in "$core"/core/config/crd/bases/*.yaml "$capd"/config/crd/bases/infrastructure.cluster.x-k8s.io_dev{clusters,machines,machinetemplates}.yaml; do
    cat "$f"
  done >"$root/config/.crds.yaml.tmp"
  mv "$root/config/.crds.yaml.tmp" "$root/config/crds.yaml"
  cp "$core/core/config/webhook/manifests.yaml" "$root/config/webhooks.yaml"
fi

# Cluster API's version strings, as its Makefile sets them (capi-manager logs them at start).
date=$(go list -m -f '{{.Time.Format "2006-01-02T15:04:05Z"}}' sigs.k8s.io/cluster-api)
ldflags="-s -w -X sigs.k8s.io/cluster-api/version.gitVersion=$release -X sigs.k8s.io/cluster-api/version.gitTreeState=clean -X sigs.k8s.io/cluster-api/version.buildDate=$date"
for b in "${missing[@]}"; do
  [ -x "$bin/$b" ] && continue # built by a concurrent run while this one waited for the lock
  echo "building $b ($release) into $bin" >&2
  start=$SECONDS
  go build -trimpath -ldflags "$ldflags" -o "$bin/.$b.tmp" "${source[$b]}"
  mv "$bin/.$b.tmp" "$bin/$b"
  echo "built $b in $((SECONDS - start)) s" >&2
done
echo "$bin"
